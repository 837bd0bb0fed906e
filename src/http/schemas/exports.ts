import { Type } from 'typebox'
import { DateTime, NextCursor, Nullable, StringEnum } from './common.ts'
import { SURFACES } from '../../domain/auction.ts'
import { EXPORT_SCHEMA_VERSIONS, V2_COLUMNS, V3_COLUMNS, V4_COLUMNS } from '../../domain/export-csv.ts'

const Surface = StringEnum(SURFACES)
const Country = Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2, upper case.' })
const Id = Type.String({ minLength: 1 })

export const ExportCreateSchema = Type.Object(
  {
    start: Type.String({ format: 'date-time', description: 'Inclusive start of the window (RFC 3339).' }),
    end: Type.String({
      format: 'date-time',
      description: 'Exclusive end of the window; after `start`, at most config `export_max_days` (default 31) days later.',
    }),
    campaign_ids: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 100, description: 'Own campaigns only; another account\'s id is 404.' })),
    creative_ids: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 100, description: 'Own creatives only; another account\'s id is 404.' })),
    surfaces: Type.Optional(Type.Array(Surface, { minItems: 1, maxItems: 20 })),
    countries: Type.Optional(Type.Array(Country, { minItems: 1, maxItems: 50, description: 'Where the ad was shown (the `country` column).' })),
    schema_version: Type.Optional(
      StringEnum(EXPORT_SCHEMA_VERSIONS, {
        description:
          'The CSV schema of this export; absent: config `export_schema_version` (default `ledger-export-v2`). ' +
          '`ledger-export-v3` appends `non_billable_reason`; `ledger-export-v4` appends `attestation_token`. Echoed on the job.',
      }),
    ),
  },
  { additionalProperties: false },
)

export const ExportFiltersSchema = Type.Object(
  {
    start: DateTime,
    end: DateTime,
    campaign_ids: Type.Optional(Type.Array(Type.String())),
    creative_ids: Type.Optional(Type.Array(Type.String())),
    surfaces: Type.Optional(Type.Array(Type.String())),
    countries: Type.Optional(Type.Array(Type.String())),
  },
  { description: 'Echo of the window and the filters that were set (lists de-duplicated and sorted); unset dimensions are absent.' },
)

export const ExportJobSchema = Type.Object(
  {
    id: Type.String({ description: 'Export id (`exp_…`).' }),
    status: StringEnum(['queued', 'running', 'ready', 'failed'], {
      description: 'queued → running → ready | failed. A job keeps its status after it expires (see `expires_at`).',
    }),
    status_url: Type.String({ description: 'Relative path of this status resource: `/v1/exports/{id}`.' }),
    schema_version: StringEnum(EXPORT_SCHEMA_VERSIONS, {
      description: 'CSV contract version, fixed when the job was queued: the request\'s `schema_version`, else config `export_schema_version`.',
    }),
    filters: ExportFiltersSchema,
    row_count: Nullable(Type.Integer({ minimum: 0, description: 'Data rows in the CSV (header excluded); set when ready.' })),
    size_bytes: Nullable(Type.Integer({ minimum: 0, description: 'Exact size of the CSV in bytes; set when ready.' })),
    sha256: Nullable(Type.String({ pattern: '^[0-9a-f]{64}$', description: 'Lowercase hex SHA-256 of the CSV; set when ready.' })),
    error_code: Nullable(
      Type.String({
        description:
          'Set when failed: `row_limit_exceeded` (more rows than config `export_max_rows`: narrow the window or filters), ' +
          '`expired` (not run before `expires_at`), `internal_error` (queue it again).',
      }),
    ),
    created_at: DateTime,
    finished_at: Nullable(DateTime),
    expires_at: Type.String({
      format: 'date-time',
      description: '24 hours after creation. From then on the download answers 410 (the artifact is deleted by the next daily expiry run); the job keeps its last status and stays readable for 7 more days, then 404.',
    }),
    download_url: Type.Optional(
      Type.String({ format: 'uri', description: 'Absolute URL of the CSV; present only when status is `ready` (it answers 410 once expired).' }),
    ),
  },
  { description: 'ExportJob: a CSV export of the raw ledger and its state.' },
)

export const CSV_DESCRIPTION =
  `The CSV (RFC 4180, UTF-8 without BOM, CRLF line ends on every line including the last). ` +
  `A header row, then one row per ledger event in [start, end) matching the filters, ordered by timestamp then ledger order. ` +
  'Ledger events are recorded views (billable or not) and clicks: a decision (an offer) is counted, not stored, and is never a row in any schema version ' +
  '(offers count in the /stats `events` metric). ' +
  `Columns (schema \`ledger-export-v1\`): \`timestamp,event_type,campaign_id,creative_id,surface,country,billable,debit_micros\`; ` +
  `\`ledger-export-v2\` appends \`processor_billing_country\` (\`${V2_COLUMNS.join(',')}\`); ` +
  `\`ledger-export-v3\` appends \`non_billable_reason\` to those (\`${V3_COLUMNS.join(',')}\`); ` +
  `\`ledger-export-v4\` appends \`attestation_token\` (\`${V4_COLUMNS.join(',')}\`): on an \`impression\` row whose view carried a valid Privacy Pass token, ` +
  'the token (RFC 9578 type 0x0002, base64url without padding), blank otherwise; check them with `adctl ledger verify --tokens` against the issuer keys of `/transparency.json`. ' +
  '`timestamp`: ISO-8601 UTC with milliseconds and `Z`. `event_type`: `impression` (billable), `view` (measured, not billable), `click` (billable only on a `click` campaign); ' +
  'v3 also lists `repeat_view` (the view of a measured impression reported again, once per impression) and `expired_view` (a view reported ' +
  'after the offer\'s hour, once per impression), both never billable, and `voided_impression` / `voided_click` (a billable impression or ' +
  'click the daily traffic review judged invalid traffic afterwards: dated like the row it voids, `billable` false, `debit_micros` 0, ' +
  '`non_billable_reason` `invalid_traffic`; its debit comes back as an account credit), which v1 and v2 leave out. ' +
  '`country`: where the ad was shown (blank when unknown). `billable`: `true`/`false`. `debit_micros`: integer micro-USD ' +
  '(the unit\'s share of its campaign\'s CPM: floor(n·cpm/1000) − floor((n−1)·cpm/1000) micros for the campaign\'s n-th billable impression, or n-th billable click on a `click` campaign, whose impressions debit 0; else 0). `processor_billing_country`: the account\'s billing-address country at the payment ' +
  'processor, the same on every row, blank when none is on file. `non_billable_reason` (v3): on a recorded view that was not billable, ' +
  'one of `short_dwell`, `repeat`, `too_fast`, `viewer_frequency`, `expired`, `block_full`, `invalid_traffic` (the /stats `non_billable` keys); blank on ' +
  'billable impressions and on clicks. No viewer, client, IP or network identifiers.'

/** The 200 of the download: text/csv, documented per content type (@fastify/swagger copies `content` as is). */
export const CsvResponseSchema = {
  description: CSV_DESCRIPTION,
  headers: {
    'X-Service-Export-Schema': { type: 'string', enum: [...EXPORT_SCHEMA_VERSIONS], description: 'The CSV schema version of this job.' },
    'X-Service-Content-SHA256': { type: 'string', description: 'Lowercase hex SHA-256 of exactly the bytes of this body.' },
    'Content-Length': { type: 'integer', description: 'Equals the job\'s `size_bytes`.' },
    'Content-Disposition': { type: 'string', description: '`attachment; filename="ledger-export-{id}.csv"`' },
    'Cache-Control': { type: 'string', description: '`private, no-store`' },
  },
  content: { 'text/csv': { schema: { type: 'string', description: 'CSV text; see the response description for the columns.' } } },
}

export const ExportListSchema = Type.Object({
  exports: Type.Array(ExportJobSchema, { description: 'One page of the account\'s export jobs, newest first (`created_at`, then `id`).' }),
  next_cursor: NextCursor,
})
