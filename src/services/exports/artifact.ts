import { createHash, type Hash } from 'node:crypto'
import { Readable } from 'node:stream'
import { promisify } from 'node:util'
import { constants as zlibConstants, deflateRaw, inflateRaw } from 'node:zlib'
import type { Db } from '../../store/db.ts'
import { readExportChunk } from '../../store/export-chunks.ts'
import type { ArtifactEncoding } from '../../store/schema-exports.ts'

// An export's artifact: the CSV cut into chunks, each deflated on its own, stored, and streamed back.

/** Artifact chunk size in the store. */
export const EXPORT_CHUNK_BYTES = 256 * 1024

/** How new artifacts are stored: each chunk deflated on its own (fast level: the CSV still shrinks about 9:1). */
export const ARTIFACT_ENCODING: ArtifactEncoding = 'deflate-raw'
const DEFLATE_OPTIONS = { level: zlibConstants.Z_BEST_SPEED }
const deflateChunk = promisify(deflateRaw)
const inflateChunk = promisify(inflateRaw)

/** A piece of the CSV as it is stored, and back (on Node's thread pool when compressed). */
function encodeChunk(encoding: ArtifactEncoding, data: Buffer): Promise<Buffer> {
  return encoding === 'deflate-raw' ? deflateChunk(data, DEFLATE_OPTIONS) : Promise.resolve(data)
}
function decodeChunk(encoding: ArtifactEncoding, data: Buffer): Promise<Buffer> {
  return encoding === 'deflate-raw' ? inflateChunk(data) : Promise.resolve(data)
}

/**
 * The stored artifact as a stream that reads (and inflates) one chunk per
 * `read()`, with the next chunk read ahead while this one is sent: memory
 * stays at about two chunks whatever the file size. A chunk missing before
 * `sizeBytes` were sent (purged mid-download) aborts the stream.
 */
export function artifactStream(db: Db, exportId: string, sizeBytes: number, encoding: ArtifactEncoding): Readable {
  let seq = 0
  let sent = 0
  const fetchNext = () => {
    const next = readExportChunk(db, exportId, seq++).then((stored) => (stored === undefined ? undefined : decodeChunk(encoding, stored)))
    // Not awaited when the download stops early; its failure is then of no interest.
    next.catch(() => {})
    return next
  }
  let ahead: Promise<Buffer | undefined> | null = null
  return new Readable({
    highWaterMark: EXPORT_CHUNK_BYTES,
    read() {
      const current = ahead ?? fetchNext()
      ahead = null
      current.then(
        (chunk) => {
          if (chunk === undefined) {
            if (sent === sizeBytes) this.push(null)
            else this.destroy(new Error(`export ${exportId}: artifact incomplete (${sent} of ${sizeBytes} bytes)`))
            return
          }
          sent += chunk.length
          if (sent < sizeBytes) ahead = fetchNext()
          this.push(chunk)
          if (sent === sizeBytes) this.push(null)
        },
        (err: Error) => this.destroy(err),
      )
    },
  })
}

/**
 * Cuts the CSV text into fixed-size chunks as it is produced, hashing and
 * counting every byte on the way, so the artifact never sits in memory whole.
 * The complete chunks of one `write` are deflated at once on Node's thread
 * pool (off the event loop, which on the embedded store also runs the
 * database) and stored together (one store call, one transaction), so a page
 * of the export costs one commit, not one per chunk. `size` and the hash are
 * of the CSV as served, not as stored.
 */
export class ChunkWriter {
  readonly #store: (firstSeq: number, chunks: Buffer[]) => Promise<boolean>
  readonly #chunkBytes: number
  readonly #encoding: ArtifactEncoding
  readonly #hash: Hash = createHash('sha256')
  #tail: Buffer = Buffer.alloc(0)
  #seq = 0
  size = 0

  constructor(store: (firstSeq: number, chunks: Buffer[]) => Promise<boolean>, options: { chunkBytes?: number; encoding?: ArtifactEncoding } = {}) {
    this.#store = store
    this.#chunkBytes = options.chunkBytes ?? EXPORT_CHUNK_BYTES
    this.#encoding = options.encoding ?? ARTIFACT_ENCODING
  }

  get encoding(): ArtifactEncoding {
    return this.#encoding
  }

  /** False when the store refused the chunks (the lease was lost). */
  async write(text: string): Promise<boolean> {
    const bytes = Buffer.from(text, 'utf8')
    this.#hash.update(bytes)
    this.size += bytes.length
    const all = this.#tail.length > 0 ? Buffer.concat([this.#tail, bytes]) : bytes
    const chunks: Buffer[] = []
    let at = 0
    for (; all.length - at >= this.#chunkBytes; at += this.#chunkBytes) chunks.push(all.subarray(at, at + this.#chunkBytes))
    // Copied, so the (possibly large) text buffer is not kept alive by a small tail.
    this.#tail = Buffer.from(all.subarray(at))
    if (chunks.length === 0) return true
    const first = this.#seq
    this.#seq += chunks.length
    return this.#store(first, await Promise.all(chunks.map((c) => encodeChunk(this.#encoding, c))))
  }

  /** Stores the last partial chunk; answers the lowercase hex SHA-256 of everything written, or null when the lease was lost. */
  async end(): Promise<string | null> {
    if (this.#tail.length > 0 && !(await this.#store(this.#seq++, [await encodeChunk(this.#encoding, this.#tail)]))) return null
    this.#tail = Buffer.alloc(0)
    return this.#hash.digest('hex')
  }
}
