import { randomBytes, randomUUID } from 'node:crypto'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** Random base62 string carrying `bytes` bytes of entropy (rejection sampling keeps it unbiased). */
export function randomBase62(length: number): string {
  let out = ''
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248) out += ALPHABET[b % 62]
      if (out.length === length) break
    }
  }
  return out
}

/** Opaque public identifier: a type prefix and 22 base62 characters (about 131 bits). */
export function newId(prefix: 'usr' | 'cmp' | 'crv' | 'blk' | 'inv' | 'exp' | 'imp' | 'crd' | 'msg' | 'opr' | 'whe' | 'tfb'): string {
  return `${prefix}_${randomBase62(22)}`
}

/** A random (version 4) UUID: 122 random bits, for capabilities such as a shared report's address. */
export function newRandomUuid(): string {
  return randomUUID()
}
