import { Type } from 'typebox'
import { DateTime, Nullable, StringEnum } from '../common.ts'
import {
  DWELL_MIN_IMPRESSIONS,
  DWELL_SHARE_PERCENT,
  DWELL_WINDOW_FROM_MS,
  DWELL_WINDOW_TO_MS,
  HEAVY_VIEWER_ABOVE,
  INVALID_SCORE,
  LISTED_PER_KIND,
  MANY_VIEWERS_MIN,
  NO_CLICKS_MIN_IMPRESSIONS,
  REGULAR_MAX_STDDEV_MS,
  REGULAR_MIN_VIEWS,
  SIGNAL_POINTS,
  SIGNALS,
} from '../../../domain/traffic-quality.ts'
import { TRAFFIC_BLOCK_KINDS, TRAFFIC_BLOCK_NOTE_MAX } from '../../../services/traffic-blocks.ts'

export const TrafficQuery = Type.Object(
  {
    day: Type.Optional(
      Type.String({ format: 'date', description: 'The UTC day (`YYYY-MM-DD`, years 0001-9999) to judge; yesterday (UTC, service clock) when absent.' }),
    ),
  },
  { additionalProperties: false },
)

const Count = Type.Integer({ minimum: 0 })

const SIGNALS_DOC =
  `\`blocked\` (on the block list now: score ${SIGNAL_POINTS.blocked}); ` +
  `\`many_viewers\` (sources: ${MANY_VIEWERS_MIN} or more distinct viewers, +${SIGNAL_POINTS.many_viewers}); ` +
  `\`heavy_viewer\` (a viewer with more than ${HEAVY_VIEWER_ABOVE} impressions in the day; a source: any of its viewers, +${SIGNAL_POINTS.heavy_viewer}); ` +
  `\`dwell_at_threshold\` (at least ${DWELL_MIN_IMPRESSIONS} impressions, ${DWELL_SHARE_PERCENT} % or more with dwell in [${DWELL_WINDOW_FROM_MS}, ${DWELL_WINDOW_TO_MS}) ms, +${SIGNAL_POINTS.dwell_at_threshold}); ` +
  `\`regular_intervals\` (at least ${REGULAR_MIN_VIEWS} views whose offer ages deviate by under ${REGULAR_MAX_STDDEV_MS} ms, +${SIGNAL_POINTS.regular_intervals}); ` +
  `\`no_clicks\` (${NO_CLICKS_MIN_IMPRESSIONS} or more impressions and no click, +${SIGNAL_POINTS.no_clicks}); ` +
  '`few_topics`, `no_pauses`, `no_short_views`, `click_rate` (compared with the day\'s population; docs/invalid-traffic.md has the thresholds).'

/** The figures and verdict every scored source and viewer carries. */
const Judged = {
  views: { ...Count, description: 'Measured views: billable impressions and non-billable views.' },
  impressions: { ...Count, description: 'Billable impressions as served, voided ones included (what the signals read).' },
  billable: { ...Count, description: 'Billable impressions that stand: `impressions` minus those the daily review voided.' },
  voided: { ...Count, description: 'Impressions the daily review voided.' },
  invalid_views: { ...Count, description: 'Views not billable for `invalid_traffic` when served, plus the voided impressions.' },
  clicks: Count,
  debit_micros: Type.Integer({ description: 'What its impressions and clicks debited when served (USD micros).' }),
  dwell_at_threshold: { ...Count, description: `Impressions with dwell_ms in [${DWELL_WINDOW_FROM_MS}, ${DWELL_WINDOW_TO_MS}).` },
  offer_age: Type.Object(
    {
      count: { ...Count, description: 'Measured views that carry an offer age.' },
      mean_ms: Nullable(Type.Number()),
      stddev_ms: Nullable(Type.Number({ description: 'Population standard deviation.' })),
    },
    { description: 'Milliseconds from the decision to the view report, over the measured views.' },
  ),
  score: Type.Integer({ minimum: 0, maximum: 100, description: 'The points of the signals that fired, capped at 100.' }),
  signals: Type.Array(StringEnum(SIGNALS), { description: `The signals that fired: ${SIGNALS_DOC}` }),
  invalid: Type.Boolean({ description: `Score ${INVALID_SCORE} or more: the daily review voids its billable units of the day.` }),
}

export const ScoredSourceSchema = Type.Object({
  source: Type.String({ description: 'An IPv4 address, or an IPv6 /64 (`2001:db8:1:2::/64`).' }),
  viewers: { ...Count, description: 'Distinct viewer keys with measured views from this source.' },
  top_viewer_impressions: { ...Count, description: 'The day\'s impressions (every source) of its busiest viewer.' },
  ...Judged,
})

export const ScoredViewerSchema = Type.Object({
  viewer_key: Type.String({ description: 'The keyed hash of the viewer id the ledger stores (never the id itself); block it as kind `viewer`.' }),
  sources: { ...Count, description: 'Distinct sources its measured views came from.' },
  ...Judged,
})

export const TrafficDaySchema = Type.Object({
  day: Type.String({ description: 'The UTC day judged, `YYYY-MM-DD`.' }),
  sources: Type.Array(ScoredSourceSchema, {
    description: `Highest score first, then most views: every invalid source, then the highest-scoring others up to ${LISTED_PER_KIND} in all.`,
  }),
  viewers: Type.Array(ScoredViewerSchema, { description: 'Ranked like `sources`.' }),
  totals: Type.Object(
    { sources: Count, viewers: Count },
    { description: 'How many sources and viewers had views or clicks that day (the lists may show fewer).' },
  ),
  review: Nullable(
    Type.Object(
      {
        reviewed_at: DateTime,
        sources_flagged: Count,
        viewers_flagged: Count,
        units_voided: Count,
        credited_micros: Type.Integer({ minimum: 0 }),
      },
      { description: "The daily review's record of the day; null until it has run." },
    ),
  ),
  credits: Type.Array(
    Type.Object({
      user_id: Type.String(),
      email: Type.String(),
      campaign_id: Type.String(),
      campaign_name: Nullable(Type.String()),
      units: Type.Integer({ minimum: 1, description: 'Billable units voided.' }),
      micros: Type.Integer({ minimum: 0, description: 'Credited back (USD micros).' }),
    }),
    { description: 'What the review credited back per campaign for the day, largest first.' },
  ),
})

export const TrafficBlockSchema = Type.Object({
  block_id: Type.String(),
  kind: StringEnum(TRAFFIC_BLOCK_KINDS),
  value: Type.String({ description: 'A CIDR range in canonical text (`203.0.113.0/24`, `2001:db8::/48`), or a viewer key.' }),
  note: Type.String(),
  created_at: DateTime,
  created_by: Type.String({ description: 'The console operator\'s id (`opr_…`), or `token` for this API.' }),
})

export const TrafficBlockListSchema = Type.Object({ blocks: Type.Array(TrafficBlockSchema, { description: 'Newest first.' }) })

export const TrafficBlockCreateSchema = Type.Object(
  {
    kind: StringEnum(TRAFFIC_BLOCK_KINDS, { description: '`cidr`: an address range; `viewer`: one viewer key.' }),
    value: Type.String({
      minLength: 1,
      maxLength: 128,
      description:
        'For `cidr`: an IPv4 or IPv6 range (`203.0.113.0/24`) or a bare address (its /32, or its /64 in IPv6); host bits must be clear ' +
        '(400 `host_bits_set`) and IPv6 ranges are at most /64 long (400 `prefix_too_long`: a source is a /64); ranges wider than an IPv4 /8 or an IPv6 /16 are 400 `prefix_too_short`. For `viewer`: a viewer ' +
        'key as GET /traffic lists it, 1-128 characters of `A-Z a-z 0-9 _ -`. Anything else is 400 `invalid_format`.',
    }),
    note: Type.Optional(Type.String({ maxLength: TRAFFIC_BLOCK_NOTE_MAX, description: 'Why it is blocked (shown with the entry).' })),
  },
  { additionalProperties: false },
)

export const TrafficBlockParams = Type.Object({ block_id: Type.String({ minLength: 1, maxLength: 64 }) })
