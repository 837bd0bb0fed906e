import { judgeViews, viewerSlot, type LedgerState, type NotBillable, type ViewOutcome, type ViewToJudge } from '../domain/delivery.ts'
import type { Db } from '../store/db.ts'
import { EventColumns, isRace, lockCampaigns, readLedgerState, writeBatch, type LedgerCampaign, type LedgerRow } from '../store/ledger.ts'
import type { Offer } from './offer-token.ts'

export interface ViewClaim {
  impressionId: string
  offer: Offer
  dwellMs: number
  /** Set when a store-free rule already made the view non-billable. */
  reason: NotBillable | null
}

/**
 * What this instance already knows, from its own committed batches and its
 * auction index. A batch is judged from it first, without a read; the write
 * re-checks everything against the store, so stale knowledge only costs a
 * retry that reads the store.
 */
export interface KnownState {
  /** Last billable instant per viewer slot (`viewerSlot`) committed by this instance. */
  lastBillableMs: ReadonlyMap<string, number>
  /** Inventory and price of a campaign that is serving (not cancelled), or undefined. */
  campaign(campaignId: string): { impressions: number; billed: number; cpmMicros: number } | undefined
}

export interface BatchResult {
  views: ViewOutcome[]
  /** Viewer slots that got a billable impression in this batch. */
  billedSlots: string[]
  /** Authoritative billed totals of the campaigns this batch billed. */
  billed: Map<string, number>
  completed: string[]
  /** Statements re-run because a concurrent batch overtook this one's reads. */
  retries: number
}

export interface LedgerBatch {
  offers: LedgerRow[]
  clicks: LedgerRow[]
  views: ViewClaim[]
}

function eventRow(type: LedgerRow['event_type'], impressionId: string, offer: Offer, at: Date): LedgerRow {
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
  }
}

export const offerRow = (impressionId: string, offer: Offer, at: Date) => eventRow('offer', impressionId, offer, at)
export const clickRow = (impressionId: string, offer: Offer, at: Date) => eventRow('click', impressionId, offer, at)

/** Optimistic attempts before the batch takes the campaigns' row locks before reading. */
const OPTIMISTIC_ATTEMPTS = 3
const MAX_ATTEMPTS = 10

/**
 * Commits one group of ledger events (group commit) in two round trips: one
 * statement reads what the views are judged against (repeats, each viewer's
 * last billable instant, the campaigns' inventory: `readLedgerState`), the
 * domain judges them (`judgeViews`), and one statement writes everything and
 * commits: the events, the campaigns' billed totals and spend (completing a
 * campaign whose last block is exhausted), block status changes and the
 * viewers' last billable instants (`writeBatch`).
 *
 * No lock is held between the two: the write statement re-checks what the
 * judgment relied on (inventory, the ten-second rule, repeats, cancellation
 * and price: src/store/ledger.ts#writeBatch), and aborts as a whole when a
 * concurrent batch (another instance, or this one's other batch in flight)
 * overtook it, after which the batch is read and judged again. The debits
 * are not part of the judgment: the write prices each impression under the
 * campaign's row lock, so a batch overtaken by another never needs a retry
 * for its prices. After a few such aborts the batch locks its campaigns
 * before reading, so it cannot be overtaken on inventory again.
 */
export async function commitLedgerBatch(db: Db, now: Date, batch: LedgerBatch, known?: KnownState): Promise<BatchResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      const result =
        attempt === 1
          ? await judgeAndWrite(db, now, batch, known)
          : attempt <= OPTIMISTIC_ATTEMPTS
            ? await judgeAndWrite(db, now, batch)
            : await db.transaction().execute(async (trx) => {
                await lockCampaigns(trx, batch.views.map((v) => v.offer.campaignId))
                return judgeAndWrite(trx, now, batch)
              })
      result.retries = attempt - 1
      return result
    } catch (err) {
      if (!isRace(err) || attempt >= MAX_ATTEMPTS) throw err
    }
  }
}

/** The batch's state from what this instance knows, or null when it does not know every campaign. */
function stateFromKnown(known: KnownState, views: ViewClaim[]): LedgerState<LedgerCampaign> | null {
  const campaigns = new Map<string, LedgerCampaign>()
  for (const v of views) {
    if (v.reason || campaigns.has(v.offer.campaignId)) continue
    const c = known.campaign(v.offer.campaignId)
    if (!c) return null
    campaigns.set(v.offer.campaignId, { ...c, cancelledAtMs: null })
  }
  // Repeats are not known here: the unique index finds them, and a billable repeat aborts the write.
  return { recorded: new Set(), lastBillableMs: known.lastBillableMs, campaigns }
}

async function judgeAndWrite(db: Db, now: Date, batch: LedgerBatch, known?: KnownState): Promise<BatchResult> {
  const nowMs = now.getTime()
  const toJudge = batch.views.map(
    (v): ViewToJudge => ({
      impressionId: v.impressionId,
      campaignId: v.offer.campaignId,
      viewerKey: v.offer.viewerKey,
      surface: v.offer.surface,
      offeredAtMs: v.offer.offeredAtMs,
      reason: v.reason,
    }),
  )
  const fromKnown = known && batch.views.length > 0 ? stateFromKnown(known, batch.views) : null
  const state = fromKnown ?? (batch.views.length > 0 ? await readLedgerState(db, toJudge) : null)
  const outcomes = state ? judgeViews(toJudge, state, nowMs) : []

  const rows = new EventColumns()
  for (const r of batch.offers) rows.push(r, 0, null, null)
  for (const r of batch.clicks) rows.push(r, 0, null, null)
  let billable = 0
  batch.views.forEach((v, i) => {
    const o = outcomes[i]!
    if (!o.billable && o.reason === 'duplicate') return
    const row = eventRow(o.billable ? 'impression' : 'view', v.impressionId, v.offer, now)
    if (o.billable) billable++
    // An impression's debit depends on how many the campaign billed before it: the write prices it (writeBatch).
    rows.push(row, 0, v.dwellMs, o.billable ? null : o.reason)
  })

  // What the judgment relied on, re-checked by the write (campaigns this batch bills).
  const relied = [...new Set(batch.views.filter((_, i) => outcomes[i]!.billable).map((v) => v.offer.campaignId))]
  const written = await writeBatch(
    db,
    now,
    rows,
    relied.map((id) => ({ id, ...state!.campaigns.get(id)! })),
    billable,
    // Clicks repeat often (a double click): a batch carrying them keeps dropping repeats quietly.
    fromKnown !== null && batch.clicks.length === 0 ? 'fail' : 'skip',
  )

  const lost = new Set(written.lost ?? [])
  const views = outcomes.map((o, i): ViewOutcome => (!(!o.billable && o.reason === 'duplicate') && lost.has(batch.views[i]!.impressionId) ? { billable: false, reason: 'duplicate' } : o))
  const billed = new Map<string, number>()
  const completed: string[] = []
  for (const [id, total, impressions] of written.campaigns ?? []) {
    billed.set(id, total)
    if (total >= impressions) completed.push(id)
  }
  const billedSlots = batch.views.flatMap((v, i) => (views[i]!.billable ? [viewerSlot(v.offer.viewerKey, v.offer.surface)] : []))
  return { views, billedSlots, billed, completed, retries: 0 }
}
