import { Type } from 'typebox'

const DECISIONS = ['approved', 'rejected'] as const

export const CampaignParams = Type.Object({ campaign_id: Type.String() })

export const ModerationSchema = Type.Object(
  {
    status: Type.Enum(DECISIONS),
    reason: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description:
          'Why, in words the advertiser reads: shown as the creative\'s `moderation_reason` (GET /v1/creatives, the campaign ' +
          'page of the portal). Kept with `rejected`; an approval clears any reason. Optional (added after 1.7.0).',
      }),
    ),
  },
  { additionalProperties: false },
)

export const ModerationResultSchema = Type.Object({ campaign_id: Type.String(), moderation_status: Type.Enum(DECISIONS) })
