import { rank, SURFACES, type Candidate, type Ranked, type Surface } from './auction.ts'
import type { Fraction } from './ctr.ts'
import type { Bid, TargetSurface } from './campaign-order.ts'

/**
 * The auction quote (GET /v1/auction/quote,
 * docs/decisions/0305-what-it-ranks-against.md to 0315): where a bid not yet placed would stand in the live auction now,
 * how much inventory is queued ahead of it, and when it would start and
 * finish at the recent fill rate of the traffic it targets. Plain functions:
 * the service reads the candidates and the ledger sample and passes them in.
 */

/** How far back the fill rate and the clearing price look. */
export const QUOTE_WINDOW_MS = 60 * 60_000
/**
 * At most this many of the most recent billable impressions are read: on busy
 * traffic the window is shortened to the span they cover, so a quote's cost
 * stays bounded however much the ledger holds.
 */
export const QUOTE_SAMPLE_MAX = 10_000
/** The clearing price is rounded down to this step ($0.10), so it shows a price level, never an exact bid. */
export const CLEARING_STEP_MICROS = 100_000
/** A bid being quoted would be created after every existing campaign, so it loses every tie (the contract's creation order). */
export const NEW_BID_SEQ = Number.MAX_SAFE_INTEGER

/** What a quote reads of a live campaign (a serving candidate: `store/serving.ts#loadCandidates`). */
export type QueuedCampaign = Ranked & Pick<Candidate, 'targetSurface' | 'targetCountries' | 'targetTopics' | 'impressions' | 'billed'>

/** What a quote reads of the bid: the auction inputs of an order (`campaign-order.ts#checkBid`). */
export type QuotedBid = Pick<Bid, 'cpmMicros' | 'kind' | 'impressions' | 'targetSurface' | 'targetCountries'> & Partial<Pick<Bid, 'targetTopics'>>

/** The surfaces a campaign targeting `target` serves on. */
export function surfacesOf(target: TargetSurface): Surface[] {
  return target === 'blended' ? [...SURFACES] : [target]
}

/**
 * Would `c` serve some of the traffic the bid targets? Surfaces overlap
 * (blended covers both), countries overlap (no list is worldwide) and topics
 * overlap (no topics is every decision). A campaign that shares only part of
 * the bid's traffic still serves ahead of it there, so it counts: the rank
 * never flatters a bid.
 */
export function competesWith(
  c: Pick<QueuedCampaign, 'targetSurface' | 'targetCountries' | 'targetTopics'>,
  bid: Pick<QuotedBid, 'targetSurface' | 'targetCountries' | 'targetTopics'>,
): boolean {
  const surfaces = surfacesOf(bid.targetSurface)
  if (!surfacesOf(c.targetSurface).some((s) => surfaces.includes(s))) return false
  const topics = c.targetTopics
  if (topics != null && topics.size > 0 && bid.targetTopics != null && bid.targetTopics.length > 0 && !bid.targetTopics.some((t) => topics.has(t))) return false
  if (c.targetCountries === null || bid.targetCountries === null) return true
  return bid.targetCountries.some((country) => c.targetCountries!.has(country))
}

/**
 * The share of decisions that carry at least one of a bid's topics, estimated from per-topic
 * counts (`decisions` in all, `carrying[i]` carrying the i-th topic) as if topics occurred
 * independently: 1 − Π(1 − s_i). It lies between the largest single share (topics that always
 * occur together) and their sum (topics that never do). Null when no decision was counted.
 */
export function topicShare(decisions: number, carrying: readonly number[]): number | null {
  if (decisions <= 0) return null
  let none = 1
  for (const n of carrying) none *= 1 - Math.min(1, Math.max(0, n / decisions))
  return 1 - none
}

export interface Place {
  /** 1 = next to serve. */
  rank: number
  /** Impressions left to deliver on the competing campaigns ranked ahead (a click campaign's clicks left at its estimated CTR). */
  impressionsAhead: number
  /** The part of `impressionsAhead` that is the quoting advertiser's own campaigns (0 when `isOwn` is not given). */
  ownImpressionsAhead: number
}

/**
 * A click campaign's estimated CTR on a surface (`domain/ctr.ts#estimateCtr`), which the auction
 * multiplies its CPM by; `null` asks for the bid's own (a campaign with no clicks observed yet).
 * Not asked for impression campaigns.
 */
export type CtrOf = (c: QueuedCampaign | null, surface: Surface) => Fraction

/**
 * The bid's place among the live campaigns that compete for its traffic,
 * through the auction's own order (`auction.ts#rank`: expected value per
 * impression, then creation) with the bid entered as the newest campaign.
 * The order is per surface (a click campaign's value depends on its CTR
 * there), so a campaign is ahead when it outranks the bid on some surface
 * the bid serves. Campaigns that cannot serve (paused, not approved,
 * exhausted, stopped by billing) are not in `queue` at all; paced campaigns
 * are, since they stay ahead of the bid for what they have left.
 */
export function placeInQueue<C extends QueuedCampaign>(queue: readonly C[], bid: QuotedBid, ctrOf: CtrOf, isOwn: (c: C) => boolean = () => false): Place {
  const competing = queue.filter((c) => competesWith(c, bid))
  const mine: QueuedCampaign = {
    cpmMicros: bid.cpmMicros,
    seq: NEW_BID_SEQ,
    kind: bid.kind,
    targetSurface: bid.targetSurface,
    targetCountries: bid.targetCountries && new Set(bid.targetCountries),
    targetTopics: bid.targetTopics ? new Set(bid.targetTopics) : null,
    impressions: bid.impressions,
    billed: 0,
  }
  // Each campaign ahead, with the CTR of the first surface it is ahead on (its clicks are impressions at that rate).
  const ahead = new Map<C, Fraction | null>()
  for (const surface of surfacesOf(bid.targetSurface)) {
    const there = competing.filter((c) => surfacesOf(c.targetSurface).includes(surface))
    const ordered = rank<QueuedCampaign>([...there, mine], (c) => ctrOf(c === mine ? null : c, surface))
    const before = ordered.slice(0, ordered.indexOf(mine)).filter((c): c is C => c !== mine)
    for (const c of before) if (!ahead.has(c)) ahead.set(c, c.kind === 'click' ? ctrOf(c, surface) : null)
  }
  let impressionsAhead = 0
  let ownImpressionsAhead = 0
  for (const [c, ctr] of ahead) {
    const left = impressionsFor(Math.max(0, c.impressions - c.billed), ctr)
    impressionsAhead += left
    if (isOwn(c)) ownImpressionsAhead += left
  }
  return { rank: ahead.size + 1, impressionsAhead, ownImpressionsAhead }
}

/**
 * The impressions `units` take to deliver: impressions are themselves; a click campaign's clicks
 * take units / CTR impressions at its estimated CTR (rounded up; a zero estimate counts one each).
 */
export function impressionsFor(units: number, ctr: Fraction | null): number {
  if (ctr === null || ctr.num === 0n) return units
  return Number((BigInt(units) * ctr.den + ctr.num - 1n) / ctr.num)
}

/** The most recent billable impressions on the bid's traffic, as read from the ledger. */
export interface FillSample {
  /** How many were read (at most QUOTE_SAMPLE_MAX). */
  billable: number
  /** The oldest of them, ms; null when none. */
  oldestMs: number | null
}

export interface FillWindow {
  startMs: number
  endMs: number
  billable: number
}

/**
 * The window the fill rate is measured over: the last QUOTE_WINDOW_MS, or,
 * when the sample reached QUOTE_SAMPLE_MAX, the span from its oldest
 * impression to now (the rate of the busiest recent traffic, at bounded cost).
 */
export function fillWindow(nowMs: number, sample: FillSample): FillWindow {
  const full = nowMs - QUOTE_WINDOW_MS
  const startMs = sample.billable >= QUOTE_SAMPLE_MAX && sample.oldestMs !== null ? Math.max(full, sample.oldestMs) : full
  return { startMs, endMs: nowMs, billable: sample.billable }
}

/**
 * The fill window as a bid with topics sees it: only the share of decisions that carry one of its
 * topics (`topicShare`) can go to it, so its rate is the window's billable impressions times that
 * share (rounded down). Unchanged without topics or without a share to apply.
 */
export function topicFillWindow(window: FillWindow, share: number | null): FillWindow {
  return share === null ? window : { ...window, billable: Math.floor(window.billable * share) }
}

/** The start of the window the ledger sample is read over. */
export const sampleStartMs = (nowMs: number) => nowMs - QUOTE_WINDOW_MS

const ceilToSecond = (ms: number) => Math.ceil(ms / 1000) * 1000

/**
 * When the bid would start and finish delivering, if the traffic it targets
 * keeps filling at the window's rate and serves the inventory ahead of it
 * first: start after `impressionsAhead` more billable impressions, completion
 * after `impressions` more. Offsets are rounded up to whole seconds. Null when
 * the window has no billable impression (no rate to estimate from).
 */
export function estimateDelivery(place: Pick<Place, 'rank' | 'impressionsAhead'>, impressions: number, window: FillWindow): { startMs: number; completionMs: number } | null {
  if (window.billable === 0) return null
  // Exact rational arithmetic: ms per impression is span / billable; a zero span (a burst at one instant) counts as 1 ms.
  const spanMs = Math.max(1, window.endMs - window.startMs)
  const after = (count: number) => window.endMs + ceilToSecond((count * spanMs) / window.billable)
  return { startMs: after(place.impressionsAhead), completionMs: after(place.impressionsAhead + impressions) }
}

/**
 * The clearing price shown: the lowest CPM that won a decision on the bid's
 * traffic within the window, rounded down to CLEARING_STEP_MICROS, and never
 * below the bid floor (a floor raised since is what a new bid needs). Null
 * when nothing won there.
 */
export function clearingCpmMicros(lowestWinningMicros: number | null, floorMicros: number): number | null {
  if (lowestWinningMicros === null) return null
  const stepped = lowestWinningMicros - (lowestWinningMicros % CLEARING_STEP_MICROS)
  return Math.max(stepped, floorMicros)
}
