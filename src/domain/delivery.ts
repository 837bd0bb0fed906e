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

export const NOT_BILLABLE = ['short_dwell', 'dwell_exceeds_elapsed', 'viewer_frequency', 'inventory_exhausted', 'campaign_cancelled'] as const
export type NotBillable = (typeof NOT_BILLABLE)[number]
/** Why a view request records nothing billable beyond NOT_BILLABLE: a repeat, an offer past its hour, an impression id that opens to nothing. */
export const VIEW_REJECTIONS = ['duplicate', 'offer_expired', 'unknown_impression'] as const

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

/** A block's delivery state; blocks are served in order. */
export const BLOCK_STATUSES = ['queued', 'serving', 'exhausted'] as const
export type BlockStatus = (typeof BLOCK_STATUSES)[number]

/** Block progress derived from the campaign's billed total (blocks fill in order). */
export function blockServed(blockIndex: number, blockSize: number, billed: number): number {
  return Math.max(0, Math.min(blockSize, billed - blockIndex * blockSize))
}

export type ViewOutcome = { billable: true } | { billable: false; reason: NotBillable | 'duplicate' }

export interface ViewToJudge {
  impressionId: string
  campaignId: string
  viewerKey: string
  surface: string
  offeredAtMs: number
  /** Set when a store-free rule (assessDwell) already made the view non-billable. */
  reason: NotBillable | null
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
  campaigns: ReadonlyMap<string, C>
}

export const viewerSlot = (viewerKey: string, surface: string) => `${viewerKey}|${surface}`

/**
 * Judges one batch of measured views, in arrival order, against the store's
 * state: a repeat of a measured impression is a duplicate (recorded nowhere);
 * otherwise the view is billable unless its dwell failed, the viewer had a
 * billable impression on this surface in the last ten seconds, the campaign
 * was cancelled before the offer, or the campaign's inventory is used up.
 * Only a billable view takes the viewer's ten-second slot.
 */
export function judgeViews(views: readonly ViewToJudge[], state: LedgerState, nowMs: number): ViewOutcome[] {
  const seen = new Set<string>()
  const billedNow = new Set<string>() // slots billed earlier in this batch (at nowMs)
  const granted = new Map<string, number>()
  return views.map((v): ViewOutcome => {
    if (state.recorded.has(v.impressionId) || seen.has(v.impressionId)) return { billable: false, reason: 'duplicate' }
    seen.add(v.impressionId)
    if (v.reason) return { billable: false, reason: v.reason }
    const slot = viewerSlot(v.viewerKey, v.surface)
    const last = state.lastBillableMs.get(slot)
    if (billedNow.has(slot) || (last !== undefined && nowMs - last < VIEWER_FREQUENCY_MS)) return { billable: false, reason: 'viewer_frequency' }
    const c = state.campaigns.get(v.campaignId)
    if (!c) return { billable: false, reason: 'inventory_exhausted' }
    if (c.cancelledAtMs !== null && v.offeredAtMs >= c.cancelledAtMs) return { billable: false, reason: 'campaign_cancelled' }
    const taken = granted.get(v.campaignId) ?? 0
    if (allocate(taken + 1, c.impressions, c.billed) <= taken) return { billable: false, reason: 'inventory_exhausted' }
    granted.set(v.campaignId, taken + 1)
    billedNow.add(slot)
    return { billable: true }
  })
}
