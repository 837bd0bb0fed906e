import { Type } from 'typebox'
import { DateTime, NextCursor, Nullable, PageQuerySchema, StringEnum } from '../common.ts'
import { MODERATION_STATUSES } from '../../../domain/campaign-order.ts'
import { MODERATION_DECISIONS, MODERATION_REASON_MAX } from '../../../domain/moderation.ts'
import { MAX_COMBINING_MARKS } from '../../../domain/text-rules.ts'

export const CampaignParams = Type.Object({ campaign_id: Type.String() })

const Reason = Type.String({
  maxLength: MODERATION_REASON_MAX,
  description:
    `Why the creative is rejected (at most ${MODERATION_REASON_MAX} characters): the advertiser sees it as \`moderation_reason\`. ` +
    'Only with `rejected` (400 `rejection_only` otherwise); empty means none. At most ' +
    `${MAX_COMBINING_MARKS} combining marks on one character (400 \`too_many_combining_marks\`).`,
})

export const ModerationSchema = Type.Object(
  { status: StringEnum(MODERATION_DECISIONS), reason: Type.Optional(Reason) },
  { additionalProperties: false },
)

export const ModerationResultSchema = Type.Object({
  campaign_id: Type.String(),
  moderation_status: StringEnum(MODERATION_DECISIONS),
  moderation_reason: Nullable(Type.String()),
})

export const ModerationQueueQuery = Type.Object(
  {
    status: Type.Optional(StringEnum(MODERATION_STATUSES, { default: 'pending', description: 'The creatives in this status; `pending` when absent.' })),
    ...PageQuerySchema.properties,
  },
  { additionalProperties: false },
)

export const QueuedCreativeSchema = Type.Object({
  campaign_id: Type.String(),
  creative_id: Type.String(),
  user_id: Type.String(),
  email: Type.String({ description: "The advertiser's account email." }),
  campaign_name: Type.String(),
  campaign_status: Type.String(),
  ad_line: Type.String(),
  brand: Nullable(Type.String()),
  destination_url: Type.String(),
  icon_url: Nullable(Type.String()),
  moderation_status: StringEnum(MODERATION_STATUSES),
  moderation_reason: Nullable(
    Type.String({ description: 'While pending, the content-safety reason the line was held for; once rejected, the operator\'s reason.' }),
  ),
  created_at: DateTime,
  status_since: { ...DateTime, description: 'When the creative entered its status (a rewrite sends a line back to review).' },
  content_safety: Type.Object(
    {
      verdict: StringEnum(['allow', 'review', 'deny']),
      category: Nullable(Type.String({ description: 'For `review`, the reason (e.g. `crypto_offer`); for `deny`, the category.' })),
    },
    { description: "The content-safety screen's verdict on the line, with today's rules." },
  ),
})

export const ModerationQueueSchema = Type.Object({
  creatives: Type.Array(QueuedCreativeSchema, { description: 'Oldest first, by when each entered its status.' }),
  next_cursor: NextCursor,
})
