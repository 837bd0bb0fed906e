import { createHmac, createSecretKey, type KeyObject } from 'node:crypto'

/**
 * Viewer keys remembered per generation: a lookup tries the newer generation,
 * then the older; when the newer one is full, it becomes the older and the
 * older is dropped whole. So at most twice this many are held (about 10 MB at
 * the bound), and a viewer asking again within one generation (real clients
 * ask about every ten seconds) costs a Map lookup instead of an HMAC
 * (docs/serving.md (decision 0072)).
 */
export const VIEWER_KEYS_PER_GENERATION = 32_768

/**
 * A keyed hash of the install id (`viewer_id`): stable per viewer, meaningless
 * outside this service, never exported. The recent ids and their keys are held
 * in this process's memory only (never logged, never written to the store).
 */
export class ViewerKeys {
  /** A KeyObject, not the raw bytes: createHmac then skips importing the key on every call. */
  readonly #key: KeyObject
  readonly #perGeneration: number
  #newer = new Map<string, string>()
  #older = new Map<string, string>()

  constructor(secret: Buffer, perGeneration = VIEWER_KEYS_PER_GENERATION) {
    this.#key = createSecretKey(secret)
    this.#perGeneration = perGeneration
  }

  of(viewerId: string): string {
    const known = this.#newer.get(viewerId)
    if (known !== undefined) return known
    const key = this.#older.get(viewerId) ?? this.#derive(viewerId)
    if (this.#newer.size >= this.#perGeneration) {
      this.#older = this.#newer
      this.#newer = new Map()
    }
    this.#newer.set(viewerId, key)
    return key
  }

  /** Keys held (both generations; a key may be in both). */
  get held(): number {
    return this.#newer.size + this.#older.size
  }

  /** The first 22 characters of the base64url HMAC-SHA256. */
  #derive(viewerId: string): string {
    return createHmac('sha256', this.#key).update(`viewer:${viewerId}`).digest('base64url').slice(0, 22)
  }
}
