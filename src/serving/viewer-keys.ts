import { createHmac, createSecretKey, type KeyObject } from 'node:crypto'

/** A keyed hash of the install id (`viewer_id`): stable per viewer, meaningless outside this service, never exported. */
export class ViewerKeys {
  /** A KeyObject, not the raw bytes: createHmac then skips importing the key on every call. */
  readonly #key: KeyObject

  constructor(secret: Buffer) {
    this.#key = createSecretKey(secret)
  }

  of(viewerId: string): string {
    return createHmac('sha256', this.#key).update(`viewer:${viewerId}`).digest('base64url').slice(0, 22)
  }
}
