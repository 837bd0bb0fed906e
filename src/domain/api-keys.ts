import { createHash, timingSafeEqual } from 'node:crypto'

/**
 * Live API keys: a fixed prefix and 43 base62 characters (about 256 bits).
 * Keys are high-entropy random secrets, so a single SHA-256 is the right
 * storage hash (a slow password hash would only cost latency on every call).
 */
export const LIVE_KEY_PREFIX = 'sk_live_'
export const API_KEY_SECRET_LENGTH = 43
const DISPLAY_PREFIX_LENGTH = LIVE_KEY_PREFIX.length + 6

/** A key from its random secret (base62, API_KEY_SECRET_LENGTH characters): the key, its storage digest, its display prefix. */
export function apiKeyFromSecret(secret: string): { key: string; hash: Buffer; prefix: string } {
  const key = LIVE_KEY_PREFIX + secret
  return { key, hash: hashApiKey(key), prefix: key.slice(0, DISPLAY_PREFIX_LENGTH) }
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest()
}

// Compared against when the user id is unknown, so both paths do the same work.
const DECOY_HASH = hashApiKey(`${LIVE_KEY_PREFIX}decoy`)

/** Constant-time check of a presented key against a stored digest (or the decoy). */
export function apiKeyMatches(presented: string, storedHash: Buffer | null): boolean {
  const digest = hashApiKey(presented)
  const expected = storedHash ?? DECOY_HASH
  return timingSafeEqual(digest, expected) && storedHash !== null
}
