import { ApiError, conflict, notFound } from '../domain/errors.ts'
import {
  checkAdLine,
  checkOptionalLabel,
  createFingerprint,
  defaultCampaignName,
  validateOrder,
  type CampaignCreateInput,
  type OrderChannel,
} from '../domain/campaign-order.ts'
import { adLineRewriteConflict, cancelTransition, pausedMillis, pauseTransition, resumeTransition, type Transition } from '../domain/campaign-state.ts'
import { microsToUsd } from '../domain/money.ts'
import { checkExposure } from '../domain/exposure.ts'
import { computeBalance } from '../domain/balance.ts'
import { newId, newRandomUuid } from '../platform/ids.ts'
import { lockAccount } from '../store/accounts.ts'
import { readBalanceFacts } from '../store/balance.ts'
import { revokeLeases } from '../store/leases.ts'
import {
  findCampaignGraph,
  findCreateRequest,
  insertCampaignGraph,
  insertCreateRequest,
  lockCampaign,
  startFirstQueuedBlock,
  updateCampaign,
  updateCreative,
  type CampaignGraph,
} from '../store/campaigns.ts'
import { readConfig } from '../store/settings.ts'
import type { Db } from '../store/db.ts'
import type { ServiceContext } from './context.ts'
import { requireComponent } from './status.ts'

export interface CampaignCreated<C extends OrderChannel = OrderChannel> {
  campaign_id: string
  creation_channel: C
  status: 'active' | 'paused'
  moderation_status: 'approved' | 'pending'
  impressions: number
  blocks: number
  cpm_usd: number
  amount_cents: number
  currency: 'usd'
  billing: 'delivered_value_postpay'
  replayed: boolean
}

/**
 * The account's per-minute create budget (rate limit). Only a create that is
 * about to make a campaign takes from it; one that then fails gives it back.
 */
export interface CreateBudget {
  /** Takes one create, or throws 429 when `limit` are already spent this window. */
  take(limit: number): Promise<void>
  /** Gives back the create taken by this request, if any. */
  refund(): Promise<void>
}

/**
 * POST /campaigns, and the portal's create form (`channel` `website`): one
 * use case, so both get the same validation, limits, budget and auction. Per
 * account, creates are serialized on the account row, so concurrent retries
 * of one idempotency key see each other: the first creates, the rest replay
 * its stored 201 body.
 */
export async function createCampaign<C extends OrderChannel = 'advertiser_api'>(
  ctx: ServiceContext,
  userId: string,
  input: CampaignCreateInput,
  budget: CreateBudget,
  channel: C = 'advertiser_api' as C,
): Promise<CampaignCreated<C>> {
  await requireComponent(ctx, 'campaign_creation')

  const fingerprint = createFingerprint(input)
  try {
    return (await insertOrReplay(ctx, userId, input, fingerprint, budget, channel)) as CampaignCreated<C>
  } catch (err) {
    // Nothing was created (the transaction rolled back): the create taken for it, if any, is not spent.
    await budget.refund()
    throw err
  }
}

async function insertOrReplay(
  ctx: ServiceContext,
  userId: string,
  input: CampaignCreateInput,
  fingerprint: string,
  budget: CreateBudget,
  channel: OrderChannel,
): Promise<CampaignCreated> {
  return ctx.db.transaction().execute(async (trx) => {
    const account = await lockAccount(trx, userId)
    if (!account) throw notFound('account')

    const prior = await findCreateRequest(trx, userId, input.idempotency_key)
    if (prior) {
      // A key first used on the other channel (API vs portal) is another payload: its stored body names that channel.
      if (prior.fingerprint !== fingerprint || (prior.response as CampaignCreated).creation_channel !== channel) {
        throw conflict({ field: 'idempotency_key', reason: 'idempotency_key_reused', campaign_id: prior.campaign_id })
      }
      return { ...(prior.response as CampaignCreated), replayed: true }
    }

    const config = await readConfig(trx)
    const order = validateOrder(input, config)

    // Read under the account lock: every other create of the account waits, so two cannot both pass the cap.
    const denial = checkExposure(computeBalance(await readBalanceFacts(trx, userId)), {
      capUsd: config.outstanding_balance_cap_usd,
      net30CreditLimitCents: account.effective_billing_mode === 'net30_invoice' ? account.credit_limit_cents : null,
    })
    if (denial) throw new ApiError(402, { field: 'impressions', ...denial })

    // Last, so that only a create that makes a campaign spends the budget (and an over-budget one makes none).
    await budget.take(config.create_rate_limit_per_min)

    const now = ctx.clock.now()
    const campaignId = newId('cmp')
    const status = order.startPaused ? 'paused' : 'active'
    await insertCampaignGraph(trx, {
      campaign: {
        campaign_id: campaignId,
        user_id: userId,
        creation_channel: channel,
        name: order.name ?? defaultCampaignName(now, channel),
        status,
        kind: order.kind,
        cpm_micros: order.cpmMicros,
        impressions: order.impressions,
        block_count: order.blocks,
        target_surface: order.targetSurface,
        target_countries: order.targetCountries,
        pace_minutes: order.paceMinutes,
        optin_leaderboard: order.optinLeaderboard,
        start_paused: order.startPaused,
        amount_cents: order.amountCents,
        report_uuid: null,
        created_at: now,
        updated_at: now,
        activated_at: order.startPaused ? null : now,
        paused_at: order.startPaused ? now : null,
        cancelled_at: null,
      },
      creative: {
        creative_id: newId('crv'),
        campaign_id: campaignId,
        user_id: userId,
        ad_line: order.adLine,
        destination_url: order.destinationUrl,
        brand: order.brand,
        icon_url: order.iconUrl,
        moderation_status: order.moderation.status,
        moderation_reason: order.moderation.reason,
        created_at: now,
        updated_at: now,
      },
      blocks: Array.from({ length: order.blocks }, (_, i) => ({
        campaign_id: campaignId,
        block_index: i,
        status: i === 0 && !order.startPaused ? 'serving' : 'queued',
        impressions_target: config.block_impressions,
        started_at: i === 0 && !order.startPaused ? now : null,
        exhausted_at: null,
      })),
    })

    const created: CampaignCreated = {
      campaign_id: campaignId,
      creation_channel: channel,
      status,
      moderation_status: order.moderation.status === 'pending' ? 'pending' : 'approved',
      impressions: order.impressions,
      blocks: order.blocks,
      cpm_usd: microsToUsd(order.cpmMicros),
      amount_cents: order.amountCents,
      currency: 'usd',
      billing: 'delivered_value_postpay',
      replayed: false,
    }
    await insertCreateRequest(trx, {
      user_id: userId,
      idempotency_key: input.idempotency_key,
      fingerprint,
      campaign_id: campaignId,
      response: created,
      created_at: now,
    })
    return created
  })
}

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
