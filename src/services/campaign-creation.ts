import { ApiError, conflict, notFound } from '../domain/errors.ts'
import { createFingerprint, defaultCampaignName, validateOrder, type CampaignCreateInput, type OrderChannel } from '../domain/campaign-order.ts'
import { microsToUsd } from '../domain/money.ts'
import { checkExposure } from '../domain/exposure.ts'
import { computeBalance } from '../domain/balance.ts'
import { newId } from '../platform/ids.ts'
import { lockAccount } from '../store/accounts.ts'
import { readBalanceFacts } from '../store/balance.ts'
import { findCreateRequest, insertCampaignGraph, insertCreateRequest } from '../store/campaigns.ts'
import { readConfig } from '../store/settings.ts'
import type { ServiceContext } from './context.ts'
import { requireComponent } from './status.ts'

/**
 * Creating a campaign (POST /v1/campaigns and the portal's create form): the order validated, the
 * outstanding-balance and credit checks, the create budget, the idempotent replay, and the campaign
 * with its creative and blocks inserted. What follows its creation is campaigns.ts's.
 */

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
        target_topics: order.targetTopics,
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
