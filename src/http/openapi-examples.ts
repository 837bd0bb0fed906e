/**
 * Examples and response documentation of the served OpenAPI description of
 * /v1, kept apart from the schemas (src/http/schemas) and applied once, to
 * the finished document (openapi.ts, `transformObject`):
 *
 *  - a request example for every operation with a body, and a response
 *    example for every operation's success answer (OPERATION_EXAMPLES, keyed
 *    by method and path as the document names them);
 *  - every error answer: what the status means and an example body
 *    (ERROR_ANSWERS; an operation may give its own example);
 *  - the headers of the answers: `RateLimit-Policy` / `RateLimit` (sent once
 *    the caller is known), `Retry-After` on 429 (and 503 when a retry helps),
 *    `X-Request-Id` on all.
 *
 * test/public/docs.test.ts validates every example against its schema, so an
 * example that drifts from the schema fails the build.
 */

import { WEBHOOK_EXAMPLES } from './openapi-examples-webhooks.ts'
import { LEDGER_EXAMPLES } from './openapi-examples-ledger.ts'

type Json = unknown

export interface OperationExamples {
  /** The request body (operations that take one). */
  request?: Json
  /** The success answer: its status and body (for text/csv, the text). */
  status: number
  response: Json
  /** Examples of this operation's own error answers, where the shared one of ERROR_ANSWERS would say less. */
  errors?: Record<number, Json>
}

const USER_ID = 'usr_OCjLHU8gzkwzQ6YzJoISvT'
const CAMPAIGN_ID = 'cmp_S637yRNyIwg9KdPQskQgvB'
const CREATIVE_ID = 'crv_RkBZbrRJTStccYPLSrgXh9'
const EXPORT_ID = 'exp_mhsfns7KChBXPbTsmeSH7N'
const PREVIEW_TOKEN = 'pv_0bpMbAWCu6g2NOnwf4BFHvEtzFecMFSo'
const BASE = 'https://ads.example.com'
const CREATED = '2026-11-02T09:00:00.000Z'

const AD_LINE = 'Ship faster with Acme CI'
const DESTINATION = 'https://acme.dev/ci'

const blocks = (served: number[]) =>
  served.map((n, i) => ({
    block_index: i,
    status: n === 1000 ? 'exhausted' : i === served.findIndex((s) => s < 1000) ? 'serving' : 'queued',
    impressions_served: n,
    impressions_target: 1000,
    started_at: n > 0 || i === served.findIndex((s) => s < 1000) ? `2026-11-0${2 + i}T09:00:00.000Z` : null,
    exhausted_at: n === 1000 ? `2026-11-0${3 + i}T08:12:40.000Z` : null,
  }))

const BLOCKS = blocks([1000, 412, 0])
const SERVED = 1412
const SPENT_MICROS = 3_530_000

/** Recorded views that were not billable, by reason (every key always present). */
const NON_BILLABLE_EXAMPLE = { short_dwell: 1_402, repeat: 37, too_fast: 4, viewer_frequency: 118, expired: 9, block_full: 0, invalid_traffic: 12, unattested: 0, invalid_token: 3 }

const CAMPAIGN = {
  campaign_id: CAMPAIGN_ID,
  creation_channel: 'advertiser_api',
  name: 'November launch',
  status: 'active',
  created_at: CREATED,
  ad_line: AD_LINE,
  destination_url: DESTINATION,
  brand: 'Acme',
  moderation_status: 'approved',
  lifetime_spent_micros: SPENT_MICROS,
  report_uuid: null,
  kind: 'impression',
  cpm_usd: 2.5,
  impressions: 3000,
  impressions_served: SERVED,
  amount_cents: 750,
  target_surface: 'extension',
  target_countries: null,
  target_topics: null,
  pace_minutes: null,
  blocks: BLOCKS,
}

const CREATIVE = {
  creative_id: CREATIVE_ID,
  campaign_id: CAMPAIGN_ID,
  campaign_status: 'active',
  ad_line: AD_LINE,
  destination_url: DESTINATION,
  brand: 'Acme',
  icon_url: null,
  moderation_status: 'approved',
  moderation_reason: null,
  kind: 'impression',
  cpm_usd: 2.5,
  target_surface: 'extension',
  target_countries: null,
  pace_minutes: null,
  allocation_status: 'creative',
  inventory: { purchased_impressions: 3000, served_impressions: SERVED, remaining_impressions: 3000 - SERVED },
  blocks: BLOCKS,
  delivery: {
    metrics_availability: 'complete',
    billable_impressions: SERVED,
    clicks: 31,
    ctr: 31 / SERVED,
    viewable_ticks: 14_120,
    unique_viewers: 1_203,
    spend_micros: SPENT_MICROS,
    first_served_at: '2026-11-02T09:00:12.000Z',
    last_served_at: '2026-11-04T17:41:09.000Z',
    non_billable: NON_BILLABLE_EXAMPLE,
  },
  created_at: CREATED,
  updated_at: CREATED,
}

const CAMPAIGN_WITH_CREATIVES = { ...CAMPAIGN, creatives: [CREATIVE] }

const EXPORT_FILTERS = { start: '2026-11-01T00:00:00.000Z', end: '2026-11-02T00:00:00.000Z' }
const EXPORT_READY = {
  id: EXPORT_ID,
  status: 'ready',
  status_url: `/v1/exports/${EXPORT_ID}`,
  schema_version: 'ledger-export-v2',
  filters: EXPORT_FILTERS,
  row_count: 2,
  size_bytes: 332,
  sha256: '5d1c2a0f8e3b4c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f',
  error_code: null,
  created_at: CREATED,
  finished_at: '2026-11-02T09:00:01.000Z',
  expires_at: '2026-11-03T09:00:01.000Z',
  download_url: `${BASE}/v1/exports/${EXPORT_ID}/download`,
}

const CSV =
  'timestamp,event_type,campaign_id,creative_id,surface,country,billable,debit_micros,processor_billing_country\r\n' +
  `2026-11-01T10:15:08.120Z,view,${CAMPAIGN_ID},${CREATIVE_ID},extension,DE,false,0,US\r\n` +
  `2026-11-01T10:15:12.480Z,impression,${CAMPAIGN_ID},${CREATIVE_ID},extension,DE,true,2500,US\r\n`

const PREVIEW = {
  preview_token: PREVIEW_TOKEN,
  preview_url: `${BASE}/preview/${PREVIEW_TOKEN}`,
  expires_at: '2026-11-03T09:00:00.000Z',
}

/** Every operation of /v1, by `METHOD path` as the document's paths name them (relative to the server URL). */
export const OPERATION_EXAMPLES: Record<string, OperationExamples> = {
  'GET /status': {
    status: 200,
    response: {
      components: {
        api: 'operational',
        site_proxy: 'operational',
        authentication: 'operational',
        campaign_creation: 'operational',
        reporting: 'degraded',
        exports: 'operational',
        invoicing: 'operational',
      },
      write_requirements: ['write_approval', 'api_terms', 'billing_enrollment'],
    },
  },
  'GET /account': {
    status: 200,
    response: {
      user_id: USER_ID,
      key_prefix: 'sk_live_hh7ubh',
      key_last_used_at: '2026-11-04T17:40:00.000Z',
      outstanding_cents: 353,
      currency: 'usd',
      billing: 'weekly_autopay',
      billing_email: 'billing@acme.dev',
      balance: {
        owed_cents: 353,
        pending_cents: 353,
        invoiced_cents: 0,
        unpaid_cents: 0,
        paid_cents: 0,
        voided_cents: 0,
        credits_cents: 0,
        pending_charge_count: 0,
        invoiced_charge_count: 0,
        last_invoiced_at: null,
        next_invoice_at: '2026-11-09T06:00:00.000Z',
        unbilled_delivered_micros: SPENT_MICROS,
        overdue_invoices: [],
        collection_status: 'ready',
        amount_basis: 'delivered_value',
        cadence: 'weekly_monday_0600_utc',
        billing_mode: 'weekly_autopay',
      },
      billing_profile: {
        collection_status: 'ready',
        requested_billing_mode: 'weekly_autopay',
        effective_billing_mode: 'weekly_autopay',
        credit_limit_cents: 0,
        tax_ready: false,
        next_bill_at: '2026-11-09T06:00:00.000Z',
        payment_method: { brand: 'visa', last4: '4242' },
      },
      access: { reporting: 'operational', campaign_writes: 'operational', billing_reason: null, write_approved: true, terms_accepted: true, terms_version: '2026-11-01' },
      config: {
        block_impressions: 1000,
        min_cpm_usd: 0.5,
        max_total_usd: 5000,
        max_blocks: 100,
        surface_split_enabled: true,
        country_targeting_enabled: true,
        outstanding_balance_cap_usd: 10000,
        create_rate_limit_per_min: 5,
        read_rate_limit_per_min: 60,
      },
    },
  },
  'POST /campaigns': {
    request: {
      ad_line: AD_LINE,
      destination_url: DESTINATION,
      cpm_usd: 2.5,
      impressions: 3000,
      idempotency_key: 'order-2026-11-02-001',
      brand: 'Acme',
      name: 'November launch',
      optin_leaderboard: true,
    },
    status: 201,
    response: {
      campaign_id: CAMPAIGN_ID,
      creation_channel: 'advertiser_api',
      status: 'active',
      moderation_status: 'approved',
      impressions: 3000,
      blocks: 3,
      cpm_usd: 2.5,
      amount_cents: 750,
      currency: 'usd',
      billing: 'delivered_value_postpay',
      replayed: false,
    },
    errors: {
      400: { detail: { field: 'cpm_usd', reason: 'below_minimum', minimum: 0.5 } },
      409: { detail: { field: 'idempotency_key', reason: 'idempotency_key_reused', campaign_id: CAMPAIGN_ID } },
      429: { detail: 'rate limit exceeded: 5 campaign creations per minute' },
      503: { detail: 'campaign submission is not accepting orders; do not retry in a loop' },
    },
  },
  'GET /campaigns': { status: 200, response: { campaigns: [CAMPAIGN], next_cursor: null } },
  'GET /campaigns/{campaign_id}': { status: 200, response: CAMPAIGN_WITH_CREATIVES },
  'PATCH /campaigns/{campaign_id}': {
    request: { name: 'November launch (EU)' },
    status: 200,
    response: { ...CAMPAIGN_WITH_CREATIVES, name: 'November launch (EU)' },
    errors: { 400: { detail: { field: 'cpm_usd', reason: 'not_editable' } } },
  },
  'DELETE /campaigns/{campaign_id}': {
    status: 200,
    response: {
      ...CAMPAIGN,
      status: 'cancelled_user',
      blocks: blocks([1000, 412, 0]),
      creatives: [{ ...CREATIVE, campaign_status: 'cancelled_user' }],
    },
    errors: { 409: { detail: 'the campaign is already cancelled' } },
  },
  'POST /campaigns/{campaign_id}/pause': {
    status: 200,
    response: { ...CAMPAIGN, status: 'paused', creatives: [{ ...CREATIVE, campaign_status: 'paused' }] },
    errors: { 409: { detail: 'a cancelled_user campaign cannot be paused' } },
  },
  'POST /campaigns/{campaign_id}/resume': {
    status: 200,
    response: CAMPAIGN_WITH_CREATIVES,
    errors: { 409: { detail: 'a cancelled_user campaign cannot be resumed' } },
  },
  'GET /creatives': { status: 200, response: { creatives: [CREATIVE] } },
  'GET /creatives/{creative_id}': { status: 200, response: CREATIVE, errors: { 404: { detail: 'creative not found' } } },
  'POST /preview': {
    request: { ad_line: AD_LINE, destination_url: DESTINATION, brand: 'Acme' },
    status: 201,
    response: {
      ...PREVIEW,
      render: {
        ad_line: AD_LINE,
        brand: 'Acme',
        icon_url: null,
        destination_url: DESTINATION,
        surfaces: ['terminal', 'extension'],
        terminal_line: `Ad · Acme · ${AD_LINE}`,
        extension_line: `Ad · Acme · ${AD_LINE}`,
      },
    },
  },
  'POST /campaigns/{campaign_id}/preview': { status: 201, response: PREVIEW },
  'DELETE /previews/{preview_token}': {
    status: 200,
    response: { preview_token: PREVIEW_TOKEN, revoked: true },
    errors: { 404: { detail: 'preview not found' } },
  },
  'POST /exports': {
    request: { start: EXPORT_FILTERS.start, end: EXPORT_FILTERS.end },
    status: 202,
    response: {
      id: EXPORT_ID,
      status: 'queued',
      status_url: `/v1/exports/${EXPORT_ID}`,
      schema_version: 'ledger-export-v2',
      filters: EXPORT_FILTERS,
      row_count: null,
      size_bytes: null,
      sha256: null,
      error_code: null,
      created_at: CREATED,
      finished_at: null,
      expires_at: '2026-11-03T09:00:00.000Z',
    },
    errors: { 400: { detail: { field: 'end', reason: 'interval_too_long', max_days: 31 } } },
  },
  'GET /exports': { status: 200, response: { exports: [EXPORT_READY], next_cursor: null } },
  'GET /exports/{export_id}': { status: 200, response: EXPORT_READY, errors: { 404: { detail: 'export not found' } } },
  'GET /exports/{export_id}/download': {
    status: 200,
    response: CSV,
    errors: {
      409: { detail: { field: 'export_id', reason: 'not_ready', status: 'running' } },
      410: { detail: { field: 'export_id', reason: 'expired', expires_at: '2026-11-03T09:00:01.000Z' } },
    },
  },
  'GET /stats': {
    status: 200,
    response: {
      granularity: 'day',
      start: '2026-10-27T00:00:00.000Z',
      end: '2026-11-03T00:00:00.000Z',
      filters: {},
      served_from: 'daily_rollup',
      totals: {
        billable_impressions: 1000,
        attested_billable_impressions: 940,
        viewable_ticks: 10_000,
        clicks: 22,
        events: 2_960,
        unique_viewers: 871,
        spend_micros: 2_500_000,
        ctr: 0.022,
        non_billable: NON_BILLABLE_EXAMPLE,
      },
      points: [
        {
          bucket: '2026-11-02T00:00:00.000Z',
          billable_impressions: 1000,
          attested_billable_impressions: 940,
          viewable_ticks: 10_000,
          clicks: 22,
          events: 2_960,
          unique_viewers: 871,
          spend_micros: 2_500_000,
          ctr: 0.022,
          non_billable: NON_BILLABLE_EXAMPLE,
        },
      ],
    },
    errors: { 400: { detail: { field: 'start', reason: 'conflicting_window' } }, 404: { detail: 'campaign not found' } },
  },
  'GET /auction/quote': {
    status: 200,
    response: {
      rank: 3,
      impressions_ahead: 4_200,
      clearing_cpm_usd: 2.2,
      estimated_start_at: '2026-11-02T10:10:00.000Z',
      estimated_completion_at: '2026-11-02T10:26:40.000Z',
      based_on: {
        window_start: '2026-11-02T08:00:00.000Z',
        window_end: '2026-11-02T09:00:00.000Z',
        billable_impressions: 3_600,
        surfaces: ['extension'],
        countries: ['DE', 'US'],
        topics: null,
        topic_share: null,
        decisions_counted: null,
        impressions: 1000,
        kind: 'impression',
      },
    },
    errors: { 400: { detail: { field: 'cpm_usd', reason: 'below_minimum', minimum: 0.5 } } },
  },
  ...WEBHOOK_EXAMPLES,
  ...LEDGER_EXAMPLES,
}

export interface ErrorAnswer {
  /** What the status means for every operation that documents it. */
  description: string
  example: Json
  /** `Retry-After`: always (429) or when a retry helps (503). */
  retryAfter?: 'always' | 'sometimes'
}

/** The meaning and a typical body of each error status (reasons: the description's lists and each operation's text). */
export const ERROR_ANSWERS: Record<number, ErrorAnswer> = {
  400: {
    description:
      'The request is invalid. `detail` is `{field, reason, ...facts}`: a validation reason (`required`, `invalid_type`, `invalid_format`, ' +
      '`invalid_value`, `too_short`, `too_long`, `below_minimum`, `above_maximum`, `not_a_multiple`, `too_many_items`, `unknown_field`, ' +
      '`empty_body`), an edge reason (`unknown_parameter`, `invalid_json`, `control_characters`, … in the table of the description) or ' +
      "one of the operation's own (its description lists them).",
    example: { detail: { field: 'sort', reason: 'unknown_parameter' } },
  },
  401: {
    description: 'Missing, wrong, revoked or unknown-user credentials: always this same body; the cause is never told.',
    example: { detail: 'invalid credentials' },
  },
  402: {
    description:
      'Billing blocks writes: `{field: "billing", reason, collection_status}` with reason `billing_not_enrolled`, `billing_setup_pending`, ' +
      '`payment_failed`, `payment_action_required`, `billing_paused`, `billing_disabled` or `invoice_overdue` (with `invoice_ids`); or, ' +
      'on create, `outstanding_balance_cap` and `credit_limit`.',
    example: { detail: { field: 'billing', reason: 'billing_not_enrolled', collection_status: 'not_enrolled' } },
  },
  403: {
    description: 'Campaign writes are not open for this account: write approval pending, API terms not accepted, or writes switched off. Reads still work.',
    example: { detail: 'campaign write approval is pending; reads remain available' },
  },
  404: {
    description: "Unknown id, or another account's (the two are indistinguishable).",
    example: { detail: 'campaign not found' },
  },
  409: { description: 'The state does not allow this now (see the operation).', example: { detail: 'the campaign is already cancelled' } },
  410: { description: 'Gone: the export expired.', example: { detail: { field: 'export_id', reason: 'expired', expires_at: '2026-11-03T09:00:01.000Z' } } },
  413: { description: 'The body is over 64 KiB.', example: { detail: { field: 'body', reason: 'payload_too_large', limit_bytes: 65536 } } },
  414: { description: 'A path segment is longer than 1,024 characters.', example: { detail: { field: 'path', reason: 'uri_too_long', max_length: 1024 } } },
  415: {
    description: 'A body that is not `application/json`.',
    example: { detail: { field: 'content-type', reason: 'unsupported_media_type', allowed: ['application/json'] } },
  },
  429: {
    description:
      'Rate limited (per account: `config.read_rate_limit_per_min`, or `config.create_rate_limit_per_min` for creates; per address for ' +
      'GET /status), or this address is locked out after failed authentication. Wait `Retry-After` seconds; never busy-loop.',
    example: { detail: 'rate limit exceeded: 60 requests per minute' },
    retryAfter: 'always',
  },
  500: { description: 'An error on our side; nothing internal is told.', example: { detail: 'internal error' } },
  503: {
    description:
      'Temporarily unavailable: the store is unreachable (retry after `Retry-After`), a component is switched off by an operator, or ' +
      'the service is shutting down.',
    example: { detail: 'store temporarily unavailable; retry after a pause' },
    retryAfter: 'sometimes',
  },
}

const header = (description: string, required = false) => ({ description, required, schema: { type: 'string' } })

const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': header(
    'The budget this call counts against (IETF draft RateLimit headers): `"requests";q=60;w=60` (reads, per account; per address for ' +
      'GET /status) or `"creates";q=5;w=60` (POST /campaigns). Sent once the caller is known (not on 401).',
  ),
  RateLimit: header('What is left of it: `"requests";r=57;t=42` (r calls remaining, t seconds until the window resets).'),
}
const REQUEST_ID = { 'X-Request-Id': header('The id of this request in the service logs; quote it when reporting a problem.', true) }
const RETRY_AFTER = {
  always: { 'Retry-After': header('Seconds to wait before trying again.', true) },
  sometimes: { 'Retry-After': header('Seconds to wait before trying again, when a retry can help (store unavailable, shutting down).') },
}

interface MediaType {
  schema?: unknown
  example?: Json
}
interface Response {
  description?: string
  headers?: Record<string, unknown>
  content?: Record<string, MediaType>
}
interface Operation {
  requestBody?: { content?: Record<string, MediaType> }
  responses?: Record<string, Response>
}
interface Document {
  paths?: Record<string, Record<string, Operation>>
}

/** Puts the examples, the error answers and the response headers into the built document (new objects: nothing shared is changed). */
export function withExamples<D extends object>(doc: D): D {
  for (const [path, methods] of Object.entries((doc as Document).paths ?? {})) {
    for (const [method, op] of Object.entries(methods)) {
      const ex = OPERATION_EXAMPLES[`${method.toUpperCase()} ${path}`]
      const body = op.requestBody
      if (ex?.request !== undefined && body?.content?.['application/json']) {
        op.requestBody = { ...body, content: { ...body.content, 'application/json': { ...body.content['application/json'], example: ex.request } } }
      }
      const responses: Record<string, Response> = {}
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const code = Number(status)
        const error = ERROR_ANSWERS[code]
        const example = code === ex?.status ? ex.response : error ? (ex?.errors?.[code] ?? error.example) : undefined
        const content = response.content
          ? Object.fromEntries(Object.entries(response.content).map(([type, media]) => [type, example === undefined ? media : { ...media, example }]))
          : undefined
        responses[status] = {
          ...response,
          ...(error ? { description: error.description } : {}),
          headers: {
            ...response.headers,
            ...(code === 401 || code === 414 ? {} : RATE_LIMIT_HEADERS),
            ...(error?.retryAfter ? RETRY_AFTER[error.retryAfter] : {}),
            ...REQUEST_ID,
          },
          ...(content ? { content } : {}),
        }
      }
      op.responses = responses
    }
  }
  return doc
}
