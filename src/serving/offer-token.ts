import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto'
import type { Surface } from '../domain/auction.ts'

/**
 * An impression id is a signed offer: everything the view and click paths
 * need travels in the id, so any instance can verify it without a store read
 * and an offer is never lost before its view arrives.
 */
export interface Offer {
  campaignId: string
  creativeId: string
  userId: string
  surface: Surface
  country: string | null
  viewerKey: string
  offeredAtMs: number
}

const MAC_BYTES = 16
const NONCE_BYTES = 6
/** Nonces are cut from a pooled random buffer: one getrandom call per 1,024 offers instead of one each. */
const NONCE_POOL = NONCE_BYTES * 1024

export class OfferSigner {
  /** A KeyObject, not the raw bytes: createHmac then skips importing the key on every call (~1 µs of ~4.5 µs). */
  readonly #key: KeyObject
  #pool = Buffer.alloc(0)
  #poolOffset = 0

  constructor(secret: Buffer) {
    this.#key = createSecretKey(secret)
  }

  #mac(payload: string): Buffer {
    return createHmac('sha256', this.#key).update(payload).digest().subarray(0, MAC_BYTES)
  }

  /** A keyed hash of the install id: stable per viewer, meaningless outside this service, never exported. */
  viewerKey(viewerId: string): string {
    return createHmac('sha256', this.#key).update(`viewer:${viewerId}`).digest('base64url').slice(0, 22)
  }

  sign(offer: Offer): string {
    const fields = [
      offer.campaignId,
      offer.creativeId,
      offer.userId,
      offer.surface === 'extension' ? 'e' : 't',
      offer.country ?? '',
      offer.viewerKey,
      offer.offeredAtMs.toString(36),
      this.#nonce(),
    ]
    const payload = Buffer.from(fields.join('~')).toString('base64url')
    return `imp_${payload}.${this.#mac(payload).toString('base64url')}`
  }

  #nonce(): string {
    if (this.#poolOffset + NONCE_BYTES > this.#pool.length) {
      this.#pool = randomBytes(NONCE_POOL)
      this.#poolOffset = 0
    }
    const nonce = this.#pool.toString('base64url', this.#poolOffset, this.#poolOffset + NONCE_BYTES)
    this.#poolOffset += NONCE_BYTES
    return nonce
  }

  /** The offer inside a genuine id, or null for anything forged, truncated or foreign. */
  verify(impressionId: string): Offer | null {
    const match = /^imp_([A-Za-z0-9_-]{20,400})\.([A-Za-z0-9_-]{22})$/.exec(impressionId)
    if (!match) return null
    const [, payload, mac] = match as unknown as [string, string, string]
    const expected = this.#mac(payload)
    const given = Buffer.from(mac, 'base64url')
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null
    const f = Buffer.from(payload, 'base64url').toString().split('~')
    if (f.length !== 8) return null
    const [campaignId, creativeId, userId, surface, country, viewerKey, offeredAt] = f as [string, string, string, string, string, string, string]
    return {
      campaignId,
      creativeId,
      userId,
      surface: surface === 'e' ? 'extension' : 'terminal',
      country: country === '' ? null : country,
      viewerKey,
      offeredAtMs: parseInt(offeredAt, 36),
    }
  }
}
