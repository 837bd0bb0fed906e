import type { CampaignKind } from './campaign-order.ts'
import { compareFractions, type Fraction } from './ctr.ts'
import { topicsMatch } from './topics.ts'

/**
 * The live auction (operations.md section 2). Among eligible campaigns the
 * highest expected value per impression wins (`auctionValue`: an impression
 * campaign's CPM; a click campaign's CPM × its estimated CTR on the surface);
 * equal values go to the campaign created first (creation sequence, not
 * timestamp). A lower value serves only when every better one is ineligible.
 */
export const SURFACES = ['extension', 'terminal'] as const
export type Surface = (typeof SURFACES)[number]

export interface Candidate {
  campaignId: string
  userId: string
  creativeId: string
  seq: number
  cpmMicros: number
  /** What the campaign buys: impressions, or clicks (docs/decisions/0109-auction-expected-value-per-impression.md). */
  kind: CampaignKind
  targetSurface: Surface | 'blended'
  targetCountries: ReadonlySet<string> | null
  /**
   * Topics of the vocabulary the campaign targets (domain/topics.ts); null or absent: every decision.
   * A name no longer in the vocabulary stays here and never matches.
   */
  targetTopics?: ReadonlySet<string> | null
  paceMinutes: number | null
  impressions: number
  /** Units delivered: billable impressions, or billable clicks for a click campaign (authoritative after each commit; refreshed from the store). */
  billed: number
  /** First activation, ms; null for a campaign never active. */
  activatedAtMs: number | null
  /** Paused time since activation, ms (excluded from pacing). */
  pausedMs: number
  adLine: string
  brand: string | null
  iconUrl: string | null
  destinationUrl: string
}

export interface DecisionRequest {
  surface: Surface
  country: string | null
  /** The decision's topics, normalised (`topics.ts#normaliseDecisionTopics`: known names, at most 5); absent: none. */
  topics?: readonly string[]
}

/** What the auction order reads of a campaign (a live candidate, or a bid being quoted: domain/quote.ts). */
export type Ranked = Pick<Candidate, 'cpmMicros' | 'seq' | 'kind'>

/**
 * A bid's expected value per impression, in micro-USD per 1,000 impressions, as an exact fraction:
 * an impression campaign's CPM; a click campaign's CPM (its price per 1,000 clicks) × `ctr`, its
 * estimated CTR on the decision's surface (`domain/ctr.ts#estimateCtr`). `ctr` is ignored for an
 * impression campaign.
 */
export function auctionValue(bid: Pick<Ranked, 'kind' | 'cpmMicros'>, ctr: Fraction): Fraction {
  const cpm = BigInt(bid.cpmMicros)
  return bid.kind === 'click' ? { num: cpm * ctr.num, den: ctr.den } : { num: cpm, den: 1n }
}

/** The auction's order of two valued bids: higher value first, then creation order. Exact. */
export function compareBids(a: { value: Fraction; seq: number }, b: { value: Fraction; seq: number }): number {
  return compareFractions(b.value, a.value) || a.seq - b.seq
}

/**
 * The one auction order: serving ranks its candidates with it, and the auction quote ranks a
 * prospective bid among them with it. Best first: expected value per impression descending
 * (`auctionValue`, with `ctrOf` giving each click campaign's estimated CTR on the surface being
 * ranked), then creation order.
 */
export function rank<T extends Ranked>(bids: readonly T[], ctrOf: (bid: T) => Fraction): T[] {
  return bids
    .map((bid) => ({ bid, seq: bid.seq, value: auctionValue(bid, bid.kind === 'click' ? ctrOf(bid) : IGNORED_CTR) }))
    .sort(compareBids)
    .map((v) => v.bid)
}

const IGNORED_CTR: Fraction = { num: 1n, den: 1n }

/**
 * Offers outstanding, in the campaign's unit (`mayTakeOffer`): an impression campaign's offers
 * count one each; a click campaign's count as the clicks they are expected to bring,
 * ⌊offers × CTR⌋, so that offers never starve it (an offer is not a click) while a campaign with
 * few clicks left still stops handing out far more offers than it can bill.
 */
export function outstandingUnits(kind: CampaignKind, offers: number, ctr: Fraction): number {
  if (kind !== 'click' || offers === 0) return offers
  return Number((BigInt(offers) * ctr.num) / ctr.den)
}

/**
 * How long an offer nobody has reported on still counts as outstanding: a
 * realistic dwell (one ask interval of about ten seconds, three times over),
 * not the hour a view stays acceptable, so an offer that is never viewed stops
 * holding the campaign back after half a minute (docs/decisions/0093-what-outstanding-means-offered-by-this-instance-not-yet.md).
 */
export const OUTSTANDING_WINDOW_MS = 30_000

/** What the offer rule needs of a campaign (in its unit: impressions, or clicks). */
export interface Delivery {
  impressions: number
  billed: number
  paceMinutes: number | null
  activatedAtMs: number | null
  pausedMs: number
}

/**
 * May this campaign take one more offer now? Offers already made and not yet
 * resolved (`outstanding`) count as delivered: with R impressions left, a
 * campaign stops taking offers while R are outstanding, and a paced campaign
 * (pace P minutes, N impressions) takes one only if delivered, this offer
 * included, stays within N × elapsed / P, elapsed counted from first
 * activation with paused time excluded. Nothing is due at the first instant;
 * the k-th impression becomes due once elapsed reaches k × P / N. Exact
 * integer arithmetic.
 */
export function mayTakeOffer(c: Delivery, outstanding: number, nowMs: number): boolean {
  const committed = c.billed + outstanding
  if (committed >= c.impressions) return false
  if (c.paceMinutes === null) return true
  if (c.activatedAtMs === null) return false
  const elapsedMs = Math.max(0, nowMs - c.activatedAtMs - c.pausedMs)
  const paceMs = c.paceMinutes * 60_000
  if (elapsedMs >= paceMs) return true
  return (committed + 1) * paceMs <= c.impressions * elapsedMs
}

/** Surface and country: what a campaign's targeting accepts, whatever its delivery. */
export function targets(c: Candidate, request: DecisionRequest): boolean {
  if (c.targetSurface !== 'blended' && c.targetSurface !== request.surface) return false
  return c.targetCountries === null || (request.country !== null && c.targetCountries.has(request.country))
}

/**
 * The campaigns each request can target, prepared once per reload of the
 * auction index, in auction order: ranked per surface (a click campaign's
 * value depends on its CTR there: `ctrOf`), then per surface the list for
 * a request without a country or with one no campaign names, and one list
 * per country some campaign names. A decision then walks only campaigns
 * whose targeting accepts it, with no filtering per request.
 */
export class EligibleLists {
  readonly #untargeted: Record<Surface, readonly Candidate[]>
  readonly #byCountry: Record<Surface, ReadonlyMap<string, readonly Candidate[]>>

  constructor(candidates: readonly Candidate[], ctrOf: (c: Candidate, surface: Surface) => Fraction) {
    const countries = new Set<string>()
    for (const c of candidates) for (const country of c.targetCountries ?? []) countries.add(country)
    const ranked = { extension: rank(candidates, (c) => ctrOf(c, 'extension')), terminal: rank(candidates, (c) => ctrOf(c, 'terminal')) }
    const lists = (surface: Surface, country: string | null) => ranked[surface].filter((c) => targets(c, { surface, country }))
    const perCountry = (surface: Surface) => new Map([...countries].map((country) => [country, lists(surface, country)] as const))
    this.#untargeted = { extension: lists('extension', null), terminal: lists('terminal', null) }
    this.#byCountry = { extension: perCountry('extension'), terminal: perCountry('terminal') }
  }

  /** The campaigns whose targeting accepts `request`, best first. */
  of(request: DecisionRequest): readonly Candidate[] {
    return (request.country !== null && this.#byCountry[request.surface].get(request.country)) || this.#untargeted[request.surface]
  }
}

/**
 * The winner among `eligible` (campaigns whose surface and country targeting accepts the request,
 * in auction order: `EligibleLists#of`), or null when none may take an offer now. A campaign with
 * topics is skipped unless the decision carries one of them (`topics.ts#topicsMatch`): a set
 * lookup per topic, in memory, and nothing for a campaign without topics, so price ranking and the
 * walk are otherwise unchanged. `outstanding` gives a campaign's offers not yet resolved, in its
 * unit (`outstandingUnits`).
 */
export function runAuction(
  eligible: readonly Candidate[],
  nowMs: number,
  outstanding: (c: Candidate) => number,
  topics: readonly string[] = NO_TOPICS,
): Candidate | null {
  for (const c of eligible) {
    if (c.targetTopics != null && !topicsMatch(c.targetTopics, topics)) continue
    if (mayTakeOffer(c, outstanding(c), nowMs)) return c
  }
  return null
}

const NO_TOPICS: readonly string[] = []
