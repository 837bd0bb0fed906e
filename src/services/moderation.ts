import { screenAdLine, type Screening } from '../domain/content-safety.ts'
import { notFound } from '../domain/errors.ts'
import { decisionReason, moderationDecisionEmail, type ModerationDecision } from '../domain/moderation.ts'
import { shownCampaignState } from '../domain/campaign-shown-state.ts'
import { pageOf, PAGE_LIMIT_DEFAULT } from '../domain/pagination.ts'
import type { ModerationStatus } from '../domain/campaign-order.ts'
import { findCampaignByIdForOperator, listModerationQueue, lockCreativeForOperator, updateCreative, type ModerationQueueRow } from '../store/campaigns.ts'
import { findAccount } from '../store/accounts.ts'
import { deliverEmail, recordEmail, type EmailContext } from './email.ts'
import type { ServiceContext } from './context.ts'
import { enqueueWebhookEvent } from '../store/webhooks.ts'
import { decodeInstantCursor, type Page, type PageRequest } from './lists.ts'

/**
 * Operator decision on a creative: only `approved` creatives serve. A
 * rejection may carry a reason (domain/moderation.ts), kept in
 * `moderation_reason` and shown to the advertiser; a decision replaces the
 * content-safety reason the line was held for. The account's webhook
 * endpoints hear of it (`campaign.moderation_decided`).
 *
 * The account is emailed the decision (issue 36) when it changes what the
 * creative reads (its status or its reason) on a campaign that can still
 * serve: the message is recorded in the outbox in the decision's transaction,
 * under the creative's row lock, so a retried or duplicated call (same status,
 * same reason) finds nothing changed and emails nothing. SMTP after commit.
 */
export async function moderateCampaign(ctx: EmailContext, campaignId: string, status: ModerationDecision, reason?: string) {
  const moderationReason = decisionReason(status, reason)
  const campaign = await findCampaignByIdForOperator(ctx.db, campaignId)
  if (!campaign) throw notFound('campaign')
  const now = ctx.clock.now()
  // The decision, its webhook event (campaign.moderation_decided) and its email commit together.
  const email = await ctx.db.transaction().execute(async (trx) => {
    const before = await lockCreativeForOperator(trx, campaignId)
    await updateCreative(trx, campaignId, { moderation_status: status, moderation_reason: moderationReason, updated_at: now })
    await enqueueWebhookEvent(trx, {
      userId: campaign.user_id,
      type: 'campaign.moderation_decided',
      key: `campaign.moderation_decided:${campaignId}:${now.toISOString()}:${status}`,
      at: now,
      data: { campaign_id: campaignId, moderation_status: status, moderation_reason: moderationReason, decided_at: now.toISOString() },
    })
    const changed = before !== undefined && (before.moderation_status !== status || before.moderation_reason !== moderationReason)
    const shown = shownCampaignState(campaign.status, status, moderationReason)
    if (!changed || shown.state === 'cancelled' || shown.state === 'completed') return null
    const account = await findAccount(trx, campaign.user_id)
    if (!account) return null
    const message = moderationDecisionEmail({
      campaignName: campaign.name,
      adLine: before.ad_line,
      decision: status,
      shown,
      campaignUrl: `${ctx.settings.publicUrl}/portal/campaigns/${encodeURIComponent(campaignId)}`,
    })
    return recordEmail({ ...ctx, db: trx }, { to: account.email, ...message })
  })
  if (email) await deliverEmail(ctx, email)
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
