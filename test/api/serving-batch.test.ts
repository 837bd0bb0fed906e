import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { commitLedgerBatch } from '../../src/serving/ledger-batch.ts'
import { LeaseBook } from '../../src/serving/leases.ts'
import { revokeLeases } from '../../src/store/leases.ts'
import { withLeaseUse } from '../../src/store/lease-use.ts'
import { viewerSlot } from '../../src/domain/delivery.ts'
import { impressionDebitMicros, impressionsCostMicros } from '../../src/domain/money.ts'
import { servingLimitsOf } from '../../src/domain/rate-limits.ts'
import { DEFAULT_CONFIG } from '../../src/domain/order-config.ts'
import { noKnownState, type KnownState, type ViewClaim } from '../../src/serving/ledger-claims.ts'
import { impressionKey } from '../helpers/impression-key.ts'

/**
 * The group-commit write re-checks what a batch was judged on: a batch judged
 * on stale knowledge (as another instance or the other batch in flight would
 * leave it) is judged again from the store, never billed on the stale view.
 * Each `LeaseBook` is one instance's impression budget leases.
 */
const h = useService({}, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })

const NOW = new Date('2026-11-02T09:00:30.000Z')

async function campaign(adv: Advertiser, overrides: Record<string, unknown> = {}) {
  const res = await adv.post('/v1/campaigns', campaignBody({ impressions: 1000, cpm_usd: 4, ...overrides }))
  assert.equal(res.status, 201, res.text)
  const campaignId = res.body.campaign_id as string
  const creative = await h.svc.service.store.db.selectFrom('creatives').select('creative_id').where('campaign_id', '=', campaignId).executeTakeFirstOrThrow()
  return { campaignId, creativeId: creative.creative_id, userId: adv.userId! }
}

let n = 0
function claim(c: { campaignId: string; creativeId: string; userId: string }, viewerKey = `batch-viewer-${n}`): ViewClaim {
  n++
  return {
    impressionId: `batch-test-${process.pid}-${n}`,
    offer: { ...c, surface: 'extension', country: 'US', viewerKey, source: `203.0.${n >> 8}.${n & 255}`, offeredAtMs: NOW.getTime() - 20_000, origin: 0 },
    dwellMs: 10_000,
    reason: null,
    limits: servingLimitsOf(DEFAULT_CONFIG).sources,
  }
}

/** Delivered: settled plus unsettled lease use. */
const billedOf = async (campaignId: string) => {
  const db = h.svc.service.store.db
  const [row] = await withLeaseUse(db, [
    await db.selectFrom('campaigns').select(['campaign_id', 'impressions_billed', 'lifetime_spent_micros']).where('campaign_id', '=', campaignId).executeTakeFirstOrThrow(),
  ])
  return row!.impressions_billed
}

const known = (lastBillable = new Map<string, number>()): KnownState => ({ ...noKnownState(), lastBillableMs: lastBillable })

test('inventory taken elsewhere: the lease holds only what is left, and the last number completes the campaign', async () => {
  const c = await campaign(await h.advertiser())
  const db = h.svc.service.store.db
  await sql`UPDATE campaigns SET impressions_billed = 998, impressions_leased = 998 WHERE campaign_id = ${c.campaignId}`.execute(db)
  const views = Array.from({ length: 5 }, () => claim(c))
  const result = await commitLedgerBatch(db, NOW, { clicks: [], views }, new LeaseBook(), known())
  assert.deepEqual(result.views.map((v) => (v.billable ? 'billable' : v.reason)), ['billable', 'billable', 'block_full', 'block_full', 'block_full'])
  assert.equal(result.settled, true, 'the last number of the campaign settles before the batch is answered')
  const row = await db.selectFrom('campaigns').select(['impressions_billed', 'status']).where('campaign_id', '=', c.campaignId).executeTakeFirstOrThrow()
  assert.deepEqual(row, { impressions_billed: 1000, status: 'completed' })
})

test('a viewer billed elsewhere within ten seconds is not billed again', async () => {
  const c = await campaign(await h.advertiser())
  const db = h.svc.service.store.db
  const first = claim(c, 'shared-viewer')
  await commitLedgerBatch(db, new Date(NOW.getTime() - 4_000), { clicks: [], views: [first] }, new LeaseBook())
  const book = new LeaseBook()
  const result = await commitLedgerBatch(db, NOW, { clicks: [], views: [claim(c, 'shared-viewer')] }, book, known())
  assert.ok(result.retries >= 1)
  assert.deepEqual(result.views, [{ billable: false, reason: 'viewer_frequency' }])
  // Ten seconds after the stored instant the same viewer bills again, although this instance never saw it.
  const later = await commitLedgerBatch(db, new Date(NOW.getTime() + 6_000), { clicks: [], views: [claim(c, 'shared-viewer')] }, book, known())
  assert.deepEqual(later.views, [{ billable: true }])
  assert.deepEqual(later.billedSlots, [viewerSlot('shared-viewer', 'extension')])
  assert.equal(await billedOf(c.campaignId), 2)
})

test('a cancelled campaign: its leases are revoked, a batch on a stale lease is judged again and a later offer does not bill', async () => {
  const adv = await h.advertiser()
  const c = await campaign(adv)
  const db = h.svc.service.store.db
  const book = new LeaseBook()
  const priced = await commitLedgerBatch(db, NOW, { clicks: [], views: [claim(c)] }, book, known())
  assert.deepEqual(priced.views, [{ billable: true }])
  const debit = await db.selectFrom('ledger_events').select('debit_micros').where('campaign_id', '=', c.campaignId).where('event_type', '=', 'impression').executeTakeFirstOrThrow()
  assert.equal(debit.debit_micros, 4_000, 'cpm 4.00 USD: 4,000 micros per impression')

  // As services/campaigns.ts cancels: the status and the revocation in one transaction.
  await db.transaction().execute(async (trx) => {
    await sql`UPDATE campaigns SET status = 'cancelled', cancelled_at = ${new Date(NOW.getTime() - 25_000)} WHERE campaign_id = ${c.campaignId}`.execute(trx)
    await revokeLeases(trx, c.campaignId)
  })
  const cancelled = await commitLedgerBatch(db, NOW, { clicks: [], views: [claim(c)] }, book, known())
  assert.ok(cancelled.retries >= 1)
  assert.deepEqual(cancelled.views, [{ billable: false, reason: 'block_full' }])
  assert.equal(await billedOf(c.campaignId), 1)
})

test('a repeat judged billable from memory is found by the store and bills nothing', async () => {
  const c = await campaign(await h.advertiser())
  const db = h.svc.service.store.db
  const v = claim(c)
  const book = new LeaseBook()
  assert.deepEqual((await commitLedgerBatch(db, NOW, { clicks: [], views: [v] }, book, known())).views, [{ billable: true }])
  const again = await commitLedgerBatch(db, new Date(NOW.getTime() + 30_000), { clicks: [], views: [{ ...v, dwellMs: 40_000 }] }, book, known())
  assert.ok(again.retries >= 1)
  assert.deepEqual(again.views, [{ billable: false, reason: 'repeat' }])
  assert.equal(await billedOf(c.campaignId), 1)
})

test('from known state a repeat of a non-billable view fails the plain insert and is judged again from the store', async () => {
  const c = await campaign(await h.advertiser())
  const db = h.svc.service.store.db
  const short = { ...claim(c), dwellMs: 3_000, reason: 'short_dwell' as const }
  const book = new LeaseBook()
  assert.deepEqual((await commitLedgerBatch(db, NOW, { clicks: [], views: [short] }, book, known())).views, [{ billable: false, reason: 'short_dwell' }])
  const fresh = claim(c)
  const again = await commitLedgerBatch(db, NOW, { clicks: [], views: [short, fresh] }, book, known())
  assert.equal(again.retries, 1, 'the unique index on measured views failed the first statement')
  assert.deepEqual(again.views, [{ billable: false, reason: 'repeat' }, { billable: true }])
  const keys = [short, fresh].map((v) => impressionKey(v.impressionId))
  const rows = await db.selectFrom('ledger_events').select(['impression_key', 'event_type']).where('impression_key', 'in', keys).orderBy('event_id').execute()
  assert.deepEqual(rows, [
    { impression_key: keys[0], event_type: 'view' },
    { impression_key: keys[1], event_type: 'impression' },
  ])
  assert.equal(await billedOf(c.campaignId), 1)
})

test('from known state, a batch carrying a repeated click drops it in place without a retry', async () => {
  const c = await campaign(await h.advertiser())
  const db = h.svc.service.store.db
  const clicked = claim(c)
  const click = { impressionId: clicked.impressionId, offer: clicked.offer, blocked: false, limits: clicked.limits }
  const book = new LeaseBook()
  await commitLedgerBatch(db, NOW, { clicks: [click], views: [] }, book)
  const result = await commitLedgerBatch(db, NOW, { clicks: [click], views: [claim(c)] }, book, known())
  assert.equal(result.retries, 0)
  assert.deepEqual(result.views, [{ billable: true }])
  const clicks = await db.selectFrom('ledger_events').select('event_type').where('impression_key', '=', impressionKey(clicked.impressionId)).execute()
  assert.deepEqual(clicks, [{ event_type: 'click' }])
})

test('concurrent batches of eight instances over one nearly exhausted campaign never bill beyond it', async () => {
  const c = await campaign(await h.advertiser())
  const db = h.svc.service.store.db
  await sql`UPDATE campaigns SET impressions_billed = 950, impressions_leased = 950 WHERE campaign_id = ${c.campaignId}`.execute(db)
  const batches = Array.from({ length: 8 }, () => Array.from({ length: 20 }, () => claim(c)))
  const books = batches.map(() => new LeaseBook())
  const results = await Promise.all(batches.map((views, i) => commitLedgerBatch(db, NOW, { clicks: [], views }, books[i]!, known())))
  const billable = results.flatMap((r) => r.views).filter((v) => v.billable).length
  assert.equal(billable, 50)
  assert.equal(await billedOf(c.campaignId), 1000)
  // Completion follows once every instance settled (the settle period; here at once).
  for (const book of books) await book.settle(db, NOW)
  const status = await db.selectFrom('campaigns').select('status').where('campaign_id', '=', c.campaignId).executeTakeFirstOrThrow()
  assert.equal(status.status, 'completed')
})

/** Asserts the campaign's impressions, in ledger order, debit the 1st, 2nd, … n-th debit of its CPM, and the totals agree. */
async function assertDebitSequence(campaignId: string, cpmMicros: number): Promise<number[]> {
  const db = h.svc.service.store.db
  const rows = await db.selectFrom('ledger_events').select('debit_micros').where('campaign_id', '=', campaignId).where('event_type', '=', 'impression').orderBy('event_id').execute()
  const debits = rows.map((r) => r.debit_micros)
  assert.deepEqual(debits, debits.map((_, i) => impressionDebitMicros(cpmMicros, i + 1)), 'the n-th impression debits the n-th debit')
  const c = await db.selectFrom('campaigns').select(['impressions_billed', 'lifetime_spent_micros']).where('campaign_id', '=', campaignId).executeTakeFirstOrThrow()
  assert.equal(c.impressions_billed, debits.length)
  assert.equal(c.lifetime_spent_micros, impressionsCostMicros(cpmMicros, debits.length), 'spend is floor(billed × cpm / 1000)')
  return debits
}

test('a six-decimal CPM: each impression debits its place in the sequence, also across concurrent and stale batches', async () => {
  const cpm = 1_234_567
  const c = await campaign(await h.advertiser(), { cpm_usd: 1.234567, impressions: 2000 })
  const db = h.svc.service.store.db
  // Batches judged from memory and batches read from the store, queued at once on one instance: the price follows the lease.
  const batches = Array.from({ length: 12 }, () => Array.from({ length: 100 }, () => claim(c)))
  const book = new LeaseBook()
  await Promise.all(batches.map((views, i) => commitLedgerBatch(db, NOW, { clicks: [], views }, book, i % 2 === 0 ? known() : undefined)))
  await book.settle(db, NOW)
  const debits = await assertDebitSequence(c.campaignId, cpm)
  assert.equal(debits.length, 1200)
  assert.equal(debits.slice(0, 1000).reduce((a, b) => a + b, 0), cpm, 'the first block of 1,000 bills exactly the CPM')
})

test('a repeat dropped by ON CONFLICT never leaves a gap in the debit sequence', async () => {
  const cpm = 1_234_567
  const c = await campaign(await h.advertiser(), { cpm_usd: 1.234567 })
  const db = h.svc.service.store.db
  const shared = claim(c)
  // The same view in two concurrent batches of one instance judged from the store: one bills it, the other finds it a repeat.
  const book = new LeaseBook()
  const results = await Promise.all(
    [0, 1].map(() => commitLedgerBatch(db, NOW, { clicks: [], views: [shared, claim(c), claim(c)] }, book)),
  )
  assert.equal(results.filter((r) => r.views[0]!.billable).length, 1)
  assert.ok(results.every((r) => r.views.slice(1).every((v) => v.billable)))
  await book.settle(db, NOW)
  assert.equal((await assertDebitSequence(c.campaignId, cpm)).length, 5)
})

test('blocks move forward with billing, also when one batch fills a whole block', async () => {
  const c = await campaign(await h.advertiser(), { impressions: 4000 })
  const db = h.svc.service.store.db
  const statuses = async () =>
    (await db.selectFrom('blocks').select('status').where('campaign_id', '=', c.campaignId).orderBy('block_index').execute()).map((b) => b.status)
  const book = new LeaseBook()
  const bill = async (count: number, _billed: number) => {
    const result = await commitLedgerBatch(db, NOW, { clicks: [], views: Array.from({ length: count }, () => claim(c)) }, book, known())
    assert.equal(result.retries, 0, 'judged from what the instance knew')
    assert.ok(result.views.every((v) => v.billable))
  }
  assert.deepEqual(await statuses(), ['serving', 'queued', 'queued', 'queued'])
  await bill(999, 0)
  assert.deepEqual(await statuses(), ['serving', 'queued', 'queued', 'queued'], 'one short of the first block')
  await bill(1, 999)
  assert.deepEqual(await statuses(), ['exhausted', 'serving', 'queued', 'queued'])
  // 1000 -> 2500 in one batch: block 1 fills and block 2 starts together.
  await bill(1500, 1000)
  assert.deepEqual(await statuses(), ['exhausted', 'exhausted', 'serving', 'queued'])
  await bill(1500, 2500)
  assert.deepEqual(await statuses(), ['exhausted', 'exhausted', 'exhausted', 'exhausted'])
  const done = await db.selectFrom('campaigns').select(['status', 'impressions_billed']).where('campaign_id', '=', c.campaignId).executeTakeFirstOrThrow()
  assert.deepEqual(done, { status: 'completed', impressions_billed: 4000 })
})

test('the batch statements are prepared once per connection: same text, one named statement, re-executed', async () => {
  const c = await campaign(await h.advertiser())
  const book = new LeaseBook()
  await h.svc.service.store.db.connection().execute(async (conn) => {
    // A batch judged from a read of the store (no known state), then one judged from known state, each twice:
    // two write texts (with and without ON CONFLICT), each prepared once.
    for (let i = 0; i < 2; i++) {
      await commitLedgerBatch(conn, NOW, { clicks: [], views: [claim(c), claim(c)] }, book)
      await commitLedgerBatch(conn, NOW, { clicks: [], views: [claim(c)] }, book, known())
    }
    const { rows } = await sql<{ name: string; statement: string }>`SELECT name, statement FROM pg_prepared_statements WHERE name LIKE 'adapi_%'`.execute(conn)
    const kinds = rows.map((r) => (/ledger_batch_check/.test(r.statement) ? 'write' : /recorded/.test(r.statement) ? 'read' : 'other'))
    assert.equal(kinds.filter((k) => k === 'write').length, 2, 'batches of different sizes share the prepared write of their kind')
    // The claims (migration 0031) are inserted with ON CONFLICT DO NOTHING by one of them only.
    assert.deepEqual(
      rows.filter((r) => /ledger_batch_check/.test(r.statement)).map((r) => /FROM first_claims\s+ON CONFLICT DO NOTHING/.test(r.statement)).sort(),
      [false, true],
    )
    assert.equal(kinds.filter((k) => k === 'read').length, 1, 'and one prepared read')
    assert.equal(new Set(rows.map((r) => r.name)).size, rows.length)
  })
  assert.equal(await billedOf(c.campaignId), 6)
})

