import type { Readable } from 'node:stream'
import { ApiError, conflict, invalid, notFound } from '../../domain/errors.ts'
import { EXPORT_CEILING } from '../../domain/order-config.ts'
import { parseFilterLists } from '../../domain/report-filters.ts'
import type { ExportSchemaVersion } from '../../domain/export-csv.ts'
import { newId } from '../../platform/ids.ts'
import { findExportJob, insertExportJob, type ExportJobRow } from '../../store/export-jobs.ts'
import { assertFiltersOwned } from '../../store/report-filters.ts'
import { readRetainedFrom } from '../../store/ledger-partitions.ts'
import { assertLedgerRetained } from '../../domain/ledger-retention.ts'
import { readConfig } from '../../store/settings.ts'
import type { ServiceContext } from '../context.ts'
import { requireComponent } from '../status.ts'
import { artifactStream } from './artifact.ts'

// The advertiser's export requests: queue a job, read it, download its artifact. The worker
// (worker.ts) runs queued jobs.

const DAY = 24 * 60 * 60_000

/** A job (and its artifact) is available for this long after it was queued. */
export const EXPORT_TTL_MS = DAY

export interface ExportCreateInput {
  start: string
  end: string
  campaign_ids?: string[]
  creative_ids?: string[]
  surfaces?: string[]
  countries?: string[]
  /** The CSV schema of this export; absent: config `export_schema_version`. */
  schema_version?: ExportSchemaVersion
}

/** The stored `filters` document: the window plus the filter dimensions that were set (the request's shape). */
export type ExportFiltersEcho = Omit<ExportCreateInput, 'schema_version'>

export const EXPORT_FILTER_LIMITS = { campaign: 100, creative: 100, surface: 20, country: 50 } as const

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

/**
 * POST /exports: validates the window and filters (foreign ids are 404),
 * fixes the CSV schema version (the request's, else config's), and queues the job. The caller
 * kicks the worker afterwards.
 */
export async function queueExport(ctx: ServiceContext, userId: string, input: ExportCreateInput): Promise<ExportJobRow> {
  await requireComponent(ctx, 'exports')
  const config = await readConfig(ctx.db)
  const { start, end } = checkExportWindow(input.start, input.end, Math.min(config.export_max_days, EXPORT_CEILING.days))
  // The export lists raw ledger rows: none are left before the retained day (LEDGER_RETENTION_DAYS).
  assertLedgerRetained('start', start.getTime(), await readRetainedFrom(ctx.db))
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
    schema_version: input.schema_version ?? config.export_schema_version,
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
  await requireComponent(ctx, 'exports')
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
