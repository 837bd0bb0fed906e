import type { NonBillableReason, ViewOutcome } from '../domain/delivery.ts'
import type { ClickOutcome } from '../domain/clicks.ts'
import type { SourceLimits } from '../domain/invalid-traffic.ts'
import type { Source } from '../domain/traffic-source.ts'
import type { LedgerRow } from '../store/ledger.ts'
import type { Offer } from './offer-token.ts'
import { SourceTally } from './source-tally.ts'

/**
 * What a group-commit batch of the ledger carries and answers (ledger-batch.ts commits it): the
 * view and click claims the writer gathered, their outcomes, what the instance already knows from
 * its own batches, and the ledger rows an offer's events become.
 */

export interface ViewClaim {
  impressionId: string
  offer: Offer
  dwellMs: number
  /** Set when a store-free rule (dwell, the block list, attestation) already made the view non-billable. */
  reason: NonBillableReason | null
  /** The invalid-traffic bounds in force when the view arrived. */
  limits: SourceLimits
  /** The valid Privacy Pass token the view carried (its nonce is claimed with the billable row); absent or null: not attested. */
  token?: AttestationToken | null
}

/** A token that passed every check but "never spent" (src/serving/issuer-keys.ts): its bytes, and its nonce in hex. */
export interface AttestationToken {
  bytes: Buffer
  nonce: string
}

/**
 * What this instance already knows from its own committed batches. A batch is judged from it first,
 * without a read; the write re-checks everything against the store, so stale knowledge only costs a
 * retry that reads the store. Inventory, price and cancellation come from the instance's leases
 * (`LeaseBook`).
 */
export interface KnownState {
  /** Last billable instant per viewer slot (`viewerSlot`) committed by this instance. */
  lastBillableMs: ReadonlyMap<string, number>
  /** The sources' use of their invalid-traffic bounds, as far as this instance knows it. */
  sources: SourceTally
}

/** What an instance knows before its first batch: nothing. */
export const noKnownState = (): KnownState => ({ lastBillableMs: new Map(), sources: new SourceTally() })

/** A click: the viewer is redirected once it is durable. */
export interface ClickClaim {
  impressionId: string
  offer: Offer
  /** The source or viewer is on the operators' block list. */
  blocked: boolean
  /** The invalid-traffic bounds in force when the click arrived. */
  limits: SourceLimits
}

/** What became of a click: judged on a click campaign (`judgeClicks`), or recorded on an impression campaign, where clicks bill nothing. */
export type ClickResult = ClickOutcome | { billable: false; reason: 'impression_campaign' }

export interface BatchResult {
  views: ViewOutcome[]
  clicks: ClickResult[]
  /** Viewer slots that got a billable impression in this batch. */
  billedSlots: string[]
  /** The billable units (impressions and billable clicks) of the batch that have a source. */
  units: { source: Source; viewerKey: string }[]
  /** Units this batch billed, per campaign: impressions, or clicks for a click campaign. */
  billed: Map<string, number>
  /** The batch ended a block or a campaign, and its leases were settled before it was answered. */
  settled: boolean
  /** Statements re-run because the store moved under this one's judgment. */
  retries: number
}

export interface LedgerBatch {
  clicks: ClickClaim[]
  views: ViewClaim[]
}

/** The ledger row of one event of `offer` at `at`: not billable, with no dwell and no reason (the caller sets them). */
export function eventRow(type: LedgerRow['event_type'], impressionId: string, offer: Offer, at: Date): LedgerRow {
  return {
    occurred_at: at,
    event_type: type,
    impression_id: impressionId,
    user_id: offer.userId,
    campaign_id: offer.campaignId,
    creative_id: offer.creativeId,
    surface: offer.surface,
    country: offer.country,
    billable: false,
    dwell_ms: null,
    reason: null,
    viewer_key: offer.viewerKey,
    source: offer.source,
    offer_age_ms: Math.max(0, Math.min(2 ** 31 - 1, at.getTime() - offer.offeredAtMs)),
    topic: offer.topic ?? null,
  }
}

/** A repeat or late view report (never billable), carrying its reason and the dwell it claimed. */
export const viewReportRow = (reason: 'repeat' | 'expired', impressionId: string, offer: Offer, at: Date, dwellMs: number): LedgerRow => ({
  ...eventRow(reason === 'repeat' ? 'repeat_view' : 'expired_view', impressionId, offer, at),
  dwell_ms: dwellMs,
  reason,
})
