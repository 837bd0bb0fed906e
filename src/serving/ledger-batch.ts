import { judgeViews, viewerSlot, type CampaignInventory, type NonBillableReason, type ViewOutcome, type ViewToJudge } from '../domain/delivery.ts'
import type { Db } from '../store/db.ts'
import { EventColumns, isRace, readLedgerState, writeBatch, type LedgerRow } from '../store/ledger.ts'
import type { LeaseBook } from './leases.ts'
import type { Offer } from './offer-token.ts'

export interface ViewClaim {
  impressionId: string
  offer: Offer
  dwellMs: number
  /** Set when a store-free rule already made the view non-billable. */
  reason: NonBillableReason | null
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
}

export interface BatchResult {
  views: ViewOutcome[]
  /** Viewer slots that got a billable impression in this batch. */
  billedSlots: string[]
  /** Impressions this batch billed, per campaign. */
  billed: Map<string, number>
  /** The batch ended a block or a campaign, and its leases were settled before it was answered. */
  settled: boolean
  /** Statements re-run because the store moved under this one's judgment. */
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
/** A repeat or late view report (never billable), carrying its reason and the dwell it claimed. */
export const viewReportRow = (reason: 'repeat' | 'expired', impressionId: string, offer: Offer, at: Date, dwellMs: number): LedgerRow => ({
  ...eventRow(reason === 'repeat' ? 'repeat_view' : 'expired_view', impressionId, offer, at),
  dwell_ms: dwellMs,
  reason,
})

const MAX_ATTEMPTS = 10

/**
 * Commits one group of ledger events (group commit). Views are judged (`judgeViews`) on what this
 * instance knows or one read of the store (`readLedgerState`: repeats, each viewer's last billable
 * instant), and on its impression budget leases for inventory, price and cancellation: a campaign
 * lacking room for the batch's billable views is granted more first (`LeaseBook#ensure`, one
 * transaction for all of them). Each billable impression bills the next number of a lease, priced
 * here (`impressionDebitMicros(cpm, n)`), and one statement writes the events, the leases' `used`
 * and the viewers' last billable instants (`store/ledger.ts#writeBatch`).
 *
 * No lock is held between judging and writing: the statement re-checks what the judgment relied on
 * and aborts as a whole when the store moved (a repeat, a viewer billed elsewhere, a lease revoked
 * or taken over), after which the leases are read again and the batch judged again from the store.
 * A batch that bills the last number of a block or campaign settles the leases before it resolves,
 * so block statuses and completion follow at once.
 */
export async function commitLedgerBatch(db: Db, now: Date, batch: LedgerBatch, book: LeaseBook, known?: KnownState): Promise<BatchResult> {
  if (batch.views.length === 0) {
    const rows = new EventColumns()
    for (const r of batch.offers) rows.push(r, 0, null, null)
    for (const r of batch.clicks) rows.push(r, 0, null, null)
    await writeBatch(db, now, rows, book.holder, [], 0, 'skip')
    return { views: [], billedSlots: [], billed: new Map(), settled: false, retries: 0 }
  }
  return book.exclusive(async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await judgeAndWrite(db, now, batch, book, attempt === 1 ? known : undefined)
        result.retries = attempt - 1
        return result
      } catch (err) {
        if (!isRace(err) || attempt >= MAX_ATTEMPTS) throw err
        await book.reload(db)
      }
    }
  })
}

async function judgeAndWrite(db: Db, now: Date, batch: LedgerBatch, book: LeaseBook, known?: KnownState): Promise<BatchResult> {
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
  // Repeats are not known here: the unique index finds them, and a repeat aborts the write.
  const seen = known ? { recorded: new Set<string>(), lastBillableMs: known.lastBillableMs } : await readLedgerState(db, toJudge)
  // What the batch would bill with unbounded inventory: the room its leases need.
  const unbounded = new Map<string, CampaignInventory>()
  for (const v of toJudge) unbounded.set(v.campaignId, { impressions: Infinity, billed: 0, cancelledAtMs: book.campaign(v.campaignId)?.cancelledAtMs ?? null })
  const demand = new Map<string, number>()
  judgeViews(toJudge, { ...seen, campaigns: unbounded }, nowMs).forEach((o, i) => {
    if (o.billable) demand.set(toJudge[i]!.campaignId, (demand.get(toJudge[i]!.campaignId) ?? 0) + 1)
  })
  await book.ensure(db, demand, now)
  const campaigns = new Map<string, CampaignInventory>()
  for (const id of unbounded.keys()) {
    const c = book.campaign(id)
    if (c) campaigns.set(id, { impressions: book.room(id), billed: 0, cancelledAtMs: c.cancelledAtMs })
  }
  const outcomes = judgeViews(toJudge, { ...seen, campaigns }, nowMs)

  const billedBy = new Map<string, number>()
  outcomes.forEach((o, i) => {
    if (o.billable) billedBy.set(toJudge[i]!.campaignId, (billedBy.get(toJudge[i]!.campaignId) ?? 0) + 1)
  })
  const taken = new Map([...billedBy].map(([id, n]) => [id, book.take(id, n)]))
  const next = new Map([...taken.keys()].map((id) => [id, 0]))

  const rows = new EventColumns()
  for (const r of batch.offers) rows.push(r, 0, null, null)
  for (const r of batch.clicks) rows.push(r, 0, null, null)
  let billable = 0
  batch.views.forEach((v, i) => {
    const o = outcomes[i]!
    // A repeat is recorded apart (ServingEngine#view), once per impression, off this batch.
    if (!o.billable && o.reason === 'repeat') return
    const row = eventRow(o.billable ? 'impression' : 'view', v.impressionId, v.offer, now)
    let debit = 0
    if (o.billable) {
      billable++
      const k = next.get(v.offer.campaignId)!
      debit = taken.get(v.offer.campaignId)!.debits[k]!
      next.set(v.offer.campaignId, k + 1)
    }
    rows.push(row, debit, v.dwellMs, o.billable ? null : o.reason)
  })

  const written = await writeBatch(
    db,
    now,
    rows,
    book.holder,
    [...taken.values()].flatMap((t) => t.takes),
    billable,
    // Clicks repeat often (a double click): a batch carrying them keeps dropping repeats quietly.
    known !== undefined && batch.clicks.length === 0 ? 'fail' : 'skip',
  )
  for (const [id, t] of taken) book.commit(id, t)
  // Committed: a failed settlement must not fail (and retry) the batch; the settle timer catches up.
  const finished = [...taken].filter(([, t]) => t.endsCampaign).map(([id]) => id)
  const settled = [...taken.values()].some((t) => t.endsBlock) && (await book.settle(db, now, false, finished).then(() => true, () => false))

  const lost = new Set(written.lost ?? [])
  const views = outcomes.map((o, i): ViewOutcome => (!(!o.billable && o.reason === 'repeat') && lost.has(batch.views[i]!.impressionId) ? { billable: false, reason: 'repeat' } : o))
  const billedSlots = batch.views.flatMap((v, i) => (views[i]!.billable ? [viewerSlot(v.offer.viewerKey, v.offer.surface)] : []))
  return { views, billedSlots, billed: billedBy, settled, retries: 0 }
}
