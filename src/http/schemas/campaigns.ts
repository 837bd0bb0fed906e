import { Type } from 'typebox'
import { DateTime, displayTextNote, ICON_URL_NOTE, NextCursor, Nullable, shownTextNote, StringEnum } from './common.ts'
import { SURFACES } from '../../domain/auction.ts'
import { MAX_TOPIC_NAME_LENGTH } from '../../domain/topics.ts'
import { CAMPAIGN_KINDS, CREATION_CHANNELS, MODERATION_STATUSES, TARGET_SURFACES } from '../../domain/campaign-order.ts'
import { CAMPAIGN_STATUSES } from '../../domain/campaign-state.ts'
import { BLOCK_STATUSES } from '../../domain/delivery.ts'

export const CampaignCreateSchema = Type.Object(
  {
    ad_line: Type.String({
      description:
        '3-60 user-perceived characters (grapheme clusters) after trimming; no control characters; emoji allowed; ' +
        'screened by the content-safety deny-list (scam, adult, hate, gambling, phishing): a hit is 400 reason `content_safety` ' +
        'with `category`. Borderline lines are accepted with moderation_status `pending` and serve after operator approval. ' +
        shownTextNote(60),
    }),
    destination_url: Type.String({
      format: 'uri',
      maxLength: 500,
      description: '`https://` only, no credentials, at most 500 characters. A bare host gains a trailing slash; path and query are kept verbatim.',
    }),
    cpm_usd: Type.Number({
      exclusiveMinimum: 0,
      description:
        'USD per 1,000 impressions; at least config.min_cpm_usd (400 `below_minimum` with `minimum`). At most six decimals ' +
        '(one micro-USD per thousand); finer values are 400 `too_precise` with `max_decimals: 6` (never rounded). The n-th billable ' +
        'impression of a campaign debits floor(n × cpm_micros / 1000) − floor((n − 1) × cpm_micros / 1000) micro-USD, so every ' +
        'impression is a whole number of micro-USD and each block of 1,000 bills exactly the CPM.',
    }),
    impressions: Type.Integer({ minimum: 1000, maximum: 100_000, multipleOf: 1000, description: 'Blocks of 1,000; at most config.max_blocks blocks.' }),
    idempotency_key: Type.String({ pattern: '^[A-Za-z0-9_.:\\-]{1,64}$', description: 'Scoped to the account. Same key and payload replays; a different payload is 409.' }),
    brand: Type.Optional(Type.String({ description: `At most 120 user-perceived characters. ${shownTextNote(120)}` })),
    name: Type.Optional(Type.String({ description: `1-120 user-perceived characters. Default \`API campaign - YYYY-MM-DD\`. ${displayTextNote(120)}` })),
    kind: Type.Optional(
      StringEnum(CAMPAIGN_KINDS, {
        default: 'impression',
        description:
          'What the order buys. `impression` (default): `impressions` billable impressions at `cpm_usd` per 1,000. `click`: `impressions` ' +
          'clicks, in blocks of 1,000 clicks, at `cpm_usd` per 1,000 clicks (the same validation and `amount_cents`); billed per unique ' +
          'click: the first click of an impression, on an offer younger than one hour, at most one per viewer per campaign per UTC day, ' +
          'never beyond the clicks bought; the n-th billable click debits what the n-th billable impression would. Its views are measured ' +
          'and counted (`billable_impressions`, the CTR denominator) but debit nothing. In the auction a click campaign is worth ' +
          '`cpm_usd` × its estimated CTR on the surface per impression. Not editable after creation.',
      }),
    ),
    target_surface: Type.Optional(
      StringEnum(SURFACES, {
        description: 'Only when config.surface_split_enabled (else 400 `surface_split_not_enabled`). Omitted: `extension`-only. Split disabled: blended.',
      }),
    ),
    target_countries: Type.Optional(
      Type.Array(Type.String({ pattern: '^[A-Z]{2}$' }), {
        minItems: 1,
        maxItems: 20,
        description: 'ISO 3166-1 alpha-2. Only when config.country_targeting_enabled (else 400 `country_targeting_not_enabled`). Omit for global delivery.',
      }),
    ),
    target_topics: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: MAX_TOPIC_NAME_LENGTH }), {
        maxItems: 50,
        description:
          'Added in issue 40. Topics from the published vocabulary (GET /serve/v1/topics, e.g. `python`, `kubernetes`): the campaign is then ' +
          'eligible only for decisions that carry at least one of them; omitted or empty, for every decision, as before. At most 10 distinct ' +
          '(400 `too_many_topics` with `max`); a name not in the vocabulary is 400 `unknown_topic` naming it in `topic`. Repeats collapse; ' +
          'the list is stored sorted. Price ranking is unchanged. A topic later removed from the vocabulary stays on the campaign and stops matching.',
      }),
    ),
    pace_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_080 })),
    icon_url: Type.Optional(Type.String({ maxLength: 12_000, description: ICON_URL_NOTE })),
    optin_leaderboard: Type.Optional(Type.Boolean({ default: true })),
    start_paused: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false, description: 'Unknown fields are 400 `unknown_field`.' },
)

export const CampaignCreatedSchema = Type.Object({
  campaign_id: Type.String(),
  creation_channel: Type.Literal('advertiser_api'),
  status: StringEnum(['active', 'paused']),
  moderation_status: StringEnum(['approved', 'pending']),
  impressions: Type.Integer({ description: 'Units bought: impressions, or clicks for a `click` campaign.' }),
  blocks: Type.Integer({ description: 'impressions / 1,000 (blocks of 1,000 clicks for a `click` campaign).' }),
  cpm_usd: Type.Number(),
  amount_cents: Type.Integer({ description: 'Maximum face value, cpm × blocks, rounded half up to cents. Not a charge.' }),
  currency: Type.Literal('usd'),
  billing: Type.Literal('delivered_value_postpay'),
  replayed: Type.Boolean(),
})

export const BlockSchema = Type.Object({
  block_index: Type.Integer({ description: '0-based delivery order.' }),
  status: StringEnum(BLOCK_STATUSES),
  impressions_served: Type.Integer({ description: 'Units delivered from this block: billable impressions, or billable clicks for a `click` campaign.' }),
  impressions_target: Type.Integer({ description: 'The block\'s size: 1,000 impressions, or 1,000 clicks for a `click` campaign.' }),
  started_at: Nullable(DateTime),
  exhausted_at: Nullable(DateTime),
})

export const CampaignStatusSchema = StringEnum(CAMPAIGN_STATUSES, { description: '`completed`: every block exhausted (terminal).' })

const campaignFields = {
  campaign_id: Type.String(),
  creation_channel: StringEnum(CREATION_CHANNELS),
  name: Type.String(),
  status: CampaignStatusSchema,
  created_at: DateTime,
  ad_line: Nullable(Type.String()),
  destination_url: Nullable(Type.String()),
  brand: Nullable(Type.String()),
  moderation_status: Nullable(StringEnum(MODERATION_STATUSES)),
  lifetime_spent_micros: Type.Integer(),
  report_uuid: Nullable(Type.String()),
  kind: StringEnum(CAMPAIGN_KINDS, {
    description: '`impression`: bought and billed per billable impression. `click`: bought and billed per unique click (see CampaignCreate `kind`); `impressions`, `impressions_served`, the blocks and `lifetime_spent_micros` then count clicks.',
  }),
  cpm_usd: Type.Number({ description: 'Price per 1,000 units: impressions, or clicks for a `click` campaign.' }),
  impressions: Type.Integer({ description: 'Units bought: impressions, or clicks for a `click` campaign.' }),
  impressions_served: Type.Integer({ description: 'Sum of impressions_served over the blocks: billable impressions, or billable clicks for a `click` campaign.' }),
  amount_cents: Type.Integer(),
  target_surface: StringEnum(TARGET_SURFACES),
  target_countries: Nullable(Type.Array(Type.String())),
  target_topics: Nullable(
    Type.Array(Type.String(), {
      description:
        'Added in issue 40: the topics the campaign targets, sorted (see CampaignCreate `target_topics`); null: every decision. A name no ' +
        'longer in the vocabulary (GET /serve/v1/topics) is still listed and matches no decision.',
    }),
  ),
  pace_minutes: Nullable(Type.Integer()),
  blocks: Type.Array(BlockSchema),
}

export const CampaignSummarySchema = Type.Object(campaignFields)

export const CampaignListSchema = Type.Object({
  campaigns: Type.Array(CampaignSummarySchema, { description: 'One page, newest first (creation order).' }),
  next_cursor: NextCursor,
})

export const CampaignEditSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ description: `1-120 user-perceived characters. ${displayTextNote(120)}` })),
    ad_line: Type.Optional(
      Type.String({ description: `3-60 characters; re-validated and re-screened; rewrites the live creative in place. ${shownTextNote(60)}` }),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'Any other field is 400 with reason `not_editable`; an empty object is 400 `empty_body`.',
  },
)
