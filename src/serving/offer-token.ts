import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto'
import type { Offer } from '../domain/offer.ts'
import { sourceBytes, sourceFromBytes } from '../domain/traffic-source.ts'

/**
 * An impression id is a sealed offer: everything the view and click paths
 * need travels in the id, encrypted and authenticated (AES-256-GCM), so any
 * instance can read it without a store read, an offer is never lost before
 * its view arrives, and the id reveals nothing: not the campaign, the
 * creative, the account or the viewer (operations.md section 2).
 */
export type { Offer }

/** A key of the ring: `id` (0-255) travels in clear in every id it seals. */
export interface OfferKey {
  id: number
  key: Buffer
}

const PREFIX = 'imp_'
const NONCE_BYTES = 12
const TAG_BYTES = 16
const HEADER_BYTES = 1 + NONCE_BYTES
/** Nonces are cut from a pooled random buffer: one getrandom call per 1,024 offers instead of one each. */
const NONCE_POOL = NONCE_BYTES * 1024
const FLAG_EXTENSION = 1
const FLAG_COUNTRY = 2
/** The decision's source follows the country: 4 bytes (IPv4) or 8 (an IPv6 /64). */
const FLAG_SOURCE_V4 = 4
const FLAG_SOURCE_V6 = 8
/** The attributed topic follows the source: a length byte and its name (ASCII, domain/topics.ts). */
const FLAG_TOPIC = 16
/** flags, offer time (48 bits, ms), origin (32 bits). */
const FIXED_BYTES = 1 + 6 + 4
const TOKEN = /^imp_[A-Za-z0-9_-]{40,400}$/

/**
 * Seals offers under the ring's first key and opens them under any key of
 * the ring (rotation: a new key goes first, the old one stays until the ids
 * it sealed are past the one-hour view window).
 */
export class OfferSealer {
  readonly #current: { id: number; key: KeyObject; aad: Buffer }
  readonly #keys = new Map<number, { key: KeyObject; aad: Buffer }>()
  #pool = Buffer.alloc(0)
  #poolOffset = 0

  constructor(ring: readonly OfferKey[]) {
    for (const { id, key } of ring) {
      if (!Number.isInteger(id) || id < 0 || id > 255 || this.#keys.has(id)) throw new Error(`offer key id ${id}: must be unique, 0-255`)
      if (key.length !== 32) throw new Error(`offer key ${id}: must be 32 bytes`)
      this.#keys.set(id, { key: createSecretKey(key), aad: Buffer.from([id]) })
    }
    const first = ring[0] && this.#keys.get(ring[0].id)
    if (!ring[0] || !first) throw new Error('the offer key ring is empty')
    this.#current = { id: ring[0].id, ...first }
  }

  seal(offer: Offer): string {
    const plain = encodeOffer(offer)
    const out = Buffer.allocUnsafe(HEADER_BYTES + plain.length + TAG_BYTES)
    out[0] = this.#current.id
    const nonce = this.#nonce(out)
    const cipher = createCipheriv('aes-256-gcm', this.#current.key, nonce, { authTagLength: TAG_BYTES })
    cipher.setAAD(this.#current.aad)
    let at = HEADER_BYTES + cipher.update(plain).copy(out, HEADER_BYTES)
    at += cipher.final().copy(out, at)
    cipher.getAuthTag().copy(out, at)
    return PREFIX + out.toString('base64url')
  }

  /** Copies a fresh nonce into `out` after the key id and returns it. */
  #nonce(out: Buffer): Buffer {
    if (this.#poolOffset + NONCE_BYTES > this.#pool.length) {
      this.#pool = randomBytes(NONCE_POOL)
      this.#poolOffset = 0
    }
    this.#pool.copy(out, 1, this.#poolOffset, this.#poolOffset + NONCE_BYTES)
    this.#poolOffset += NONCE_BYTES
    return out.subarray(1, HEADER_BYTES)
  }

  /** The offer inside a genuine id, or null for anything forged, altered, truncated, foreign or sealed under an unknown key. */
  open(impressionId: string): Offer | null {
    if (!TOKEN.test(impressionId)) return null
    const text = impressionId.slice(PREFIX.length)
    const bytes = Buffer.from(text, 'base64url')
    // Base64url has spare bits in its last character: only the canonical spelling of the bytes is the id.
    if (bytes.length < HEADER_BYTES + FIXED_BYTES + TAG_BYTES || bytes.toString('base64url') !== text) return null
    const key = this.#keys.get(bytes[0] ?? -1)
    if (!key) return null
    const decipher = createDecipheriv('aes-256-gcm', key.key, bytes.subarray(1, HEADER_BYTES), { authTagLength: TAG_BYTES })
    decipher.setAAD(key.aad)
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES))
    // GCM is a stream mode: update yields the whole plaintext; final only checks the tag (and throws on a mismatch).
    const plain = decipher.update(bytes.subarray(HEADER_BYTES, bytes.length - TAG_BYTES))
    try {
      decipher.final()
    } catch {
      return null
    }
    return decodeOffer(plain)
  }
}

/**
 * The compact plaintext: flags (surface, country present, source kind), offer
 * time as 48 bits, origin as 32 bits, the country's two letters when present,
 * the source's 4 or 8 bytes when present, the attributed topic (a length byte and
 * its name) when present, then the campaign, creative, account and viewer key,
 * each a length byte and UTF-8.
 */
function encodeOffer(offer: Offer): Buffer {
  const strings = [offer.campaignId, offer.creativeId, offer.userId, offer.viewerKey].map((s) => Buffer.from(s))
  const countryBytes = offer.country === null ? 0 : 2
  const source = offer.source === null ? null : sourceBytes(offer.source)
  const sourceFlag = source === null ? 0 : source.length === 4 ? FLAG_SOURCE_V4 : FLAG_SOURCE_V6
  const topic = offer.topic == null ? null : Buffer.from(offer.topic, 'latin1')
  if (topic !== null && topic.length > 255) throw new Error('an offer topic is longer than 255 bytes')
  const topicBytes = topic === null ? 0 : 1 + topic.length
  const out = Buffer.allocUnsafe(FIXED_BYTES + countryBytes + (source?.length ?? 0) + topicBytes + strings.reduce((n, s) => n + 1 + s.length, 0))
  out[0] = (offer.surface === 'extension' ? FLAG_EXTENSION : 0) | (offer.country === null ? 0 : FLAG_COUNTRY) | sourceFlag | (topic === null ? 0 : FLAG_TOPIC)
  out.writeUIntBE(offer.offeredAtMs, 1, 6)
  out.writeUInt32BE(offer.origin >>> 0, 7)
  let at = FIXED_BYTES
  if (offer.country !== null) at += out.write(offer.country, at, 2, 'latin1')
  if (source !== null) at += source.copy(out, at)
  if (topic !== null) {
    out[at++] = topic.length
    at += topic.copy(out, at)
  }
  for (const s of strings) {
    if (s.length > 255) throw new Error('an offer field is longer than 255 bytes')
    out[at++] = s.length
    at += s.copy(out, at)
  }
  return out
}

function decodeOffer(plain: Buffer): Offer | null {
  if (plain.length < FIXED_BYTES) return null
  const flags = plain[0] ?? 0
  let at = FIXED_BYTES
  let country: string | null = null
  if (flags & FLAG_COUNTRY) {
    country = plain.toString('latin1', at, at + 2)
    at += 2
  }
  let source: string | null = null
  const sourceLength = flags & FLAG_SOURCE_V4 ? 4 : flags & FLAG_SOURCE_V6 ? 8 : 0
  if (sourceLength > 0) {
    if (at + sourceLength > plain.length) return null
    source = sourceFromBytes(plain.subarray(at, at + sourceLength))
    at += sourceLength
  }
  const next = (): string | null => {
    const length = plain[at]
    if (length === undefined || at + 1 + length > plain.length) return null
    at += 1 + length
    return plain.toString('utf8', at - length, at)
  }
  const topic = flags & FLAG_TOPIC ? next() : null
  if (flags & FLAG_TOPIC && topic === null) return null
  const campaignId = next()
  const creativeId = next()
  const userId = next()
  const viewerKey = next()
  if (campaignId === null || creativeId === null || userId === null || viewerKey === null || at !== plain.length) return null
  return {
    campaignId,
    creativeId,
    userId,
    surface: flags & FLAG_EXTENSION ? 'extension' : 'terminal',
    country,
    viewerKey,
    source,
    offeredAtMs: plain.readUIntBE(1, 6),
    origin: plain.readUInt32BE(7),
    ...(topic === null ? {} : { topic }),
  }
}
