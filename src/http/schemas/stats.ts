import { Type } from 'typebox'
import { DateTime, StringEnum } from './common.ts'
import { GRANULARITIES } from '../../domain/stats.ts'

export const StatsQuerySchema = Type.Object(
  {
    start: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive start (UTC), honoured verbatim.' })),
    end: Type.Optional(Type.String({ format: 'date-time', description: 'Exclusive end (UTC), honoured verbatim. With only `start`, the window ends now.' })),
    last_days: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3653, description: 'Last N complete UTC days. With start or end: 400 `conflicting_window`.' }),
    ),
    granularity: Type.Optional(StringEnum(GRANULARITIES, { default: 'day' })),
    campaign_id: Type.Optional(Type.String({ description: 'Comma-separated campaign ids (at most 100); foreign or unknown ids are 404.' })),
    creative_id: Type.Optional(Type.String({ description: 'Comma-separated creative ids (at most 100); foreign or unknown ids are 404.' })),
    group_by: Type.Optional(
      StringEnum(['account', 'creative', 'topic'], {
        default: 'account',
        description:
          '`creative` requires creative_id. `topic` (added in issue 40) requires campaign_id naming exactly one campaign (else 400 ' +
          '`required_with_group_by_topic` on campaign_id) and adds `topics`; it is read from the ledger (the window must be within its retention).',
      }),
    ),
    surface: Type.Optional(Type.String({ description: 'Comma-separated: extension, terminal.' })),
    country: Type.Optional(Type.String({ description: 'Comma-separated ISO 3166-1 alpha-2 codes (at most 50).' })),
  },
  { additionalProperties: false },
)

/** One integer per reason, always all of them (src/domain/delivery.ts, NON_BILLABLE_REASONS). */
export const NonBillableSchema = Type.Object(
  {
    short_dwell: Type.Integer({ minimum: 0, description: 'Dwell under 9.5 s.' }),
    repeat: Type.Integer({
      minimum: 0,
      description: 'Impressions whose view was reported again after it was measured (each such impression counts once, however often it is replayed).',
    }),
    too_fast: Type.Integer({ minimum: 0, description: 'Claimed dwell longer than the service-clock time since the offer plus one second.' }),
    viewer_frequency: Type.Integer({ minimum: 0, description: 'The viewer already had a billable impression on this surface in the last ten seconds.' }),
    expired: Type.Integer({
      minimum: 0,
      description: 'Impressions whose view was reported after the offer\'s hour (the view request answered 410; each impression counts once).',
    }),
    block_full: Type.Integer({ minimum: 0, description: 'The campaign had no inventory left to bill: every bought impression billed, or cancelled before the offer.' }),
    unattested: Type.Integer({
      minimum: 0,
      description: 'The service bills attested views only (attestation `required`) and the view carried no Privacy Pass token.',
    }),
    invalid_token: Type.Integer({
      minimum: 0,
      description: 'The view carried a Privacy Pass token that was spent already, malformed, or of an issuer key unknown or past its redemption window.',
    }),
    invalid_traffic: Type.Integer({
      minimum: 0,
      description:
        'Invalid traffic: the view\'s network (an IPv4 address or IPv6 /64) was past its daily viewer or hourly billable bound, or the network or ' +
        'viewer is blocked by operators (at the time of the view).',
    }),
  },
  {
    description:
      'Recorded views that were not billable, by reason; each recorded view has exactly one reason or is billable, so ' +
      'billable_impressions + the sum of these = recorded views (measured views, plus one repeat and one late report at most per impression).',
  },
)

const metricFields = {
  billable_impressions: Type.Integer({
    description: 'Qualified views (dwell of at least 9.5 s within the frequency rules), for both kinds; those of a `click` campaign debit nothing.',
  }),
  attested_billable_impressions: Type.Integer({
    minimum: 0,
    description:
      'Of billable_impressions, those whose view carried a valid, unspent Privacy Pass token from a signed-in account (attested views; ' +
      'ledger-export-v4 lists each one\'s token, verifiable with `adctl ledger verify --tokens`).',
  }),
  viewable_ticks: Type.Integer({ description: 'Whole seconds of measured dwell, at most ten per measured view.' }),
  clicks: Type.Integer({
    description: 'Recorded clicks: the first click of each impression (repeats count once), billable or not. A `click` campaign is billed for the billable ones only.',
  }),
  events: Type.Integer({
    description:
      'Offers (decisions this creative won, counted per minute: a bucket or window edge inside a minute counts that minute\'s offers when the minute starts within it; ' +
      'counts reach the store within a few seconds) plus ledger events of every type (measured views, billable impressions, clicks, repeat and late view reports).',
  }),
  unique_viewers: Type.Integer({ description: 'Distinct viewers with a recorded view or click (an offer alone names no viewer), within the bucket (or the whole interval for totals); never sum buckets.' }),
  spend_micros: Type.Integer({ minimum: 0, description: 'Σ debits: billable impressions of `impression` campaigns and billable clicks of `click` campaigns.' }),
  ctr: Type.Number({ description: 'clicks / billable_impressions; 0 when there were no billable impressions. The same for both kinds.' }),
  non_billable: NonBillableSchema,
}

export const MetricSetSchema = Type.Object(metricFields)
export const PointSchema = Type.Object({ bucket: DateTime, ...metricFields })

export const SeriesSchema = Type.Object({
  creative_id: Type.String(),
  campaign_id: Type.String(),
  points: Type.Array(PointSchema, { description: 'One point per UTC bucket of [start, end), zero-filled; identical spine for every series.' }),
  totals: MetricSetSchema,
  sample_size: Type.Object(
    { events: Type.Integer(), billable_impressions: Type.Integer(), unique_viewers: Type.Integer() },
    { description: 'Raw counts behind the series.' },
  ),
  caveat: Type.String({ description: 'Observed-data caveat: these are not controlled comparisons.' }),
})

export const StatsSchema = Type.Object({
  granularity: StringEnum(GRANULARITIES),
  start: DateTime,
  end: DateTime,
  filters: Type.Object(
    {
      campaign_ids: Type.Optional(Type.Array(Type.String())),
      creative_ids: Type.Optional(Type.Array(Type.String())),
      surfaces: Type.Optional(Type.Array(Type.String())),
      countries: Type.Optional(Type.Array(Type.String())),
    },
    { description: 'Echo of the applied filters (only those sent).' },
  ),
  served_from: StringEnum(['daily_rollup', 'ledger']),
  totals: MetricSetSchema,
  points: Type.Array(PointSchema, { description: 'Zero-activity buckets omitted; the first and last buckets are clipped by [start, end).' }),
  series: Type.Optional(Type.Array(SeriesSchema, { description: 'Only with group_by=creative: one entry per requested creative.' })),
  topics: Type.Optional(
    Type.Array(
      Type.Object({
        topic: Type.String({ description: 'A topic name of the vocabulary (GET /serve/v1/topics), or `other` or `none`.' }),
        billable_impressions: Type.Integer({ minimum: 1 }),
      }),
      {
        description:
          'Added in issue 40; only with group_by=topic: the campaign\'s billable impressions in the window (voided ones deducted) by the topic ' +
          'each is attributed to: the first of its decision\'s topics that the campaign targets, or for a campaign without topics the ' +
          'decision\'s first topic. A topic is listed only with at least 10 billable impressions in the window, most first; the rest are ' +
          'summed as `other`, and impressions whose decision carried no topic are `none` (each only when non-zero). The rows sum to the ' +
          'campaign\'s billable impressions in the window.',
      },
    ),
  ),
})
