import type pg from 'pg'
import type { EventColumns } from './ledger.ts'

/**
 * A batch of offers written with `COPY … FROM STDIN` (PostgreSQL only; the
 * embedded store keeps the insert): the offers path of
 * `src/store/ledger.ts#writeOffers`. One simple query carries
 * `SET LOCAL synchronous_commit TO off` and the COPY, so the batch is one
 * round trip and one implicit transaction committed asynchronously, exactly
 * like the insert it replaces (docs/decisions.md, "Serving").
 */

/** The ledger columns an offer row sets, in the order of both encodings below. */
const COLUMNS =
  'occurred_at, event_type, impression_id, user_id, campaign_id, creative_id, surface, country, billable, debit_micros, dwell_ms, reason, viewer_key'

export type CopyFormat = 'binary' | 'text'

export function copyStatement(format: CopyFormat): string {
  return `SET LOCAL synchronous_commit TO off; COPY ledger_events (${COLUMNS}) FROM STDIN${format === 'binary' ? ' (FORMAT binary)' : ''}`
}

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1')
/** 2000-01-01T00:00:00Z, PostgreSQL's epoch for binary timestamps, in Unix ms. */
const PG_EPOCH_MS = 946_684_800_000
const FIELDS = 13

/**
 * The batch in COPY's binary format: no text to parse on the server (the
 * instant is an int8 of microseconds, not an ISO string). Text is UTF-8, as
 * the service's connections are.
 */
export function encodeBinary(e: EventColumns): Buffer {
  const n = e.type.length
  const str = (s: string | null) => (s === null ? 0 : Buffer.byteLength(s))
  // Header (19) and trailer (2); per row the field count (2), 13 lengths and the fixed-size values
  // (timestamptz 8, boolean 1, int8 8, int4 4 when present).
  let size = SIGNATURE.length + 8 + 2
  for (let i = 0; i < n; i++) {
    size += 2 + FIELDS * 4 + 8 + 1 + 8 + (e.dwell[i] === null ? 0 : 4)
    size += str(e.type[i]!) + str(e.impression[i]!) + str(e.user[i]!) + str(e.campaign[i]!) + str(e.creative[i]!)
    size += str(e.surface[i]!) + str(e.country[i]!) + str(e.reason[i]!) + str(e.viewer[i]!)
  }
  const buf = Buffer.allocUnsafe(size)
  let at = SIGNATURE.copy(buf, 0)
  at = buf.writeInt32BE(0, at) // flags
  at = buf.writeInt32BE(0, at) // header extension length
  const text = (s: string | null) => {
    if (s === null) {
      at = buf.writeInt32BE(-1, at)
      return
    }
    const len = buf.write(s, at + 4, 'utf8')
    buf.writeInt32BE(len, at)
    at += 4 + len
  }
  for (let i = 0; i < n; i++) {
    at = buf.writeInt16BE(FIELDS, at)
    at = buf.writeInt32BE(8, at)
    at = buf.writeBigInt64BE(BigInt(e.atMs[i]! - PG_EPOCH_MS) * 1000n, at)
    text(e.type[i]!)
    text(e.impression[i]!)
    text(e.user[i]!)
    text(e.campaign[i]!)
    text(e.creative[i]!)
    text(e.surface[i]!)
    text(e.country[i]!)
    at = buf.writeInt32BE(1, at)
    at = buf.writeUInt8(e.billable[i] ? 1 : 0, at)
    at = buf.writeInt32BE(8, at)
    at = buf.writeBigInt64BE(BigInt(e.debit[i]!), at)
    const dwell = e.dwell[i]!
    if (dwell === null) at = buf.writeInt32BE(-1, at)
    else {
      at = buf.writeInt32BE(4, at)
      at = buf.writeInt32BE(dwell, at)
    }
    text(e.reason[i]!)
    text(e.viewer[i]!)
  }
  buf.writeInt16BE(-1, at)
  return buf
}

/** COPY's text format escapes backslash, tab, newline and carriage return; null is `\N`. */
function escapeText(s: string | null): string {
  if (s === null) return '\\N'
  return /[\\\t\n\r]/.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]!) : s
}

/** The batch in COPY's text format (measured against the binary one: `bench/offers-write.ts`). */
export function encodeText(e: EventColumns): string {
  let out = ''
  for (let i = 0; i < e.type.length; i++) {
    out +=
      [
        new Date(e.atMs[i]!).toISOString(),
        e.type[i]!,
        e.impression[i]!,
        e.user[i]!,
        e.campaign[i]!,
        e.creative[i]!,
        e.surface[i]!,
        e.country[i]!,
        e.billable[i] ? 't' : 'f',
        String(e.debit[i]!),
        e.dwell[i] === null ? null : String(e.dwell[i]),
        e.reason[i]!,
        e.viewer[i]!,
      ]
        .map(escapeText)
        .join('\t') + '\n'
  }
  return out
}

/** What `pg` hands a custom query (its Connection's COPY messages). */
interface CopyConnection {
  query(text: string): void
  sendCopyFromChunk(chunk: Buffer): void
  endCopyFrom(): void
  sendCopyFail(message: string): void
}

/**
 * A query object for `pg`'s `client.query` (its "submittable" interface):
 * sends the simple query, answers CopyInResponse with the whole batch and
 * CopyDone at once, and settles on ReadyForQuery, or on the error (pg then
 * detaches it, and the server has rolled the implicit transaction back).
 * `callback` is pg's hook for its query_timeout.
 */
class CopyIn {
  readonly done: Promise<void>
  callback: (err?: Error | null) => void = () => {}
  #settle!: (err: Error | null) => void

  constructor(
    readonly text: string,
    readonly data: Buffer,
  ) {
    this.done = new Promise<void>((resolve, reject) => {
      let settled = false
      this.#settle = (err) => {
        if (settled) return
        settled = true
        if (err) reject(err)
        else resolve()
      }
    })
    this.callback = (err) => this.#settle(err ?? null)
  }

  submit(connection: CopyConnection): void {
    connection.query(this.text)
  }

  handleCopyInResponse(connection: CopyConnection): void {
    connection.sendCopyFromChunk(this.data)
    connection.endCopyFrom()
  }

  handleError(err: Error): void {
    this.callback(err)
  }

  handleReadyForQuery(): void {
    this.callback(null)
  }

  // Nothing to collect: SET and COPY answer only their command tags.
  handleCommandComplete(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
}

/**
 * Copies the batch on `client` (a connection of its own, not in a
 * transaction): one round trip. A failed COPY rolls its implicit
 * transaction back; the error is the caller's (an offer batch is never
 * retried).
 */
export async function copyOffers(client: pg.ClientBase, e: EventColumns, format: CopyFormat = 'binary'): Promise<void> {
  const query = new CopyIn(copyStatement(format), format === 'binary' ? encodeBinary(e) : Buffer.from(encodeText(e)))
  // pg answers a custom query with the query object itself: its outcome is `done`.
  void client.query(query)
  await query.done
}
