import { auctionValue, SURFACES, type Candidate, type Ranked, type Surface } from './auction.ts'
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
/**
 * Price bands (issue 49): the quote compares bids, and shows the clearing price, by band, never by
 * exact value, so that no sequence of quotes tells a competitor's bid closer than 5 %. A band runs
 * from one of these mantissas (the E24 series of preferred numbers, ×10^k micro-USD) to the next:
 * …, $1.50–1.60, $1.60–1.80, …, $9.10–10.00, $10–11, …; each is 6.7 % to 15 % wide.
 */
export const PRICE_BAND_MANTISSAS = [10, 11, 12, 13, 15, 16, 18, 20, 22, 24, 27, 30, 33, 36, 39, 43, 47, 51, 56, 62, 68, 75, 82, 91] as const
/** `impressions_ahead` is rounded to this many significant figures, so it never tells a competitor's exact inventory left. */
export const IMPRESSIONS_AHEAD_FIGURES = 2

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
  /**
   * Impressions left to deliver on the competing campaigns ranked ahead (a click campaign's clicks left at its estimated
   * CTR), other advertisers' rounded to IMPRESSIONS_AHEAD_FIGURES significant figures, plus `ownImpressionsAhead`.
   */
  impressionsAhead: number
  /** The part of `impressionsAhead` that is the quoting advertiser's own campaigns, exact (0 when `isOwn` is not given). */
  ownImpressionsAhead: number
}

/**
 * A click campaign's estimated CTR on a surface (`domain/ctr.ts#estimateCtr`), which the auction
 * multiplies its CPM by; `null` asks for the bid's own (a campaign with no clicks observed yet).
 * Not asked for impression campaigns.
 */
export type CtrOf = (c: QueuedCampaign | null, surface: Surface) => Fraction

const IGNORED_CTR: Fraction = { num: 1n, den: 1n }

/**
 * The lower edge of the price band holding `value` (micro-USD per 1,000 impressions, exact): the
 * largest PRICE_BAND_MANTISSAS × 10^k at or below it. A value under 10 micro-USD is its own whole
 * number (a band of one micro-USD is wider than 10 % there).
 */
export function priceBand(value: Fraction): bigint {
  const whole = value.num / value.den
  if (whole < 10n) return whole
  let scale = 1n
  while (whole / scale >= 100n) scale *= 10n
  const mantissa = Number(whole / scale)
  let edge: number = PRICE_BAND_MANTISSAS[0]
  for (const m of PRICE_BAND_MANTISSAS) if (m <= mantissa) edge = m
  return BigInt(edge) * scale
}

/** `n` rounded to IMPRESSIONS_AHEAD_FIGURES significant figures, half up (12,345 → 12,000; 96 → 96; 995 → 1,000). */
export function roundImpressions(n: number): number {
  if (n <= 0) return 0
  const digits = String(Math.floor(n)).length
  const step = 10 ** Math.max(0, digits - IMPRESSIONS_AHEAD_FIGURES)
  return Math.round(n / step) * step
}

/**
 * The bid's place among the live campaigns that compete for its traffic, in the auction's order
 * (expected value per impression, `auction.ts#auctionValue`) compared by price band
 * (`priceBand`), with the bid entered as the newest campaign: a campaign in the bid's band or a
 * higher one is ahead of it (the bid loses ties, as a later campaign does, so a band never
 * flatters it), one in a lower band is behind. The order is per surface (a click campaign's value
 * depends on its CTR there), so a campaign is ahead when it is on some surface the bid serves.
 * Campaigns that cannot serve (paused, not approved, exhausted, stopped by billing) are not in
 * `queue` at all; paced campaigns are, since they stay ahead of the bid for what they have left.
 */
export function placeInQueue<C extends QueuedCampaign>(queue: readonly C[], bid: QuotedBid, ctrOf: CtrOf, isOwn: (c: C) => boolean = () => false): Place {
  const competing = queue.filter((c) => competesWith(c, bid))
  const valueOn = (c: Pick<Ranked, 'kind' | 'cpmMicros'>, ctr: Fraction | null) => auctionValue(c, ctr ?? IGNORED_CTR)
  // Each campaign ahead, with the CTR of the first surface it is ahead on (its clicks are impressions at that rate).
  const ahead = new Map<C, Fraction | null>()
  for (const surface of surfacesOf(bid.targetSurface)) {
    const mine = priceBand(valueOn(bid, bid.kind === 'click' ? ctrOf(null, surface) : null))
    for (const c of competing) {
      if (ahead.has(c) || !surfacesOf(c.targetSurface).includes(surface)) continue
      const ctr = c.kind === 'click' ? ctrOf(c, surface) : null
      if (priceBand(valueOn(c, ctr)) >= mine) ahead.set(c, ctr)
    }
  }
  let othersAhead = 0
  let ownImpressionsAhead = 0
  for (const [c, ctr] of ahead) {
    const left = impressionsFor(Math.max(0, c.impressions - c.billed), ctr)
    if (isOwn(c)) ownImpressionsAhead += left
    else othersAhead += left
  }
  return { rank: ahead.size + 1, impressionsAhead: roundImpressions(othersAhead) + ownImpressionsAhead, ownImpressionsAhead }
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
 * traffic within the window, down to the lower edge of its price band
 * (`priceBand`: a price level, never an exact bid), and never below the bid
 * floor (a floor raised since is what a new bid needs). Null when nothing won there.
 */
export function clearingCpmMicros(lowestWinningMicros: number | null, floorMicros: number): number | null {
  if (lowestWinningMicros === null) return null
  return Math.max(Number(priceBand({ num: BigInt(lowestWinningMicros), den: 1n })), floorMicros)
}
