/**
 * The click-through rate the auction expects of a click campaign on a surface
 * (docs/decisions/0110-the-ctr-estimate.md). CTR is the stats definition: clicks / billable impressions.
 * A campaign's estimate shrinks its own observed CTR toward the surface's platform-wide CTR of click
 * campaigns with a fixed pseudo-count of impressions, and that platform CTR shrinks toward a fixed
 * prior the same way, so:
 *  - a new click campaign (no impressions) is estimated at the platform's CTR: neither starved nor
 *    favoured against the click campaigns already observed;
 *  - with no data anywhere, every click campaign is estimated at CTR_PRIOR;
 *  - a campaign's own clicks take over as its impressions grow past CAMPAIGN_PSEUDO_IMPRESSIONS.
 * Exact fractions of integers (bigint), so the auction's order never depends on float rounding.
 */

import type { Surface } from './auction.ts'

/** An exact non-negative fraction; `den` > 0. */
export interface Fraction {
  num: bigint
  den: bigint
}

/** Billable impressions and clicks observed (the stats' `billable_impressions` and `clicks`). */
export interface CtrCounts {
  impressions: number
  clicks: number
}

/** The CTR assumed when the platform has observed no click campaign on a surface: 1 %. */
export const CTR_PRIOR: Fraction = { num: 1n, den: 100n }
/** How many impressions of evidence the prior is worth against the platform's observed CTR. */
export const PLATFORM_PSEUDO_IMPRESSIONS = 10_000
/** How many impressions of evidence the platform's CTR is worth against a campaign's own. */
export const CAMPAIGN_PSEUDO_IMPRESSIONS = 1_000

const ONE: Fraction = { num: 1n, den: 1n }

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b]
  return a
}

function reduced(num: bigint, den: bigint): Fraction {
  const g = gcd(num, den)
  return g > 1n ? { num: num / g, den: den / g } : { num, den }
}

/** (clicks + k × prior) / (impressions + k), capped at 1 (an impression is worth at most one click). */
function shrink(counts: CtrCounts, k: number, prior: Fraction): Fraction {
  if (!Number.isSafeInteger(counts.impressions) || !Number.isSafeInteger(counts.clicks) || counts.impressions < 0 || counts.clicks < 0) {
    throw new RangeError(`CTR counts must be non-negative integers, got ${counts.impressions} / ${counts.clicks}`)
  }
  const num = BigInt(counts.clicks) * prior.den + BigInt(k) * prior.num
  const den = (BigInt(counts.impressions) + BigInt(k)) * prior.den
  return num >= den ? ONE : reduced(num, den)
}

/** The surface's platform-wide CTR of click campaigns, shrunk toward CTR_PRIOR. */
export function platformCtr(platform: CtrCounts): Fraction {
  return shrink(platform, PLATFORM_PSEUDO_IMPRESSIONS, CTR_PRIOR)
}

/** A click campaign's estimated CTR on a surface, from its counts and the surface's platform-wide counts there. */
export function estimateCtr(campaign: CtrCounts, platform: CtrCounts): Fraction {
  return shrink(campaign, CAMPAIGN_PSEUDO_IMPRESSIONS, platformCtr(platform))
}

/** Observed counts per surface: each click campaign's (by id), and the platform's over every click campaign. */
export interface ClickCtrCounts {
  campaigns: ReadonlyMap<string, Record<Surface, CtrCounts>>
  platform: Record<Surface, CtrCounts>
}

const NONE: CtrCounts = { impressions: 0, clicks: 0 }
const perSurface = <T>(f: (surface: Surface) => T): Record<Surface, T> => ({ extension: f('extension'), terminal: f('terminal') })

/**
 * The CTR the auction ranks each click campaign with on a surface, from the observed counts (null
 * when none were read: no click campaign serves). A campaign with nothing observed, or `null` (a
 * bid not placed yet), gets a new click campaign's estimate there. Each estimate is worked out once.
 */
export function ctrEstimates(counts: ClickCtrCounts | null): (campaignId: string | null, surface: Surface) => Fraction {
  const platform = counts?.platform ?? perSurface(() => NONE)
  const fresh = perSurface((s) => estimateCtr(NONE, platform[s]))
  const own = new Map<string, Record<Surface, Fraction>>()
  for (const [id, c] of counts?.campaigns ?? []) own.set(id, perSurface((s) => estimateCtr(c[s], platform[s])))
  return (campaignId, surface) => (campaignId === null ? undefined : own.get(campaignId)?.[surface]) ?? fresh[surface]
}

/** a compared to b: negative, zero or positive (exact). */
export function compareFractions(a: Fraction, b: Fraction): number {
  const l = a.num * b.den
  const r = b.num * a.den
  return l < r ? -1 : l > r ? 1 : 0
}
