/**
 * The live auction (operations.md section 2). Among eligible campaigns the
 * highest CPM wins; equal bids go to the campaign created first (creation
 * sequence, not timestamp). A cheaper bid serves only when every better one
 * is ineligible.
 */
export const SURFACES = ['extension', 'terminal'] as const
export type Surface = (typeof SURFACES)[number]

export interface Candidate {
  campaignId: string
  userId: string
  creativeId: string
  seq: number
  cpmMicros: number
  targetSurface: Surface | 'blended'
  targetCountries: ReadonlySet<string> | null
  paceMinutes: number | null
  impressions: number
  /** Billable impressions delivered (authoritative after each commit; refreshed from the store). */
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
}

/** What the auction order reads of a campaign (a live candidate, or a bid being quoted: domain/quote.ts). */
export type Ranked = Pick<Candidate, 'cpmMicros' | 'seq'>

/**
 * Best first: CPM descending, then creation order. The one auction order:
 * serving ranks its candidates with it, and the auction quote ranks a
 * prospective bid among them with it.
 */
export function rank<T extends Ranked>(candidates: readonly T[]): T[] {
  return [...candidates].sort((a, b) => b.cpmMicros - a.cpmMicros || a.seq - b.seq)
}

/**
 * How long an offer nobody has reported on still counts as outstanding: a
 * realistic dwell (one ask interval of about ten seconds, three times over),
 * not the hour a view stays acceptable, so an offer that is never viewed stops
 * holding the campaign back after half a minute (docs/decisions.md, "Serving").
 */
export const OUTSTANDING_WINDOW_MS = 30_000

/** What the offer rule needs of a campaign. */
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
 * The campaigns each request can target, prepared once per ranked list (a
 * reload of the auction index), in auction order: per surface, the list for
 * a request without a country or with one no campaign names, and one list
 * per country some campaign names. A decision then walks only campaigns
 * whose targeting accepts it, with no filtering per request.
 */
export class EligibleLists {
  readonly #untargeted: Record<Surface, readonly Candidate[]>
  readonly #byCountry: Record<Surface, ReadonlyMap<string, readonly Candidate[]>>

  constructor(ranked: readonly Candidate[]) {
    const countries = new Set<string>()
    for (const c of ranked) for (const country of c.targetCountries ?? []) countries.add(country)
    const lists = (surface: Surface, country: string | null) => ranked.filter((c) => targets(c, { surface, country }))
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
 * The winner among `eligible` (campaigns whose targeting accepts the request,
 * in auction order: `EligibleLists#of`), or null when none may take an offer
 * now. `outstanding` gives a campaign's offers not yet resolved.
 */
export function runAuction(eligible: readonly Candidate[], nowMs: number, outstanding: (campaignId: string) => number): Candidate | null {
  for (const c of eligible) if (mayTakeOffer(c, outstanding(c.campaignId), nowMs)) return c
  return null
}
