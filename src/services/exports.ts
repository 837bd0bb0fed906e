import { createHash, type Hash } from 'node:crypto'
import { Readable } from 'node:stream'
import { promisify } from 'node:util'
import { constants as zlibConstants, deflateRaw, inflateRaw } from 'node:zlib'
import type { Surface } from '../domain/auction.ts'
import { ApiError, conflict, invalid, notFound } from '../domain/errors.ts'
import { csvField, headerLine } from '../domain/export-csv.ts'
import { EXPORT_CEILING } from '../domain/order-config.ts'
import { parseFilterLists, type ReportFilters } from '../domain/report-filters.ts'
import { newId } from '../platform/ids.ts'
import type { Db } from '../store/db.ts'
import type { ArtifactEncoding } from '../store/schema-exports.ts'
import { findAccount } from '../store/accounts.ts'
import {
  appendExportChunks,
  claimExportJob,
  findExportJob,
  pendingExports,
  insertExportJob,
  markExportFailed,
  markExportReady,
  readExportChunk,
  exportLineSql,
  planLedgerExport,
  readLedgerExportText,
  type ExportJobRow,
  type ExportLease,
  type ExportTextPage,
  type LedgerWindow,
} from '../store/exports.ts'
import { assertFiltersOwned } from '../store/report-filters.ts'
import { readComponentStates, readConfig } from '../store/settings.ts'
import type { ServiceContext } from './context.ts'

const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE

/** A job (and its artifact) is available for this long after it was queued. */
export const EXPORT_TTL_MS = DAY
/** A job `running` for longer than this is presumed dead (crashed worker) and is claimed again. */
export const EXPORT_STUCK_MS = 10 * MINUTE
/**
 * Ledger rows per keyset page. The store renders a page as one CSV text
 * (about 110 bytes a row, so ~2 MB here): few round trips, flat memory.
 */
export const EXPORT_PAGE_ROWS = 20_000
/** Pages rendered ahead of the one being stored (PostgreSQL renders them on separate connections). */
export const EXPORT_PAGES_AHEAD = 2
/** Artifact chunk size in the store. */
export const EXPORT_CHUNK_BYTES = 256 * 1024
/** At most this many jobs per worker run; the next run (a minute later, or the next kick) takes the rest. */
export const EXPORT_JOBS_PER_RUN = 100

export const EXPORTS_DISABLED = 'exports are disabled by the operator (component `exports`); queued jobs wait, retry later'

export interface ExportCreateInput {
  start: string
  end: string
  campaign_ids?: string[]
  creative_ids?: string[]
  surfaces?: Surface[]
  countries?: string[]
}

/** The stored `filters` document: the window plus the filter dimensions that were set (the request's shape). */
export type ExportFiltersEcho = ExportCreateInput

export const EXPORT_FILTER_LIMITS = { campaign: 100, creative: 100, surface: 20, country: 50 } as const

interface Log {
  info(obj: object, msg?: string): void
  warn(obj: object, msg?: string): void
  error(obj: object, msg?: string): void
}

async function assertExportsEnabled(db: Db): Promise<void> {
  if ((await readComponentStates(db)).get('exports') === 'disabled') throw new ApiError(503, EXPORTS_DISABLED)
}

/** [start, end): end strictly after start, at most `maxDays` days long. */
export function checkExportWindow(startText: string, endText: string, maxDays: number): { start: Date; end: Date } {
  const start = new Date(startText)
  const end = new Date(endText)
  if (Number.isNaN(start.getTime())) throw invalid('start', 'invalid_format')
  if (Number.isNaN(end.getTime())) throw invalid('end', 'invalid_format')
  if (end.getTime() <= start.getTime()) throw invalid('end', 'end_not_after_start')
  if (end.getTime() - start.getTime() > maxDays * DAY) throw invalid('end', 'interval_too_long', { max_days: maxDays })
  return { start, end }
}

export function filtersOfJob(job: ExportJobRow): ReportFilters {
  const f = job.filters
  return {
    campaignIds: f.campaign_ids ?? null,
    creativeIds: f.creative_ids ?? null,
    surfaces: f.surfaces ?? null,
    countries: f.countries ?? null,
  }
}

/**
 * POST /exports: validates the window and filters (foreign ids are 404),
 * fixes the CSV schema version from config, and queues the job. The caller
 * kicks the worker afterwards.
 */
export async function queueExport(ctx: ServiceContext, userId: string, input: ExportCreateInput): Promise<ExportJobRow> {
  await assertExportsEnabled(ctx.db)
  const config = await readConfig(ctx.db)
  const { start, end } = checkExportWindow(input.start, input.end, Math.min(config.export_max_days, EXPORT_CEILING.days))
  const filters = parseFilterLists(
    { campaign: input.campaign_ids, creative: input.creative_ids, surface: input.surfaces, country: input.countries },
    { campaign: 'campaign_ids', creative: 'creative_ids', surface: 'surfaces', country: 'countries' },
    EXPORT_FILTER_LIMITS,
  )
  await assertFiltersOwned(ctx.db, userId, filters)
  const echo: ExportFiltersEcho = { start: start.toISOString(), end: end.toISOString() }
  if (filters.campaignIds) echo.campaign_ids = filters.campaignIds
  if (filters.creativeIds) echo.creative_ids = filters.creativeIds
  if (filters.surfaces) echo.surfaces = filters.surfaces
  if (filters.countries) echo.countries = filters.countries
  const now = ctx.clock.now()
  return insertExportJob(ctx.db, {
    export_id: newId('exp'),
    user_id: userId,
    status: 'queued',
    schema_version: config.export_schema_version,
    filters: JSON.stringify(echo),
    window_start: start,
    window_end: end,
    row_count: null,
    size_bytes: null,
    sha256: null,
    error_code: null,
    created_at: now,
    started_at: null,
    finished_at: null,
    expires_at: new Date(now.getTime() + EXPORT_TTL_MS),
  })
}

/** GET /exports/{id}: the account's own job; unknown and foreign ids are the same 404. */
export async function readExport(ctx: ServiceContext, userId: string, exportId: string): Promise<ExportJobRow> {
  const job = await findExportJob(ctx.db, userId, exportId)
  if (!job) throw notFound('export')
  return job
}

export const isExpired = (job: ExportJobRow, nowMs: number) => nowMs >= job.expires_at.getTime()

/**
 * GET /exports/{id}/download: 404 foreign or unknown, 410 expired (also
 * after the artifact was purged), 409 not ready or failed. Answers the job and
 * a stream over its stored chunks.
 */
export async function openExportDownload(ctx: ServiceContext, userId: string, exportId: string): Promise<{ job: ExportJobRow; body: Readable }> {
  await assertExportsEnabled(ctx.db)
  const job = await readExport(ctx, userId, exportId)
  if (isExpired(job, ctx.clock.nowMs())) {
    throw new ApiError(410, { field: 'export_id', reason: 'expired', expires_at: job.expires_at.toISOString() })
  }
  if (job.status === 'failed') {
    throw conflict({ field: 'export_id', reason: 'export_failed', status: job.status, error_code: job.error_code ?? 'internal_error' })
  }
  if (job.status !== 'ready' || job.size_bytes === null) {
    throw conflict({ field: 'export_id', reason: 'not_ready', status: job.status })
  }
  return { job, body: artifactStream(ctx.db, job.export_id, job.size_bytes, job.artifact_encoding) }
}

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

type JobOutcome = 'ready' | 'failed' | 'lost'

/** Generates one claimed job's artifact. */
async function generate(ctx: ServiceContext, job: ExportJobRow, lease: ExportLease, pageRows: number): Promise<JobOutcome> {
  const fail = async (code: string): Promise<JobOutcome> =>
    (await markExportFailed(ctx.db, lease, code, ctx.clock.now())) ? 'failed' : 'lost'

  if (isExpired(job, ctx.clock.nowMs())) return fail('expired')
  const config = await readConfig(ctx.db)
  const maxRows = Math.min(config.export_max_rows, EXPORT_CEILING.rows)
  const window: LedgerWindow = { userId: job.user_id, start: job.window_start, end: job.window_end, filters: filtersOfJob(job) }
  // Where each page ends, and the row limit's first count (at least that many rows: over the limit fails before rendering).
  const plan = await planLedgerExport(ctx.db, window, maxRows + 1, pageRows)
  if (plan.rows > maxRows) return fail('row_limit_exceeded')

  const version = job.schema_version
  const billingCountry = version === 'ledger-export-v2' ? ((await findAccount(ctx.db, job.user_id))?.billing_country ?? null) : null
  // The store renders the lines (SQL generated from the CSV contract); the constant v2 field is formatted here, once.
  const line = exportLineSql(version, version === 'ledger-export-v2' ? csvField(billingCountry ?? '') : null)
  const writer = new ChunkWriter((firstSeq, chunks) => appendExportChunks(ctx.db, lease, firstSeq, chunks))
  if (!(await writer.write(headerLine(version)))) return 'lost'

  // Page k is the events after end k-1 up to end k; the last one runs to the window's end. Up to EXPORT_PAGES_AHEAD pages are
  // rendered at once (by separate connections on PostgreSQL) while the earliest is hashed and stored, in order.
  const ranges = [null, ...plan.pageEnds].map((after, k) => ({ after, through: plan.pageEnds[k] ?? null }))
  const reads: (Promise<ExportTextPage> | null)[] = []
  const startNext = () => {
    const k = reads.length
    if (k < ranges.length) reads.push(readLedgerExportText(ctx.db, window, ranges[k]!.after, ranges[k]!.through, line))
  }
  let rows = 0
  try {
    for (let i = 0; i < EXPORT_PAGES_AHEAD; i++) startNext()
    for (let k = 0; k < ranges.length; k++) {
      const page = await reads[k]!
      reads[k] = null
      startNext()
      rows += page.rows
      // Events recorded into the window after the plan can still push it over.
      if (rows > maxRows) return await fail('row_limit_exceeded')
      if (page.rows > 0 && !(await writer.write(page.text))) return 'lost'
    }
  } finally {
    // Pages still being read when the job stops early are not waited for; their failures are of no interest.
    for (const r of reads) r?.catch(() => {})
  }
  const sha256 = await writer.end()
  if (sha256 === null) return 'lost'
  const ready = await markExportReady(ctx.db, lease, {
    row_count: rows,
    size_bytes: writer.size,
    sha256,
    artifact_encoding: writer.encoding,
    finished_at: ctx.clock.now(),
  })
  return ready ? 'ready' : 'lost'
}

export interface ExportRunResult {
  ready: string[]
  failed: string[]
  /** Jobs this worker lost to another one (reclaimed as stuck) or could not even mark failed. */
  lost: string[]
  /** Some job is still unfinished (queued or running, here or on another instance) after this run. */
  in_flight: boolean
  /** The `exports` component is disabled: queued jobs wait. */
  paused?: boolean
}

/**
 * The export worker: claims waiting jobs one at a time (queued, or stuck in
 * `running` for over ten minutes) and generates each. Safe to run on every
 * instance at once: claims are atomic and writes check the claim's lease.
 * While the `exports` component is disabled, jobs stay queued.
 */
export async function runPendingExports(ctx: ServiceContext, log: Log, options: { pageRows?: number } = {}): Promise<ExportRunResult> {
  const pageRows = options.pageRows ?? EXPORT_PAGE_ROWS
  const stuckBefore = () => new Date(ctx.clock.nowMs() - EXPORT_STUCK_MS)
  // The idle case costs one indexed read.
  const pending = await pendingExports(ctx.db, stuckBefore())
  const result: ExportRunResult = { ready: [], failed: [], lost: [], in_flight: pending.unfinished }
  if (!pending.claimable) return result
  if ((await readComponentStates(ctx.db)).get('exports') === 'disabled') return { ...result, paused: true }
  for (let i = 0; i < EXPORT_JOBS_PER_RUN; i++) {
    const job = await claimExportJob(ctx.db, ctx.clock.now(), stuckBefore())
    if (!job) break
    const lease: ExportLease = { exportId: job.export_id, startedAt: job.started_at! }
    let outcome: JobOutcome
    try {
      outcome = await generate(ctx, job, lease, pageRows)
      if (outcome === 'lost') log.warn({ export_id: job.export_id }, 'export job was reclaimed by another worker')
    } catch (err) {
      log.error({ err, export_id: job.export_id }, 'export job failed')
      // Best effort: when even this fails (store down), the job stays `running` and is reclaimed after EXPORT_STUCK_MS.
      outcome = await markExportFailed(ctx.db, lease, 'internal_error', ctx.clock.now()).then(
        (marked) => (marked ? 'failed' : 'lost'),
        () => 'lost' as const,
      )
    }
    result[outcome].push(job.export_id)
  }
  // What is still unfinished after this run (e.g. other instances' jobs, or more than one run's worth).
  if (result.ready.length + result.failed.length + result.lost.length > 0) {
    result.in_flight = (await pendingExports(ctx.db, stuckBefore())).unfinished
  }
  return result
}
