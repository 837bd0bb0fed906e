import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { campaignIds, useService, type Advertiser } from '../helpers/api.ts'
import { commitLedgerBatch } from '../../src/serving/ledger-batch.ts'
import { LeaseBook } from '../../src/serving/leases.ts'
import { settleLeases } from '../../src/store/leases.ts'
import { withLeaseUse } from '../../src/store/lease-use.ts'
import { impressionDebitMicros } from '../../src/domain/money.ts'
import { servingLimitsOf } from '../../src/domain/rate-limits.ts'
import { DEFAULT_CONFIG } from '../../src/domain/order-config.ts'
import { noKnownState, type ClickClaim, type ViewClaim } from '../../src/serving/ledger-claims.ts'
import { impressionKey } from '../helpers/impression-key.ts'

/**
 * Clicks of click campaigns go through the ledger batch and the impression budget leases like billable
 * views: concurrent instances (each its own `LeaseBook`) never bill one impression's click twice, never
 * bill one viewer twice a day on a campaign, and never bill more clicks than bought.
 */
const h = useService({}, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })
const NOW = new Date('2026-11-02T09:00:30.000Z')
const db = () => h.svc.service.store.db

const campaign = (adv: Advertiser, overrides: Record<string, unknown> = {}) => campaignIds(h, adv, { cpm_usd: 4, kind: 'click', ...overrides })

let n = 0
type Ids = { campaignId: string; creativeId: string; userId: string }
function clickOf(c: Ids, viewerKey = `click-batch-viewer-${n}`): ClickClaim {
  n++
  return { impressionId: `click-batch-${process.pid}-${n}`, offer: { ...c, surface: 'extension', country: 'US', viewerKey, source: null, offeredAtMs: NOW.getTime() - 20_000, origin: 0 },
    blocked: false,
    limits: servingLimitsOf(DEFAULT_CONFIG).sources,
  }
}
function viewOf(c: Ids): ViewClaim {
  const { impressionId, offer, limits } = clickOf(c)
  return { impressionId, offer, dwellMs: 10_000, reason: null, limits }
}

const clickRows = (campaignId: string) =>
  db().selectFrom('ledger_events').select(['impression_key', 'billable', 'debit_micros', 'reason']).where('campaign_id', '=', campaignId).where('event_type', '=', 'click').execute()

test('two instances committing the same click at once bill it once', async () => {
  const c = await campaign(await h.advertiser())
  const k = clickOf(c)
  const results = await Promise.all([new LeaseBook(), new LeaseBook()].map((book) => commitLedgerBatch(db(), NOW, { clicks: [k], views: [] }, book)))
  assert.deepEqual(results.flatMap((r) => r.clicks.map((o) => (o.billable ? 'billable' : o.reason))).sort(), ['billable', 'repeat'])
  assert.deepEqual(await clickRows(c.campaignId), [{ impression_key: impressionKey(k.impressionId), billable: true, debit_micros: impressionDebitMicros(4_000_000, 1), reason: null }])
})

test('two instances billing one viewer on one campaign the same day bill one click', async () => {
  const c = await campaign(await h.advertiser())
  const results = await Promise.all(
    [new LeaseBook(), new LeaseBook()].map((book) => commitLedgerBatch(db(), NOW, { clicks: [clickOf(c, 'one-viewer')], views: [] }, book)),
  )
  assert.deepEqual(results.flatMap((r) => r.clicks.map((o) => (o.billable ? 'billable' : o.reason))).sort(), ['billable', 'viewer_frequency'])
  assert.deepEqual((await clickRows(c.campaignId)).map((r) => r.billable).sort(), [false, true])
})

test('eight instances over a nearly sold-out click campaign bill exactly what is left, each number once', async () => {
  const c = await campaign(await h.advertiser(), { cpm_usd: 1.234567 })
  await sql`UPDATE campaigns SET impressions_billed = 990, impressions_leased = 990 WHERE campaign_id = ${c.campaignId}`.execute(db())
  const books = Array.from({ length: 8 }, () => new LeaseBook())
  const results = await Promise.all(books.map((book) => commitLedgerBatch(db(), NOW, { clicks: Array.from({ length: 5 }, () => clickOf(c)), views: [] }, book)))
  const billable = results.flatMap((r) => r.clicks).filter((o) => o.billable).length
  assert.equal(billable, 10)
  await sql`UPDATE impression_leases SET expires_at = now() - interval '1 second' WHERE campaign_id = ${c.campaignId}`.execute(db())
  await settleLeases(db(), 'survivor', NOW)
  const row = await db().selectFrom('campaigns').select(['campaign_id', 'impressions_billed', 'lifetime_spent_micros', 'status']).where('campaign_id', '=', c.campaignId).executeTakeFirstOrThrow()
  const [delivered] = await withLeaseUse(db(), [row])
  assert.equal(delivered!.impressions_billed, 1000)
  assert.equal(row.status, 'completed')
  const debits = (await clickRows(c.campaignId)).filter((r) => r.billable).map((r) => r.debit_micros)
  const priced = Array.from({ length: 10 }, (_, i) => impressionDebitMicros(1_234_567, 991 + i))
  assert.deepEqual([...debits].sort(), [...priced].sort(), 'numbers 991-1000, each once')
  assert.equal(delivered!.lifetime_spent_micros, priced.reduce((a, b) => a + b, 0))
})

test('one batch bills an impression campaign\'s views and a click campaign\'s clicks on their own leases, and counts the click campaign\'s CTR', async () => {
  const adv = await h.advertiser()
  const clicks = await campaign(adv)
  const views = await campaign(adv, { kind: 'impression', cpm_usd: 2 })
  const book = new LeaseBook()
  const clickViews = [viewOf(clicks), viewOf(clicks)]
  const result = await commitLedgerBatch(
    db(),
    NOW,
    { clicks: [clickOf(clicks), clickOf(views)], views: [viewOf(views), ...clickViews] },
    book,
    noKnownState(),
  )
  assert.deepEqual(result.views, [{ billable: true }, { billable: true }, { billable: true }])
  assert.deepEqual(result.clicks, [{ billable: true }, { billable: false, reason: 'impression_campaign' }])
  assert.deepEqual(result.billed, new Map([[views.campaignId, 1], [clicks.campaignId, 1]]))
  const debits = await db()
    .selectFrom('ledger_events')
    .select(['campaign_id', 'event_type', 'billable', 'debit_micros'])
    .where('campaign_id', 'in', [clicks.campaignId, views.campaignId])
    .orderBy('event_id')
    .execute()
  assert.deepEqual(
    debits.map((r) => [r.campaign_id === clicks.campaignId ? 'click-campaign' : 'impression-campaign', r.event_type, r.billable, r.debit_micros]),
    [
      ['click-campaign', 'click', true, 4000],
      ['impression-campaign', 'click', false, 0],
      ['impression-campaign', 'impression', true, 2000],
      ['click-campaign', 'impression', true, 0],
      ['click-campaign', 'impression', true, 0],
    ],
  )
  const counts = await db().selectFrom('click_ctr_counts').selectAll().where('campaign_id', 'in', [clicks.campaignId, views.campaignId]).execute()
  assert.deepEqual(counts, [{ campaign_id: clicks.campaignId, surface: 'extension', holder: book.holder, impressions: 2, clicks: 1 }])
})
