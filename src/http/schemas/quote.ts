import { Type } from 'typebox'
import { DateTime, Nullable, StringEnum } from './common.ts'
import { SURFACES } from '../../domain/auction.ts'
import { CAMPAIGN_KINDS } from '../../domain/campaign-order.ts'

export const QuoteQuerySchema = Type.Object(
  {
    cpm_usd: Type.Number({
      exclusiveMinimum: 0,
      description:
        'The bid to quote, USD per 1,000 impressions, judged as `POST /campaigns` judges it: at least config.min_cpm_usd ' +
        '(400 `below_minimum` with `minimum`), at most six decimals (400 `too_precise`), and bid × blocks at most ' +
        'config.max_total_usd (400 `order_total_exceeded`).',
    }),
    target_surface: Type.Optional(
      StringEnum(SURFACES, {
        description:
          'As in CampaignCreate: only when config.surface_split_enabled (else 400 `surface_split_not_enabled`). Omitted: ' +
          '`extension` while the split is on, both surfaces (blended) while it is off.',
      }),
    ),
    target_countries: Type.Optional(
      Type.String({
        description:
          'Comma-separated ISO 3166-1 alpha-2 codes (at most 20; 400 `invalid_format`, `empty`, `too_many_items`). Only when ' +
          'config.country_targeting_enabled (else 400 `country_targeting_not_enabled`). Omitted: worldwide.',
      }),
    ),
    target_topics: Type.Optional(
      Type.String({
        maxLength: 1_000,
        description:
          'Added in issue 40. Comma-separated topic names, as CampaignCreate `target_topics` (at most 10, each from GET /serve/v1/topics; ' +
          '400 `unknown_topic` naming it, `too_many_topics`). The rank then counts only campaigns that could meet the bid on a decision ' +
          '(no topics, or a topic in common), and based_on.topic_share estimates the share of recent decisions that carry at least one of them.',
      }),
    ),
    impressions: Type.Optional(
      Type.Integer({
        minimum: 1000,
        maximum: 100_000,
        multipleOf: 1000,
        description:
          'The volume to estimate delivery for, as CampaignCreate `impressions` (blocks of config.block_impressions, at most ' +
          'config.max_blocks; 400 `not_a_multiple_of_block`, `too_many_blocks`). Default: one block (1,000).',
      }),
    ),
    kind: Type.Optional(
      StringEnum(CAMPAIGN_KINDS, {
        default: 'impression',
        description:
          'As in CampaignCreate. Ranked as the auction ranks: by expected value per impression, `cpm_usd` for an ' +
          '`impression` bid, `cpm_usd × estimated CTR` on each surface for a `click` bid (a new click campaign is estimated at ' +
          'the surface\'s platform CTR, 1 % before any click campaign was observed there), then creation order.',
      }),
    ),
  },
  { additionalProperties: false },
)

export const QuoteSchema = Type.Object({
  rank: Type.Integer({
    minimum: 1,
    description:
      'The place the bid would take now among the live campaigns (active, approved, with impressions left, on an account ' +
      'whose billing lets it serve) that serve some of the same traffic (an overlapping surface, and an overlapping country ' +
      'list or no list), in the auction\'s order compared by price band (banded since issue 49): bids, and a click bid\'s CPM × ' +
      'estimated CTR, fall in bands that run from one E24 preferred number to the next (…, $1.50–1.60, $1.60–1.80, …, ' +
      '$9.10–10.00, $10–11, …; each 6.7–15 % wide), and the bid counts as created after every existing campaign, so a ' +
      'campaign in the bid\'s band is ahead of it even when its exact bid is lower. No sequence of quotes tells a competitor\'s ' +
      'bid closer than its band. 1 = next to serve. Paused, pending or rejected, exhausted and cancelled campaigns are not ' +
      'counted; paced campaigns are.',
  }),
  impressions_ahead: Type.Integer({
    minimum: 0,
    description:
      'Impressions still to deliver on the campaigns ranked ahead (the sum over them of impressions bought minus delivered; ' +
      'a `click` campaign\'s clicks left count as the impressions they take at its estimated CTR, rounded up), banded since ' +
      'issue 49: rounded to two significant figures (12,345 → 12,000; under 100 exact), so it never tells a competitor\'s ' +
      'exact inventory left.',
  }),
  clearing_cpm_usd: Nullable(
    Type.Number({
      description:
        'The lowest cpm_usd of a campaign that won a decision on the same traffic (the based_on surfaces and countries) within ' +
        'the based_on window, rounded down to the lower edge of its price band (see `rank`; $0.10 steps before issue 49) and ' +
        'never below config.min_cpm_usd: a price level, not anyone\'s exact bid. Null when nothing won a decision there in the window.',
    }),
  ),
  estimated_start_at: Nullable(
    Type.String({
      format: 'date-time',
      description:
        'When the bid would serve its first impression if the traffic kept filling at the window\'s rate (based_on.' +
        'billable_impressions over the window) and served the impressions ahead first: window_end + impressions_ahead (the ' +
        'banded figure) × window length / billable_impressions, rounded up to the second. Pacing and partial targeting overlaps are not ' +
        'modelled. Null when the window has no billable impression.',
    }),
  ),
  estimated_completion_at: Nullable(
    Type.String({
      format: 'date-time',
      description:
        'The same estimate for the last of `impressions`: window_end + (impressions_ahead + impressions) × window length / ' +
        'billable_impressions, rounded up to the second; for `kind=click`, `impressions` are clicks and take impressions / ' +
        'estimated CTR impressions. Null when the window has no billable impression.',
    }),
  ),
  based_on: Type.Object(
    {
      window_start: { ...DateTime, description: 'One hour before window_end, or, on busy traffic, the instant of the oldest of the 10,000 most recent billable impressions read.' },
      window_end: { ...DateTime, description: 'Now (service clock).' },
      billable_impressions: Type.Integer({ minimum: 0, description: 'Billable impressions (views of at least 9.5 s, billed) on that traffic within the window, every advertiser\'s.' }),
      surfaces: Type.Array(StringEnum(SURFACES), { description: 'The surfaces the bid would serve on.' }),
      countries: Nullable(Type.Array(Type.String(), { description: 'The countries it targets (sorted, deduplicated); null: worldwide.' })),
      topics: Nullable(Type.Array(Type.String(), { description: 'Added in issue 40: the topics quoted (sorted, deduplicated); null: none sent.' })),
      topic_share: Nullable(
        Type.Number({
          minimum: 0,
          maximum: 1,
          description:
            'Added in issue 40: the estimated share of decisions in the last hour (every surface and country) that carried at least one of ' +
            '`topics`, from per-topic decision counts taken as independent: 1 − Π(1 − share of each topic), four decimals; between the ' +
            'largest single share and their sum. The start and completion estimates use the window\'s fill rate times this share. Null ' +
            'without topics, or when no decision was counted in the hour.',
        }),
      ),
      decisions_counted: Nullable(
        Type.Integer({ minimum: 0, description: 'Added in issue 40: decisions counted in that hour (the share\'s denominator); null without topics.' }),
      ),
      impressions: Type.Integer({ description: 'The volume estimated (the `impressions` sent, or the default).' }),
      kind: StringEnum(CAMPAIGN_KINDS),
    },
    { description: 'What the quote was computed from: the window of the fill rate and clearing price, and the traffic and volume quoted.' },
  ),
})
