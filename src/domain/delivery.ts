/**
 * When a measured view is billable (operations.md section 2, advertiser spec
 * section 1): dwell of at least 9.5 s, no more than the service-clock time
 * since the offer plus one second, at most one billable impression per viewer
 * per surface per ten seconds, and never beyond what the campaign bought.
 */
export const BILLABLE_DWELL_MS = 9_500
export const DWELL_TOLERANCE_MS = 1_000
export const OFFER_TTL_MS = 3_600_000
export const VIEWER_FREQUENCY_MS = 10_000

export type NotBillable = 'short_dwell' | 'dwell_exceeds_elapsed' | 'viewer_frequency' | 'inventory_exhausted' | 'campaign_cancelled'

/** The per-view checks that need no store state. */
export function assessDwell(dwellMs: number, offeredAtMs: number, nowMs: number): NotBillable | null {
  if (dwellMs < BILLABLE_DWELL_MS) return 'short_dwell'
  if (dwellMs > nowMs - offeredAtMs + DWELL_TOLERANCE_MS) return 'dwell_exceeds_elapsed'
  return null
}

export function offerExpired(offeredAtMs: number, nowMs: number): boolean {
  return nowMs - offeredAtMs > OFFER_TTL_MS
}

/**
 * Splits `claims` billable candidates of one campaign against its remaining
 * inventory: the first `remaining` win, in arrival order.
 */
export function allocate(claims: number, impressions: number, billed: number): number {
  return Math.max(0, Math.min(claims, impressions - billed))
}

/** Block progress derived from the campaign's billed total (blocks fill in order). */
export function blockServed(blockIndex: number, blockSize: number, billed: number): number {
  return Math.max(0, Math.min(blockSize, billed - blockIndex * blockSize))
}
