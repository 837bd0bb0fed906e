import { notFound } from '../domain/errors.ts'
import { findCampaignByIdForOperator, updateCreative } from '../store/campaigns.ts'
import type { ServiceContext } from './context.ts'

/**
 * Operator decision on a creative: only `approved` creatives serve. A
 * rejection keeps the operator's reason (shown to the advertiser as
 * `moderation_reason`); an approval clears whatever reason was there.
 */
export async function moderateCampaign(ctx: ServiceContext, campaignId: string, status: 'approved' | 'rejected', reason?: string) {
  const campaign = await findCampaignByIdForOperator(ctx.db, campaignId)
  if (!campaign) throw notFound('campaign')
  const moderationReason = status === 'rejected' ? (reason?.trim() || null) : null
  await updateCreative(ctx.db, campaignId, { moderation_status: status, moderation_reason: moderationReason, updated_at: ctx.clock.now() })
  return { campaign_id: campaignId, moderation_status: status }
}
