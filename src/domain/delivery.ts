import type { SourceBudget } from './invalid-traffic.ts'
import type { Source } from './traffic-source.ts'

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

/**
 * Why a recorded view is not billable: the one vocabulary of the ledger's `reason`, /v1/stats
 * (`non_billable`), the ledger-export-v3 column `non_billable_reason` and /metrics.
 *  - short_dwell: dwell under 9.5 s;
 *  - repeat: the view of an impression already measured was reported again (recorded once per impression);
 *  - too_fast: the claimed dwell is longer than the time since the offer plus the tolerance;
 *  - viewer_frequency: the viewer had a billable impression on this surface in the last ten seconds;
 *  - expired: the view was reported after the offer's hour (answered 410; recorded once per impression);
 *  - block_full: the campaign has no inventory left to bill (used up, or cancelled before the offer);
 *  - invalid_traffic: the view's source was past its bounds, or the source or viewer is on the operators'
 *    block list (domain/invalid-traffic.ts; docs/invalid-traffic.md);
 *  - unattested: attestation is `required` and the view carried no Privacy Pass token (domain/attestation.ts);
 *  - invalid_token: the view's token was spent already, malformed, or of a key unknown or past its
 *    redemption window (docs/attestation.md).
 */
export const NON_BILLABLE_REASONS = [
  'short_dwell',
  'repeat',
  'too_fast',
  'viewer_frequency',
  'expired',
  'block_full',
  'invalid_traffic',
  'unattested',
  'invalid_token',
] as const
export type NonBillableReason = (typeof NON_BILLABLE_REASONS)[number]
/** One count per reason, every key present. */
export type NonBillableCounts = Record<NonBillableReason, number>

export const noNonBillable = (): NonBillableCounts => ({
  short_dwell: 0,
  repeat: 0,
  too_fast: 0,
  viewer_frequency: 0,
  expired: 0,
  block_full: 0,
  invalid_traffic: 0,
  unattested: 0,
  invalid_token: 0,
})

/**
 * Reason strings written to ledger `view` rows before issue 25, with the reason each is read as.
 * The ledger is append-only, so old rows keep their strings and every read maps them
 * (src/store/ledger-sums.ts, the v3 export); new rows are written with the current names.
 */
export const LEGACY_REASONS: Readonly<Record<string, NonBillableReason>> = {
  dwell_exceeds_elapsed: 'too_fast',
  inventory_exhausted: 'block_full',
  campaign_cancelled: 'block_full',
}

/** Every stored `reason` string read as `reason`: its own name and its legacy names. */
export function storedReasons(reason: NonBillableReason): string[] {
  return [reason, ...Object.keys(LEGACY_REASONS).filter((old) => LEGACY_REASONS[old] === reason)]
}

/** The /metrics label of a view request that opens to no offer (404): recorded nowhere, so not a reason above. */
export const UNKNOWN_IMPRESSION = 'unknown_impression'

/** The per-view checks that need no store state. */
export function assessDwell(dwellMs: number, offeredAtMs: number, nowMs: number): 'short_dwell' | 'too_fast' | null {
  if (dwellMs < BILLABLE_DWELL_MS) return 'short_dwell'
  if (dwellMs > nowMs - offeredAtMs + DWELL_TOLERANCE_MS) return 'too_fast'
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

/** A block's delivery state; blocks are served in order. */
export const BLOCK_STATUSES = ['queued', 'serving', 'exhausted'] as const
export type BlockStatus = (typeof BLOCK_STATUSES)[number]

/** Block progress derived from the campaign's billed total (blocks fill in order). */
export function blockServed(blockIndex: number, blockSize: number, billed: number): number {
  return Math.max(0, Math.min(blockSize, billed - blockIndex * blockSize))
}

export type ViewOutcome = { billable: true } | { billable: false; reason: NonBillableReason }

export interface ViewToJudge {
  impressionId: string
  campaignId: string
  viewerKey: string
  surface: string
  /** The source that asked for the offer (null for an id sealed before sources were). */
  source: Source | null
  offeredAtMs: number
  /** Set when a store-free rule (assessDwell, the block list, attestation) already made the view non-billable. */
  reason: NonBillableReason | null
  /** The nonce (hex) of the valid Privacy Pass token the view carried; null: not attested. */
  nonce: string | null
}

export interface CampaignInventory {
  impressions: number
  billed: number
  cancelledAtMs: number | null
}

/** What the store knew when the batch was read. */
export interface LedgerState<C extends CampaignInventory = CampaignInventory> {
  /** Impressions that already have a measured view. */
  recorded: ReadonlySet<string>
  /** Last billable instant per `viewerKey|surface`. */
  lastBillableMs: ReadonlyMap<string, number>
  /** Nonces (hex) of the batch's tokens already spent on a billable view. */
  spentNonces: ReadonlySet<string>
  campaigns: ReadonlyMap<string, C>
}

export const viewerSlot = (viewerKey: string, surface: string) => `${viewerKey}|${surface}`

/**
 * Judges one batch of measured views, in arrival order, against the store's
 * state: a repeat of a measured impression is a `repeat` (not written with the batch: the
 * serving engine records it apart, once per impression);
 * otherwise the view is billable unless its dwell failed, the viewer had a
 * billable impression on this surface in the last ten seconds, the view's
 * source is past its bounds (`invalid_traffic`, from `sources` when given; only a view that bills
 * counts against them, and an attested view is exempt), its token was spent already (by an earlier
 * view or earlier in the batch: `invalid_token`), the campaign was cancelled before the offer or its inventory is used up
 * (`block_full`). Only a billable view takes the viewer's ten-second slot.
 */
export function judgeViews(views: readonly ViewToJudge[], state: LedgerState, nowMs: number, sources?: SourceBudget): ViewOutcome[] {
  const seen = new Set<string>()
  const billedNow = new Set<string>() // slots billed earlier in this batch (at nowMs)
  const granted = new Map<string, number>()
  const spentNow = new Set<string>()
  return views.map((v): ViewOutcome => {
    if (state.recorded.has(v.impressionId) || seen.has(v.impressionId)) return { billable: false, reason: 'repeat' }
    seen.add(v.impressionId)
    if (v.reason) return { billable: false, reason: v.reason }
    const slot = viewerSlot(v.viewerKey, v.surface)
    const last = state.lastBillableMs.get(slot)
    if (billedNow.has(slot) || (last !== undefined && nowMs - last < VIEWER_FREQUENCY_MS)) return { billable: false, reason: 'viewer_frequency' }
    if (v.nonce !== null && (state.spentNonces.has(v.nonce) || spentNow.has(v.nonce))) return { billable: false, reason: 'invalid_token' }
    // A source past its bounds comes before inventory: such a view never bills, whatever is left. An
    // attested view is bounded by its account's tokens instead (docs/attestation.md).
    if (v.nonce === null && sources && !sources.admits(v.source, v.viewerKey)) return { billable: false, reason: 'invalid_traffic' }
    const c = state.campaigns.get(v.campaignId)
    // A campaign unknown to the leases or cancelled before the offer has no inventory left to bill.
    if (!c) return { billable: false, reason: 'block_full' }
    if (c.cancelledAtMs !== null && v.offeredAtMs >= c.cancelledAtMs) return { billable: false, reason: 'block_full' }
    const taken = granted.get(v.campaignId) ?? 0
    if (allocate(taken + 1, c.impressions, c.billed) <= taken) return { billable: false, reason: 'block_full' }
    if (v.nonce === null) sources?.take(v.source, v.viewerKey)
    else spentNow.add(v.nonce)
    granted.set(v.campaignId, taken + 1)
    billedNow.add(slot)
    return { billable: true }
  })
}
