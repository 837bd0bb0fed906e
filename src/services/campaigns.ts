import { conflict, notFound } from '../domain/errors.ts'
import { checkAdLine, checkOptionalLabel } from '../domain/campaign-order.ts'
import { adLineRewriteConflict, cancelTransition, pausedMillis, pauseTransition, resumeTransition, type Transition } from '../domain/campaign-state.ts'
import { newRandomUuid } from '../platform/ids.ts'
import { revokeLeases } from '../store/leases.ts'
import { findCampaignGraph, lockCampaign, startFirstQueuedBlock, updateCampaign, updateCreative, type CampaignGraph } from '../store/campaigns.ts'
import type { Db } from '../store/db.ts'
import type { ServiceContext } from './context.ts'

/**
 * A campaign of the account after its creation (campaign-creation.ts): reading it, its status
 * transitions (pause, resume, cancel), PATCH (name and ad line), and sharing its public report.
 */

/** GET /campaigns/{id}: the account's campaign with its blocks and creative; another account's is the same 404. */
export async function readCampaign(ctx: ServiceContext, userId: string, campaignId: string): Promise<CampaignGraph> {
  return reload(ctx.db, userId, campaignId)
}

async function reload(db: Db, userId: string, campaignId: string): Promise<CampaignGraph> {
  const graph = await findCampaignGraph(db, userId, campaignId)
  if (!graph) throw notFound('campaign')
  return graph
}

/** Runs a status transition under the campaign's row lock; a no-op transition writes nothing. */
async function transition(
  ctx: ServiceContext,
  userId: string,
  campaignId: string,
  decide: (status: string) => Transition,
): Promise<CampaignGraph> {
  return ctx.db.transaction().execute(async (trx) => {
    const campaign = await lockCampaign(trx, userId, campaignId)
    if (!campaign) throw notFound('campaign')
    const outcome = decide(campaign.status)
    if ('conflict' in outcome) throw conflict(outcome.conflict)
    if (outcome.changed) {
      const now = ctx.clock.now()
      if (outcome.to === 'paused') {
        await updateCampaign(trx, campaignId, { status: 'paused', paused_at: now, updated_at: now })
      } else if (outcome.to === 'active') {
        // A staged (start_paused) campaign starts its pacing clock on first resume;
        // otherwise the pause is excluded from pacing time.
        const firstActivation = campaign.activated_at === null
        await updateCampaign(trx, campaignId, {
          status: 'active',
          paused_at: null,
          activated_at: campaign.activated_at ?? now,
          paused_ms: firstActivation ? campaign.paused_ms : campaign.paused_ms + pausedMillis(campaign.paused_at, now),
          updated_at: now,
        })
        await startFirstQueuedBlock(trx, campaignId, now)
      } else {
        await updateCampaign(trx, campaignId, {
          status: outcome.to,
          cancelled_at: now,
          paused_ms: campaign.paused_ms + (campaign.activated_at ? pausedMillis(campaign.paused_at, now) : 0),
          paused_at: null,
          updated_at: now,
        })
        // Batches judged on a lease of this campaign fail their lease check and are judged again.
        await revokeLeases(trx, campaignId)
      }
    }
    return reload(trx, userId, campaignId)
  })
}

export const pauseCampaign = (ctx: ServiceContext, userId: string, id: string) => transition(ctx, userId, id, pauseTransition)
export const resumeCampaign = (ctx: ServiceContext, userId: string, id: string) => transition(ctx, userId, id, resumeTransition)
export const cancelCampaign = (ctx: ServiceContext, userId: string, id: string) => transition(ctx, userId, id, cancelTransition)

/**
 * PATCH: rename and/or rewrite the live ad line in place. A new line is
 * re-validated and re-screened; a borderline one goes back to `pending`.
 * A cancelled campaign may be renamed but its line is no longer live.
 */
export async function editCampaign(
  ctx: ServiceContext,
  userId: string,
  campaignId: string,
  edit: { name?: string; ad_line?: string },
): Promise<CampaignGraph> {
  const name = edit.name === undefined ? undefined : checkOptionalLabel(edit.name, 'name', 1)
  const line = edit.ad_line === undefined ? undefined : checkAdLine(edit.ad_line)
  return ctx.db.transaction().execute(async (trx) => {
    const campaign = await lockCampaign(trx, userId, campaignId)
    if (!campaign) throw notFound('campaign')
    const now = ctx.clock.now()
    if (line) {
      const lineConflict = adLineRewriteConflict(campaign.status)
      if (lineConflict) throw conflict(lineConflict)
      await updateCreative(trx, campaignId, {
        ad_line: line.adLine,
        moderation_status: line.moderation.status,
        moderation_reason: line.moderation.reason,
        updated_at: now,
      })
    }
    await updateCampaign(trx, campaignId, { ...(name ? { name } : {}), updated_at: now })
    return reload(trx, userId, campaignId)
  })
}

/**
 * "Share report": gives the campaign a `report_uuid` (a random v4 UUID, 122
 * random bits), the address of its public delivery report. Publishing is a
 * campaign write (the caller checks write access, as for PATCH). Sharing a
 * shared campaign keeps its address, so links already handed out keep working.
 */
export async function shareCampaignReport(ctx: ServiceContext, userId: string, campaignId: string): Promise<CampaignGraph> {
  return ctx.db.transaction().execute(async (trx) => {
    const campaign = await lockCampaign(trx, userId, campaignId)
    if (!campaign) throw notFound('campaign')
    if (campaign.report_uuid === null) await updateCampaign(trx, campaignId, { report_uuid: newRandomUuid(), updated_at: ctx.clock.now() })
    return reload(trx, userId, campaignId)
  })
}

/**
 * "Stop sharing": clears `report_uuid`, so the old address answers 404. Always
 * allowed, whatever the write prerequisites: taking a report down never needs
 * an approval. A campaign that is not shared is left as it is.
 */
export async function stopSharingCampaignReport(ctx: ServiceContext, userId: string, campaignId: string): Promise<CampaignGraph> {
  return ctx.db.transaction().execute(async (trx) => {
    const campaign = await lockCampaign(trx, userId, campaignId)
    if (!campaign) throw notFound('campaign')
    if (campaign.report_uuid !== null) await updateCampaign(trx, campaignId, { report_uuid: null, updated_at: ctx.clock.now() })
    return reload(trx, userId, campaignId)
  })
}
