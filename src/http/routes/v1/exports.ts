import type { App, RouteDeps } from '../../types.ts'
import { errors, IdParams, pagedListSchema } from '../../schemas/common.ts'
import { CsvResponseSchema, ExportCreateSchema, ExportJobSchema, ExportListSchema } from '../../schemas/exports.ts'
import { exportFileName } from '../../../domain/export-csv.ts'
import { kickExports } from '../../../jobs/exports.ts'
import { openExportDownload, queueExport, readExport } from '../../../services/exports/requests.ts'
import type { ExportJobRow } from '../../../services/read-models.ts'
import { listExports } from '../../../services/lists.ts'

const Params = IdParams('export_id')

export const exportStatusPath = (id: string) => `/v1/exports/${id}`
export const exportDownloadPath = (id: string) => `/v1/exports/${id}/download`

/** ExportJob: explicit output fields; `download_url` (absolute) only when ready. */
export function presentExportJob(job: ExportJobRow, publicUrl: string) {
  return {
    id: job.export_id,
    status: job.status,
    status_url: exportStatusPath(job.export_id),
    schema_version: job.schema_version,
    filters: job.filters,
    row_count: job.row_count,
    size_bytes: job.size_bytes,
    sha256: job.sha256,
    error_code: job.error_code,
    created_at: job.created_at.toISOString(),
    finished_at: job.finished_at?.toISOString() ?? null,
    expires_at: job.expires_at.toISOString(),
    ...(job.status === 'ready' ? { download_url: publicUrl + exportDownloadPath(job.export_id) } : {}),
  }
}

/** The headers of a CSV download, the API's and the portal's alike. */
export function exportDownloadHeaders(job: ExportJobRow): Record<string, string> {
  return {
    'content-type': 'text/csv; charset=utf-8',
    'cache-control': 'private, no-store',
    'content-disposition': `attachment; filename="${exportFileName(job.export_id)}"`,
    'x-service-export-schema': job.schema_version,
    'x-service-content-sha256': job.sha256!,
    'content-length': String(job.size_bytes!),
  }
}

export function exportRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.post(
      '/exports',
      {
        schema: {
          summary: 'Queue a CSV export of the raw ledger',
          description:
            'Queues a sanitized ledger export of [start, end) with the same filters as /stats (intersected; every campaign and ' +
            "creative id must be the account's own, otherwise 404). 400 `{field: \"end\", reason: \"end_not_after_start\"}` when end is not " +
            'after start; 400 `{field: "end", reason: "interval_too_long", max_days}` beyond config `export_max_days` (default 31); 400 ' +
            '`{field: "start", reason: "beyond_retention", oldest_available_day}` when start is before the oldest day whose ledger rows ' +
            'are kept (LEDGER_RETENTION_DAYS, default 400). ' +
            'The CSV schema version is fixed now: the optional `schema_version` (`ledger-export-v1`, `-v2` or `-v3`; another value is 400 ' +
            '`invalid_value`), else config `export_schema_version`. A job matching more than config ' +
            '`export_max_rows` (default 250,000) rows ends `failed` with `error_code` `row_limit_exceeded`. Poll `status_url` no ' +
            'more than once every five seconds. A read: counts against the read rate limit; no write access needed. ' +
            '503 while the `exports` component is disabled.',
          tags: ['exports'],
          body: ExportCreateSchema,
          response: { 202: ExportJobSchema, ...errors(400, 401, 404, 429, 503) },
        },
      },
      async (request, reply) => {
        const job = await queueExport(deps, request.account.user_id, request.body)
        kickExports(deps.scheduler, request.log)
        return reply.code(202).send(presentExportJob(job, deps.settings.publicUrl))
      },
    )

    app.get(
      '/exports',
      {
        schema: pagedListSchema({
          summary: 'List export jobs',
          items: "The account's export jobs (ExportJob, as the status read answers them), newest first by `created_at` then `id`",
          notes: 'Jobs deleted 7 days after expiry are no longer listed. A read: counts against the read rate limit.',
          tags: ['exports'],
          list: ExportListSchema,
        }),
      },
      async (request) => {
        const page = await listExports(deps, request.account.user_id, request.query)
        return { exports: page.items.map((job) => presentExportJob(job, deps.settings.publicUrl)), next_cursor: page.nextCursor }
      },
    )

    app.get(
      '/exports/:export_id',
      {
        schema: {
          summary: 'Export status',
          description:
            'A ready job carries `download_url`, `row_count`, `size_bytes`, `sha256`, `expires_at` and `schema_version`; a failed one ' +
            '`error_code`. After `expires_at` the job keeps its last status (the download answers 410); 7 days later it is deleted (404). ' +
            "Unknown and other accounts' ids are the same 404.",
          tags: ['exports'],
          params: Params,
          response: { 200: ExportJobSchema, ...errors(401, 404, 429) },
        },
      },
      async (request) => presentExportJob(await readExport(deps, request.account.user_id, request.params.export_id), deps.settings.publicUrl),
    )

    app.get(
      '/exports/:export_id/download',
      {
        schema: {
          summary: 'Download the CSV',
          description:
            'Streams the stored CSV (`text/csv; charset=utf-8`, `Cache-Control: private, no-store`, `Content-Disposition: attachment`). ' +
            'Headers: `X-Service-Export-Schema` (schema version) and `X-Service-Content-SHA256` (lowercase hex SHA-256 of the body); ' +
            '`Content-Length` equals `size_bytes`.\n\n' +
            'CSV header row, `ledger-export-v1`: `timestamp,event_type,campaign_id,creative_id,surface,country,billable,debit_micros`; ' +
            '`ledger-export-v2`: `timestamp,event_type,campaign_id,creative_id,surface,country,billable,debit_micros,processor_billing_country`.\n\n' +
            '409 while queued or running (`detail.reason` `not_ready`, with `status`) and for a failed job (`detail.reason` ' +
            '`export_failed`, with `error_code`); 410 once the service clock reaches `expires_at` (`detail.reason` `expired`); ' +
            "404 for unknown and other accounts' ids; 503 while the `exports` component is disabled.",
          tags: ['exports'],
          params: Params,
          response: { 200: CsvResponseSchema, ...errors(401, 404, 409, 410, 429, 503) },
        },
      },
      async (request, reply) => {
        const { job, body } = await openExportDownload(deps, request.account.user_id, request.params.export_id)
        return reply.code(200).headers(exportDownloadHeaders(job)).send(body)
      },
    )
  }
}
