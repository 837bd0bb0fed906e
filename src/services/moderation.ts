import { notFound } from '../domain/errors.ts'
import { findCampaignByIdForOperator, updateCreative } from '../store/campaigns.ts'
import type { ServiceContext } from './context.ts'

/** Operator decision on a creative: only `approved` creatives serve. */
export async function moderateCampaign(ctx: ServiceContext, campaignId: string, status: 'approved' | 'rejected') {
  const campaign = await findCampaignByIdForOperator(ctx.db, campaignId)
  if (!campaign) throw notFound('campaign')
  await updateCreative(ctx.db, campaignId, { moderation_status: status, moderation_reason: null, updated_at: ctx.clock.now() })
  return { campaign_id: campaignId, moderation_status: status }
}
