import { sql, type Insertable } from 'kysely'
import type { Db } from './db.ts'
import type { LedgerEventsTable } from './schema.ts'
import { allocate, VIEWER_FREQUENCY_MS, type NotBillable } from '../domain/delivery.ts'
import { impressionPriceMicros } from '../domain/money.ts'
import type { Offer } from '../serving/offer-token.ts'

export type LedgerRow = Insertable<LedgerEventsTable>

export interface ViewClaim {
  impressionId: string
  offer: Offer
  dwellMs: number
  /** Set when a store-free rule already made the view non-billable. */
  reason: NotBillable | null
}

export type ViewOutcome = { billable: true } | { billable: false; reason: NotBillable | 'duplicate' }

export interface BatchResult {
  views: ViewOutcome[]
  /** Authoritative billed totals of the campaigns this batch touched. */
  billed: Map<string, number>
  completed: string[]
}

function eventRow(
  type: LedgerRow['event_type'],
  impressionId: string,
  offer: Offer,
  now: Date,
  extra: Partial<LedgerRow> = {},
): LedgerRow {
  return {
    occurred_at: now,
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
    ...extra,
  }
}

export const offerRow = (impressionId: string, offer: Offer, at: Date) => eventRow('offer', impressionId, offer, at)
export const clickRow = (impressionId: string, offer: Offer, at: Date) => eventRow('click', impressionId, offer, at)

/**
 * Commits one group of ledger events in one transaction (group commit). Views
 * are decided here, under the row locks of the campaigns they bill:
 *  - one measured view per impression (a repeat is a no-op, in or across batches);
 *  - one billable impression per viewer per surface per ten seconds;
 *  - never more billable impressions than the campaign bought.
 */
export async function commitLedgerBatch(
  db: Db,
  now: Date,
  batch: { offers: LedgerRow[]; clicks: LedgerRow[]; views: ViewClaim[] },
): Promise<BatchResult> {
  return db.transaction().execute(async (trx) => {
    const simple = [...batch.offers, ...batch.clicks]
    if (simple.length > 0) {
      await trx.insertInto('ledger_events').values(simple).onConflict((oc) => oc.doNothing()).execute()
    }
    const result: BatchResult = { views: [], billed: new Map(), completed: [] }
    if (batch.views.length === 0) return result

    // Repeats: within this batch, and views already recorded by earlier batches.
    const ids = [...new Set(batch.views.map((v) => v.impressionId))]
    const recorded = new Set(
      (
        await trx
          .selectFrom('ledger_events')
          .select('impression_id')
          .where('event_type', 'in', ['impression', 'view'])
          .where('impression_id', 'in', ids)
          .execute()
      ).map((r) => r.impression_id),
    )
    const seen = new Set<string>()
    const outcomes: (ViewOutcome | null)[] = batch.views.map((v) => {
      if (recorded.has(v.impressionId) || seen.has(v.impressionId)) return { billable: false, reason: 'duplicate' }
      seen.add(v.impressionId)
      return v.reason ? { billable: false, reason: v.reason } : null
    })

    // Frequency: the last billable impression of each viewer and surface in the last ten seconds.
    const pendingIdx = outcomes.flatMap((o, i) => (o === null ? [i] : []))
    const lastBillable = new Map<string, number>()
    if (pendingIdx.length > 0) {
      const keys = [...new Set(pendingIdx.map((i) => batch.views[i]!.offer.viewerKey))]
      const rows = await trx
        .selectFrom('ledger_events')
        .select(['viewer_key', 'surface', sql<Date>`max(occurred_at)`.as('last')])
        .where('event_type', '=', 'impression')
        .where('viewer_key', 'in', keys)
        .where('occurred_at', '>', new Date(now.getTime() - VIEWER_FREQUENCY_MS))
        .groupBy(['viewer_key', 'surface'])
        .execute()
      for (const r of rows) lastBillable.set(`${r.viewer_key}|${r.surface}`, new Date(r.last).getTime())
    }
    for (const i of pendingIdx) {
      const o = batch.views[i]!.offer
      const key = `${o.viewerKey}|${o.surface}`
      const last = lastBillable.get(key)
      if (last !== undefined && now.getTime() - last < VIEWER_FREQUENCY_MS) outcomes[i] = { billable: false, reason: 'viewer_frequency' }
      else lastBillable.set(key, now.getTime())
    }

    // Inventory: lock the campaigns (in id order, so instances never deadlock) and allocate.
    const stillPending = outcomes.flatMap((o, i) => (o === null ? [i] : []))
    const campaignIds = [...new Set(stillPending.map((i) => batch.views[i]!.offer.campaignId))].sort()
    const campaigns = new Map(
      campaignIds.length === 0
        ? []
        : (
            await trx
              .selectFrom('campaigns')
              .select(['campaign_id', 'impressions', 'impressions_billed', 'cpm_micros', 'cancelled_at'])
              .where('campaign_id', 'in', campaignIds)
              .orderBy('campaign_id')
              .forUpdate()
              .execute()
          ).map((c) => [c.campaign_id, c]),
    )
    const granted = new Map<string, number>()
    for (const i of stillPending) {
      const offer = batch.views[i]!.offer
      const c = campaigns.get(offer.campaignId)
      if (!c) {
        outcomes[i] = { billable: false, reason: 'inventory_exhausted' }
        continue
      }
      if (c.cancelled_at !== null && offer.offeredAtMs >= c.cancelled_at.getTime()) {
        outcomes[i] = { billable: false, reason: 'campaign_cancelled' }
        continue
      }
      const taken = granted.get(c.campaign_id) ?? 0
      if (allocate(taken + 1, c.impressions, c.impressions_billed) > taken) {
        granted.set(c.campaign_id, taken + 1)
        outcomes[i] = { billable: true }
      } else {
        outcomes[i] = { billable: false, reason: 'inventory_exhausted' }
      }
    }

    // The measured views, billable or not; a concurrent instance's repeat loses on the unique index.
    const rows: LedgerRow[] = []
    batch.views.forEach((v, i) => {
      const o = outcomes[i]!
      if (!o.billable && o.reason === 'duplicate') return
      const c = campaigns.get(v.offer.campaignId)
      rows.push(
        o.billable
          ? eventRow('impression', v.impressionId, v.offer, now, {
              billable: true,
              debit_micros: impressionPriceMicros(c!.cpm_micros),
              dwell_ms: v.dwellMs,
            })
          : eventRow('view', v.impressionId, v.offer, now, { dwell_ms: v.dwellMs, reason: o.reason }),
      )
    })
    const inserted = rows.length
      ? await trx
          .insertInto('ledger_events')
          .values(rows)
          .onConflict((oc) => oc.doNothing())
          .returning(['impression_id', 'campaign_id', 'event_type'])
          .execute()
      : []
    const billedNow = new Map<string, number>()
    const insertedIds = new Set(inserted.map((r) => r.impression_id))
    for (const r of inserted) if (r.event_type === 'impression') billedNow.set(r.campaign_id, (billedNow.get(r.campaign_id) ?? 0) + 1)
    batch.views.forEach((v, i) => {
      if (outcomes[i]!.billable && !insertedIds.has(v.impressionId)) outcomes[i] = { billable: false, reason: 'duplicate' }
    })

    for (const [campaignId, k] of billedNow) {
      const c = campaigns.get(campaignId)!
      await trx
        .updateTable('campaigns')
        .set({
          impressions_billed: sql`impressions_billed + ${k}`,
          lifetime_spent_micros: sql`lifetime_spent_micros + ${k * impressionPriceMicros(c.cpm_micros)}`,
        })
        .where('campaign_id', '=', campaignId)
        .execute()
      const total = c.impressions_billed + k
      result.billed.set(campaignId, total)
      if (total >= c.impressions) result.completed.push(campaignId)
    }
    if (billedNow.size > 0) await syncBlocks(trx, [...billedNow.keys()], now)
    if (result.completed.length > 0) {
      // Every block exhausted: the campaign is done (this also tells every instance's auction).
      await trx
        .updateTable('campaigns')
        .set({ status: 'completed', completed_at: now, updated_at: now })
        .where('campaign_id', 'in', result.completed)
        .where('status', 'in', ['active', 'paused'])
        .execute()
    }
    result.views = outcomes as ViewOutcome[]
    return result
  })
}

/** Re-derives block progress from each campaign's billed total: blocks fill in order. */
async function syncBlocks(db: Db, campaignIds: string[], now: Date): Promise<void> {
  await sql`
    UPDATE blocks AS b SET
      impressions_served = s.served,
      status = CASE
        WHEN s.served >= b.impressions_target THEN 'exhausted'
        WHEN s.activated AND b.block_index = s.current_block THEN 'serving'
        ELSE b.status END,
      started_at = CASE
        WHEN b.started_at IS NULL AND (s.served > 0 OR (s.activated AND b.block_index = s.current_block)) THEN ${now}
        ELSE b.started_at END,
      exhausted_at = CASE WHEN s.served >= b.impressions_target THEN coalesce(b.exhausted_at, ${now}) ELSE b.exhausted_at END
    FROM (
      SELECT b2.campaign_id, b2.block_index,
        least(b2.impressions_target, greatest(0, c.impressions_billed - b2.block_index * b2.impressions_target)) AS served,
        c.activated_at IS NOT NULL AS activated,
        c.impressions_billed / b2.impressions_target AS current_block
      FROM blocks b2 JOIN campaigns c ON c.campaign_id = b2.campaign_id
      WHERE c.campaign_id IN (${sql.join(campaignIds)})
    ) AS s
    WHERE b.campaign_id = s.campaign_id AND b.block_index = s.block_index
      AND (b.impressions_served <> s.served OR (s.activated AND b.block_index = s.current_block AND b.status = 'queued'))
  `.execute(db)
}
