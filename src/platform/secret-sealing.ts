import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto'
import type { KeyRing } from './env.ts'

/**
 * Sealed secrets at rest (AES-256-GCM): the recoverable copy of an API key
 * the portal's "Reveal" opens. Layout: format byte, key id, 96-bit random
 * nonce, ciphertext, 128-bit tag. The key id travels in clear so a ring can
 * rotate like the offer keys (src/serving/offer-token.ts): the first key
 * seals, every key of the ring opens. A context string (the account) is
 * authenticated with the ciphertext, so a sealed value copied onto another
 * row does not open there.
 */
const FORMAT = 1
const NONCE_BYTES = 12
const TAG_BYTES = 16
const HEADER_BYTES = 2 + NONCE_BYTES

export class SecretSealer {
  readonly #current: { id: number; key: KeyObject }
  readonly #keys = new Map<number, KeyObject>()

  constructor(ring: Readonly<KeyRing>) {
    for (const { id, key } of ring) {
      if (!Number.isInteger(id) || id < 0 || id > 255 || this.#keys.has(id)) throw new Error(`sealing key id ${id}: must be unique, 0-255`)
      if (key.length !== 32) throw new Error(`sealing key ${id}: must be 32 bytes`)
      this.#keys.set(id, createSecretKey(key))
    }
    const first = ring[0]
    const key = first && this.#keys.get(first.id)
    if (!first || !key) throw new Error('the sealing key ring is empty')
    this.#current = { id: first.id, key }
  }

  /** The id of the key that seals (the ring's first). */
  get keyId(): number {
    return this.#current.id
  }

  seal(secret: string, context: string): Buffer {
    const nonce = randomBytes(NONCE_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.#current.key, nonce, { authTagLength: TAG_BYTES })
    const header = Buffer.concat([Buffer.from([FORMAT, this.#current.id]), nonce])
    cipher.setAAD(Buffer.concat([header, Buffer.from(context, 'utf8')]))
    return Buffer.concat([header, cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()])
  }

  /** Whether this ring holds the key a sealed value needs (without opening it). */
  canOpen(sealed: Buffer): boolean {
    return sealed.length > HEADER_BYTES + TAG_BYTES && sealed[0] === FORMAT && this.#keys.has(sealed[1] ?? -1)
  }

  /** The secret, or null when the value is altered, truncated, sealed for another context or under a key not in the ring. */
  open(sealed: Buffer, context: string): string | null {
    if (!this.canOpen(sealed)) return null
    const key = this.#keys.get(sealed[1] ?? -1)
    if (!key) return null
    const header = sealed.subarray(0, HEADER_BYTES)
    const decipher = createDecipheriv('aes-256-gcm', key, header.subarray(2), { authTagLength: TAG_BYTES })
    decipher.setAAD(Buffer.concat([header, Buffer.from(context, 'utf8')]))
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES))
    const plain = decipher.update(sealed.subarray(HEADER_BYTES, sealed.length - TAG_BYTES))
    try {
      decipher.final()
    } catch {
      return null
    }
    return plain.toString('utf8')
  }
}
