/**
 * The live auction (operations.md section 2). Among eligible campaigns the
 * highest CPM wins; equal bids go to the campaign created first (creation
 * sequence, not timestamp). A cheaper bid serves only when every better one
 * is ineligible.
 */
export type Surface = 'extension' | 'terminal'

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

/** Best first: CPM descending, then creation order. */
export function rank(candidates: Candidate[]): Candidate[] {
  return [...candidates].sort((a, b) => b.cpmMicros - a.cpmMicros || a.seq - b.seq)
}

/**
 * Pacing: a campaign with pace P minutes and N impressions may not have
 * delivered more than N × elapsed / P, elapsed counted from first activation
 * with paused time excluded. It may serve while delivered < N × elapsed / P
 * (exact integer arithmetic).
 */
export function paceAllows(c: Candidate, nowMs: number): boolean {
  if (c.paceMinutes === null) return true
  if (c.activatedAtMs === null) return false
  const elapsedMs = Math.max(0, nowMs - c.activatedAtMs - c.pausedMs)
  const paceMs = c.paceMinutes * 60_000
  if (elapsedMs >= paceMs) return true
  return c.billed * paceMs < c.impressions * elapsedMs
}

export function isEligible(c: Candidate, request: DecisionRequest, nowMs: number): boolean {
  if (c.billed >= c.impressions) return false
  if (c.targetSurface !== 'blended' && c.targetSurface !== request.surface) return false
  if (c.targetCountries !== null && (request.country === null || !c.targetCountries.has(request.country))) return false
  return paceAllows(c, nowMs)
}

/** The winner among `ranked` (already in auction order), or null when nothing is eligible. */
export function runAuction(ranked: readonly Candidate[], request: DecisionRequest, nowMs: number): Candidate | null {
  for (const c of ranked) if (isEligible(c, request, nowMs)) return c
  return null
}
