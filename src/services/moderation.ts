import { screenAdLine, type Screening } from '../domain/content-safety.ts'
import { notFound } from '../domain/errors.ts'
import { decisionReason, type ModerationDecision } from '../domain/moderation.ts'
import { pageOf, PAGE_LIMIT_DEFAULT } from '../domain/pagination.ts'
import type { ModerationStatus } from '../domain/campaign-order.ts'
import { findCampaignByIdForOperator, listModerationQueue, updateCreative, type ModerationQueueRow } from '../store/campaigns.ts'
import type { ServiceContext } from './context.ts'
import { enqueueWebhookEvent } from '../store/webhooks.ts'
import { decodeInstantCursor, type Page, type PageRequest } from './lists.ts'

/**
 * Operator decision on a creative: only `approved` creatives serve. A
 * rejection may carry a reason (domain/moderation.ts), kept in
 * `moderation_reason` and shown to the advertiser; a decision replaces the
 * content-safety reason the line was held for. The account's webhook
 * endpoints hear of it (`campaign.moderation_decided`).
 */
export async function moderateCampaign(ctx: ServiceContext, campaignId: string, status: ModerationDecision, reason?: string) {
  const moderationReason = decisionReason(status, reason)
  const campaign = await findCampaignByIdForOperator(ctx.db, campaignId)
  if (!campaign) throw notFound('campaign')
  const now = ctx.clock.now()
  // The decision and its webhook event (campaign.moderation_decided) commit together.
  await ctx.db.transaction().execute(async (trx) => {
    await updateCreative(trx, campaignId, { moderation_status: status, moderation_reason: moderationReason, updated_at: now })
    await enqueueWebhookEvent(trx, {
      userId: campaign.user_id,
      type: 'campaign.moderation_decided',
      key: `campaign.moderation_decided:${campaignId}:${now.toISOString()}:${status}`,
      at: now,
      data: { campaign_id: campaignId, moderation_status: status, moderation_reason: moderationReason, decided_at: now.toISOString() },
    })
  })
  return { campaign_id: campaignId, moderation_status: status, moderation_reason: moderationReason }
}

/** A creative waiting in the queue, with what the content-safety screen says of its line today. */
export interface QueuedCreative extends ModerationQueueRow {
  screening: Screening
}

/**
 * The moderation queue: creatives in `status` (pending by default) of
 * campaigns that can still serve, oldest first by when they entered it; the
 * line is screened again with today's rules (domain/content-safety.ts), so
 * the operator sees the verdict that held it (`review` and its reason).
 */
export async function readModerationQueue(ctx: ServiceContext, status: ModerationStatus, req: PageRequest): Promise<Page<QueuedCreative>> {
  const limit = req.limit ?? PAGE_LIMIT_DEFAULT
  const cursor = req.cursor === undefined ? null : decodeInstantCursor('moderation', req.cursor)
  const after = cursor === null ? null : { updatedAt: cursor.at, campaignId: cursor.id }
  const rows = await listModerationQueue(ctx.db, status, { rows: limit + 1, after })
  const page = pageOf(rows, limit, (r) => [r.updated_at.toISOString(), r.campaign_id], 'moderation')
  return { items: page.items.map((row) => ({ ...row, screening: screenAdLine(row.ad_line) })), nextCursor: page.nextCursor }
}
