import { Type } from 'typebox'
import { DateTime, Nullable, StringEnum } from './common.ts'
import { CAMPAIGN_KINDS, MODERATION_STATUSES, TARGET_SURFACES } from '../../domain/campaign-order.ts'
import { BlockSchema, CampaignStatusSchema, CampaignSummarySchema } from './campaigns.ts'
import { NonBillableSchema } from './stats.ts'

const nullableInt = Nullable(Type.Integer())

export const CreativeSchema = Type.Object({
  creative_id: Type.String(),
  campaign_id: Type.String(),
  campaign_status: CampaignStatusSchema,
  ad_line: Type.String(),
  destination_url: Type.String(),
  brand: Nullable(Type.String()),
  icon_url: Nullable(Type.String()),
  moderation_status: StringEnum(MODERATION_STATUSES),
  moderation_reason: Nullable(
    Type.String({ description: "Why an operator rejected the creative (`moderation_status` `rejected`), when they gave a reason; null otherwise." }),
  ),
  kind: StringEnum(CAMPAIGN_KINDS),
  cpm_usd: Type.Number(),
  target_surface: StringEnum(TARGET_SURFACES),
  target_countries: Nullable(Type.Array(Type.String())),
  pace_minutes: nullableInt,
  allocation_status: StringEnum(['creative', 'campaign_only'], {
    description: '`creative`: inventory figures are this creative\'s own; `campaign_only`: campaign totals (legacy allocation).',
  }),
  inventory: Type.Object({
    purchased_impressions: Type.Integer(),
    served_impressions: Type.Integer(),
    remaining_impressions: Type.Integer(),
  }),
  blocks: Type.Array(BlockSchema),
  delivery: Type.Object({
    metrics_availability: StringEnum(['complete', 'temporarily_unavailable'], {
      description: 'When `temporarily_unavailable`, every metric below is null (never a measured zero). Collection reads are always `temporarily_unavailable`.',
    }),
    billable_impressions: nullableInt,
    clicks: nullableInt,
    ctr: Nullable(Type.Number()),
    viewable_ticks: nullableInt,
    unique_viewers: nullableInt,
    spend_micros: nullableInt,
    first_served_at: Nullable(DateTime),
    last_served_at: Nullable(DateTime),
    non_billable: Nullable(NonBillableSchema),
  }),
  created_at: DateTime,
  updated_at: DateTime,
})

export const CreativeListSchema = Type.Object({
  creatives: Type.Array(CreativeSchema, { maxItems: 500, description: 'Newest first, at most 500.' }),
})

export const CampaignDetailSchema = Type.Object({
  ...CampaignSummarySchema.properties,
  creatives: Type.Array(CreativeSchema),
})
