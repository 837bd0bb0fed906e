import { Type } from 'typebox'

const DECISIONS = ['approved', 'rejected'] as const

export const CampaignParams = Type.Object({ campaign_id: Type.String() })

export const ModerationSchema = Type.Object({ status: Type.Enum(DECISIONS) }, { additionalProperties: false })

export const ModerationResultSchema = Type.Object({ campaign_id: Type.String(), moderation_status: Type.Enum(DECISIONS) })
