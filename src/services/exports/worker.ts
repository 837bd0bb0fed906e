import { csvField, eventTypesLeftOut, hasBillingCountry, headerLine } from '../../domain/export-csv.ts'
import { EXPORT_CEILING } from '../../domain/order-config.ts'
import type { ReportFilters } from '../../domain/report-filters.ts'
import { findAccount } from '../../store/accounts.ts'
import { appendExportChunks } from '../../store/export-chunks.ts'
import { claimExportJob, markExportFailed, markExportReady, pendingExports, type ExportJobRow, type ExportLease } from '../../store/export-jobs.ts'
import { exportLineSql, planLedgerExport, readLedgerExportText, type ExportTextPage, type LedgerWindow } from '../../store/exports.ts'
import { componentDisabled } from '../../domain/components.ts'
import { readComponentStates, readConfig } from '../../store/settings.ts'
import type { ServiceContext } from '../context.ts'
import type { Db } from '../../store/db.ts'
import { enqueueWebhookEvent } from '../../store/webhooks.ts'
import { ChunkWriter } from './artifact.ts'
import { isExpired, type ExportFiltersEcho } from './requests.ts'

// The export worker: claims queued jobs and writes each one's artifact from the ledger.

const MINUTE = 60_000

/** A job `running` for longer than this is presumed dead (crashed worker) and is claimed again. */
export const EXPORT_STUCK_MS = 10 * MINUTE
/**
 * Ledger rows per keyset page. The store renders a page as one CSV text
 * (about 110 bytes a row, so ~2 MB here): few round trips, flat memory.
 */
export const EXPORT_PAGE_ROWS = 20_000
/** Pages rendered ahead of the one being stored (PostgreSQL renders them on separate connections). */
export const EXPORT_PAGES_AHEAD = 2
/**
 * With a read replica, how long a job waits for it to replay everything committed on the primary before
 * the job started; a replica further behind leaves the job's ledger reads to the primary.
 */
export const EXPORT_REPLICA_WAIT_MS = 2_000
/** At most this many jobs per worker run; the next run (a minute later, or the next kick) takes the rest. */
export const EXPORT_JOBS_PER_RUN = 100

interface Log {
  info(obj: object, msg?: string): void
  warn(obj: object, msg?: string): void
  error(obj: object, msg?: string): void
}

/** The job's stored `filters` document, back as report filters. */
export function filtersOfJob(job: ExportJobRow): ReportFilters {
  const f = job.filters as ExportFiltersEcho
  return {
    campaignIds: f.campaign_ids ?? null,
    creativeIds: f.creative_ids ?? null,
    surfaces: (f.surfaces as ReportFilters['surfaces']) ?? null,
    countries: f.countries ?? null,
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
  const version = job.schema_version
  const window: LedgerWindow = {
    userId: job.user_id,
    start: job.window_start,
    end: job.window_end,
    filters: filtersOfJob(job),
    leaveOut: eventTypesLeftOut(version),
  }
  // The ledger reads (the plan and its pages) may run on the read replica, once it has replayed everything the
  // primary had when the job started (so the artifact is the primary's; services/lag-tolerant.ts); a failed replica
  // read runs again on the primary. The job's state and chunks are written to the primary.
  const ledger = ctx.reads ? await ctx.reads.upToNow(EXPORT_REPLICA_WAIT_MS) : null
  const readLedger = <T>(read: (db: Db) => Promise<T>): Promise<T> => (ledger ? ledger.run(read) : read(ctx.db))
  // Where each page ends, and the row limit's first count (at least that many rows: over the limit fails before rendering).
  const plan = await readLedger((db) => planLedgerExport(db, window, maxRows + 1, pageRows))
  if (plan.rows > maxRows) return fail('row_limit_exceeded')

  const billingCountry = hasBillingCountry(version) ? ((await findAccount(ctx.db, job.user_id))?.billing_country ?? null) : null
  // The store renders the lines (SQL generated from the CSV contract); the constant v2 field is formatted here, once.
  const line = exportLineSql(version, hasBillingCountry(version) ? csvField(billingCountry ?? '') : null)
  const writer = new ChunkWriter((firstSeq, chunks) => appendExportChunks(ctx.db, lease, firstSeq, chunks))
  if (!(await writer.write(headerLine(version)))) return 'lost'

  // Page k is the events after end k-1 up to end k; the last one runs to the window's end. Up to EXPORT_PAGES_AHEAD pages are
  // rendered at once (by separate connections on PostgreSQL) while the earliest is hashed and stored, in order.
  const ranges = [null, ...plan.pageEnds].map((after, k) => ({ after, through: plan.pageEnds[k] ?? null }))
  const reads: (Promise<ExportTextPage> | null)[] = []
  const startNext = () => {
    const k = reads.length
    if (k < ranges.length) reads.push(readLedger((db) => readLedgerExportText(db, window, ranges[k]!.after, ranges[k]!.through, line)))
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
  const finishedAt = ctx.clock.now()
  // The job becomes ready and its webhook event (export.ready) is written in one transaction.
  const ready = await ctx.db.transaction().execute(async (trx) => {
    const marked = await markExportReady(trx, lease, { row_count: rows, size_bytes: writer.size, sha256, artifact_encoding: writer.encoding, finished_at: finishedAt })
    if (marked) {
      await enqueueWebhookEvent(trx, {
        userId: job.user_id,
        type: 'export.ready',
        key: `export.ready:${job.export_id}`,
        at: finishedAt,
        data: {
          export_id: job.export_id,
          status_url: `/v1/exports/${job.export_id}`,
          schema_version: job.schema_version,
          row_count: rows,
          size_bytes: writer.size,
          sha256,
          expires_at: job.expires_at.toISOString(),
        },
      })
    }
    return marked
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
  if (componentDisabled(await readComponentStates(ctx.db), 'exports')) return { ...result, paused: true }
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
