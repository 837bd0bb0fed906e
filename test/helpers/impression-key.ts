import { createHash } from 'node:crypto'

/**
 * `ledger_claim_key(impressionId)` computed in the test (migrations 0038 and 0040): the first 16 bytes of
 * SHA-256 over the id's UTF-8 bytes, the key a ledger row and its claims hold instead of the id.
 */
export function impressionKey(impressionId: string): Buffer {
  return Buffer.from(createHash('sha256').update(impressionId, 'utf8').digest().subarray(0, 16))
}

/** `impressionKey` as hex: a Map or Set key, or what a test compares with a row's `impression_key.toString('hex')`. */
export const impressionKeyHex = (impressionId: string): string => impressionKey(impressionId).toString('hex')
