/**
 * When a click on a click campaign is billable
 * (docs/decisions/0104-a-billable-click.md): the first click of an impression, on an offer younger than the view window, at most
 * one per viewer per campaign per UTC day of the service clock, never on an offer made after the
 * campaign was cancelled, and never beyond the clicks the campaign bought. A click on an impression
 * campaign is recorded and never billable.
 */
import { allocate, offerExpired, type CampaignInventory } from './delivery.ts'
import type { SourceBudget } from './invalid-traffic.ts'
import type { Source } from './traffic-source.ts'

/**
 * Why a click campaign's click is recorded but not billed: the views' names (domain/delivery.ts,
 * NON_BILLABLE_REASONS) for the same causes; a campaign cancelled before the offer, like a used-up
 * one, has nothing left to bill (`block_full`).
 */
export const CLICK_NOT_BILLABLE = ['expired', 'viewer_frequency', 'block_full', 'invalid_traffic'] as const
export type ClickNotBillable = (typeof CLICK_NOT_BILLABLE)[number]
/** Every reason a redirected click is not billed (the /metrics labels): the judged ones, a repeat, and any click on an impression campaign. */
export const CLICK_UNBILLED_REASONS = [...CLICK_NOT_BILLABLE, 'repeat', 'impression_campaign'] as const

/**
 * A click's fate: billable, recorded with a reason, or a repeat of the impression's first click
 * (recorded nowhere: one click row per impression, operations.md section 2).
 */
export type ClickOutcome = { billable: true } | { billable: false; reason: ClickNotBillable | 'repeat' }

export interface ClickToJudge {
  impressionId: string
  campaignId: string
  viewerKey: string
  /** The source that asked for the offer (null for an id sealed before sources were). */
  source: Source | null
  /** The source or viewer is on the operators' block list. */
  blocked: boolean
  offeredAtMs: number
}

/** What the store knew about a batch's clicks on click campaigns. */
export interface ClickState {
  /** Impressions that already have a click. */
  clicked: ReadonlySet<string>
  /** `clickDaySlot`s that already have a billable click. */
  billedDays: ReadonlySet<string>
  /** The campaigns' inventory: for a batch, the room its leases give (`billed` 0). */
  campaigns: ReadonlyMap<string, CampaignInventory>
}

/** The UTC day (YYYY-MM-DD) of an instant of the service clock. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

export const clickDaySlot = (campaignId: string, viewerKey: string, day: string) => `${campaignId}|${viewerKey}|${day}`

/**
 * Judges one batch of clicks on click campaigns, in arrival order: a repeat of an impression's click
 * (already recorded, or earlier in the batch) is a repeat; otherwise the click is billable unless its
 * offer is past the view window, the campaign was cancelled before the offer, the viewer already has
 * a billable click on the campaign this UTC day, the campaign's inventory (its clicks left) is
 * used up, or the source is blocked or past its bounds (`invalid_traffic`, spent from `sources` when
 * given). Only a billable click takes the viewer's day.
 */
export function judgeClicks(clicks: readonly ClickToJudge[], state: ClickState, nowMs: number, sources?: SourceBudget): ClickOutcome[] {
  const day = utcDay(nowMs)
  const seen = new Set<string>()
  const days = new Set<string>()
  const granted = new Map<string, number>()
  return clicks.map((k): ClickOutcome => {
    if (state.clicked.has(k.impressionId) || seen.has(k.impressionId)) return { billable: false, reason: 'repeat' }
    seen.add(k.impressionId)
    if (offerExpired(k.offeredAtMs, nowMs)) return { billable: false, reason: 'expired' }
    const c = state.campaigns.get(k.campaignId)
    if (c && c.cancelledAtMs !== null && k.offeredAtMs >= c.cancelledAtMs) return { billable: false, reason: 'block_full' }
    const slot = clickDaySlot(k.campaignId, k.viewerKey, day)
    if (state.billedDays.has(slot) || days.has(slot)) return { billable: false, reason: 'viewer_frequency' }
    if (k.blocked || (sources && !sources.admits(k.source, k.viewerKey))) return { billable: false, reason: 'invalid_traffic' }
    const taken = granted.get(k.campaignId) ?? 0
    if (!c || allocate(taken + 1, c.impressions, c.billed) <= taken) return { billable: false, reason: 'block_full' }
    sources?.take(k.source, k.viewerKey)
    granted.set(k.campaignId, taken + 1)
    days.add(slot)
    return { billable: true }
  })
}
