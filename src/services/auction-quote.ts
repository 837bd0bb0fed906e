import type { Candidate, Surface } from '../domain/auction.ts'
import { checkBid, type CampaignKind } from '../domain/campaign-order.ts'
import { CTR_PRIOR, ctrEstimates } from '../domain/ctr.ts'
import { MICROS_PER_USD, microsToUsd } from '../domain/money.ts'
import {
  clearingCpmMicros,
  estimateDelivery,
  impressionsFor,
  fillWindow,
  placeInQueue,
  QUOTE_SAMPLE_MAX,
  sampleStartMs,
  surfacesOf,
  topicFillWindow,
  topicShare,
  type CtrOf,
  type QueuedCampaign,
} from '../domain/quote.ts'
import { parseFilterLists } from '../domain/report-filters.ts'
import { readFillSample, readLowestWinningCpm, readTopicDecisionCounts } from '../store/quote.ts'
import { loadCandidates, readClickCtrCounts } from '../store/serving.ts'
import { readConfig } from '../store/settings.ts'
import type { Db } from '../store/db.ts'
import type { ServiceContext } from './context.ts'
import { lagTolerant } from './lag-tolerant.ts'

/** GET /v1/auction/quote's query (and the portal's live quote, built from the create form). */
export interface QuoteQuery {
  cpm_usd: number
  target_surface?: Surface
  /** Comma-separated ISO 3166-1 alpha-2 codes, as /v1/stats takes lists. */
  target_countries?: string
  impressions?: number
  kind?: CampaignKind
  /** Comma-separated topic names of the vocabulary (domain/topics.ts), as CampaignCreate `target_topics`. */
  target_topics?: string
}

/** The most countries an order may target (CampaignCreate `target_countries`, maxItems). */
const MAX_TARGET_COUNTRIES = 20

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * Where a bid would stand in the live auction now (domain/quote.ts), judged
 * by the create rules of the live config (`checkBid`: the same 400s as POST
 * /campaigns). Reads only: the live candidates (the auction index's own
 * load) and two aggregates of the ledger. Nothing in the answer names or
 * prices another advertiser's campaign.
 *
 * Both kinds rank as the auction does, by expected value per impression: a
 * click campaign's CPM times its estimated CTR on the surface, from the same
 * click counts and estimator the serving index uses (`domain/ctr.ts`); the
 * bid itself, a click campaign with nothing observed, at the surface's
 * platform estimate.
 */
export async function quoteBid(ctx: ServiceContext, q: QuoteQuery) {
  return (await quoteBidFor(ctx, q, null)).quote
}

/**
 * The quote as `quoteBid` gives it, plus two figures for the portal's create
 * form: how many of the impressions ahead are `userId`'s own campaigns (a
 * person queued behind themselves should know it), and the order's total
 * (bid × volume, the most it can bill). The API answer leaves them out: the
 * first is about the caller only, the second is the create's `amount_cents`.
 */
export async function quoteBidFor(ctx: ServiceContext, q: QuoteQuery, userId: string | null) {
  const config = await readConfig(ctx.db)
  const countries =
    q.target_countries === undefined
      ? undefined
      : parseFilterLists(
          { country: q.target_countries.split(',') },
          { campaign: 'campaign_id', creative: 'creative_id', surface: 'target_surface', country: 'target_countries' },
          { campaign: 0, creative: 0, surface: 0, country: MAX_TARGET_COUNTRIES },
        ).countries ?? undefined
  const bid = checkBid(
    {
      cpm_usd: q.cpm_usd,
      impressions: q.impressions ?? config.block_impressions,
      kind: q.kind,
      target_surface: q.target_surface,
      target_countries: countries,
      ...(q.target_topics === undefined ? {} : { target_topics: q.target_topics.split(',') }),
    },
    config,
  )

  const nowMs = ctx.clock.nowMs()
  const traffic = { surfaces: surfacesOf(bid.targetSurface), countries: bid.targetCountries }
  // An estimate from the live queue and recent traffic: it may be read on the replica, up to
  // READ_REPLICA_MAX_LAG_MS behind (services/lag-tolerant.ts); the config and the bid's checks are the primary's.
  const topics = bid.targetTopics
  const { queue, ctrOf, window, lowest, topicCounts } = await lagTolerant(ctx, async (db) => {
    const [queue, sample, topicCounts] = await Promise.all([
      loadCandidates(db),
      readFillSample(db, traffic, new Date(sampleStartMs(nowMs)), new Date(nowMs), QUOTE_SAMPLE_MAX),
      topics === null ? Promise.resolve(null) : readTopicDecisionCounts(db, topics, new Date(sampleStartMs(nowMs)), new Date(nowMs)),
    ])
    const ctrOf = await clickEstimates(db, queue, bid.kind)
    const window = fillWindow(nowMs, sample)
    const lowest = await readLowestWinningCpm(db, traffic, new Date(window.startMs), new Date(window.endMs))
    return { queue, ctrOf, window, lowest, topicCounts }
  })
  const share = topicCounts === null ? null : topicShare(topicCounts.decisions, topicCounts.carrying)

  const place = placeInQueue(queue, bid, ctrOf, (c) => c.userId === userId)
  // A click bid buys clicks: they take impressions at its estimated CTR on its (first) surface.
  const volume = impressionsFor(bid.impressions, bid.kind === 'click' ? ctrOf(null, traffic.surfaces[0]!) : null)
  const estimate = estimateDelivery(place, volume, topicFillWindow(window, share))
  const clearing = clearingCpmMicros(lowest, Math.round(config.min_cpm_usd * MICROS_PER_USD))
  const quote = {
    rank: place.rank,
    impressions_ahead: place.impressionsAhead,
    clearing_cpm_usd: clearing === null ? null : microsToUsd(clearing),
    estimated_start_at: estimate ? iso(estimate.startMs) : null,
    estimated_completion_at: estimate ? iso(estimate.completionMs) : null,
    based_on: {
      window_start: iso(window.startMs),
      window_end: iso(window.endMs),
      billable_impressions: window.billable,
      surfaces: traffic.surfaces,
      countries: traffic.countries,
      topics,
      topic_share: share === null ? null : Math.round(share * 10_000) / 10_000,
      decisions_counted: topicCounts === null ? null : topicCounts.decisions,
      impressions: bid.impressions,
      kind: bid.kind,
    },
  }
  return { quote, ownImpressionsAhead: place.ownImpressionsAhead, orderTotalMicros: bid.faceMicros }
}

/**
 * The CTR each click campaign of `queue` (and a new click bid) is ranked with, per surface: read
 * only when a click campaign takes part, as the serving index does.
 */
async function clickEstimates(db: Db, queue: readonly Candidate[], bidKind: CampaignKind): Promise<CtrOf> {
  if (bidKind !== 'click' && !queue.some((c) => c.kind === 'click')) return () => CTR_PRIOR
  const estimate = ctrEstimates(await readClickCtrCounts(db))
  const ids = new Map<QueuedCampaign, string>(queue.map((c) => [c, c.campaignId]))
  return (c, surface) => estimate(c === null ? null : (ids.get(c) ?? null), surface)
}
