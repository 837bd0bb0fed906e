import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { commitLedgerBatch } from '../../src/serving/ledger-batch.ts'
import { LeaseBook } from '../../src/serving/leases.ts'
import { grantLeases, revokeLeases, settleLeases } from '../../src/store/leases.ts'
import { withLeaseUse } from '../../src/store/lease-use.ts'
import { servingLimitsOf } from '../../src/domain/rate-limits.ts'
import { DEFAULT_CONFIG } from '../../src/domain/order-config.ts'
import { noKnownState, type ViewClaim } from '../../src/serving/ledger-claims.ts'

/**
 * Impression budget leases on a real store (both stores): grants carve disjoint ranges, settlement
 * folds use exactly, an expired lease is recovered by another instance, revocation fails a stale batch.
 */
const h = useService({}, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })
const NOW = new Date('2026-11-02T09:00:30.000Z')
const db = () => h.svc.service.store.db

async function campaign(adv: Advertiser, overrides: Record<string, unknown> = {}) {
  const res = await adv.post('/v1/campaigns', campaignBody({ impressions: 1000, cpm_usd: 1.234567, ...overrides }))
  assert.equal(res.status, 201, res.text)
  const campaignId = res.body.campaign_id as string
  const creative = await db().selectFrom('creatives').select('creative_id').where('campaign_id', '=', campaignId).executeTakeFirstOrThrow()
  return { campaignId, creativeId: creative.creative_id, userId: adv.userId! }
}

let n = 0
function claim(c: { campaignId: string; creativeId: string; userId: string }): ViewClaim {
  n++
  return {
    impressionId: `lease-test-${process.pid}-${n}`,
    offer: { ...c, surface: 'extension', country: 'US', viewerKey: `lease-viewer-${n}`, source: null, offeredAtMs: NOW.getTime() - 20_000, origin: 0 },
    dwellMs: 10_000,
    reason: null,
    limits: servingLimitsOf(DEFAULT_CONFIG).sources,
  }
}
const views = (c: Parameters<typeof claim>[0], count: number) => Array.from({ length: count }, () => claim(c))

/** leased = billed + Σ sizes; ranges disjoint, within 1..impressions; used ≤ size; ledger and delivered figures agree. */
async function assertInvariant(campaignId: string, billedWithoutLedger = 0): Promise<{ billed: number; leased: number; delivered: number }> {
  const c = await db()
    .selectFrom('campaigns')
    .select(['campaign_id', 'impressions', 'impressions_billed', 'impressions_leased', 'lifetime_spent_micros'])
    .where('campaign_id', '=', campaignId)
    .executeTakeFirstOrThrow()
  const leases = await db().selectFrom('impression_leases').selectAll().where('campaign_id', '=', campaignId).orderBy('first_seq').execute()
  assert.equal(c.impressions_leased, c.impressions_billed + leases.reduce((s, l) => s + l.size, 0), 'leased = billed + Σ sizes')
  assert.ok(c.impressions_leased <= c.impressions)
  let end = 0
  for (const l of leases) {
    assert.ok(l.first_seq > end, 'ranges are disjoint')
    assert.ok(l.used <= l.size)
    end = l.first_seq + l.size - 1
  }
  assert.ok(end <= c.impressions_leased)
  const ledger = await db()
    .selectFrom('ledger_events')
    .select([sql<string>`count(*)`.as('n'), sql<string>`coalesce(sum(debit_micros), 0)`.as('spent')])
    .where('campaign_id', '=', campaignId)
    .where('event_type', '=', 'impression')
    .executeTakeFirstOrThrow()
  const [delivered] = await withLeaseUse(db(), [c])
  assert.equal(delivered!.impressions_billed, billedWithoutLedger + Number(ledger.n), 'delivered = ledger impressions')
  assert.equal(delivered!.lifetime_spent_micros, Number(ledger.spent), 'spend = ledger debits, exactly')
  return { billed: c.impressions_billed, leased: c.impressions_leased, delivered: delivered!.impressions_billed }
}

test('grants carve disjoint ranges; near the end a grant takes at most about half of what is unleased', async () => {
  const c = await campaign(await h.advertiser())
  const a = await grantLeases(db(), 'holder-a', [{ campaignId: c.campaignId, need: 0, want: 600 }], NOW)
  assert.deepEqual(
    a.leases.map((l) => [l.firstSeq, l.size]),
    [[1, 500]],
    'half of the 1,000 unleased',
  )
  const b = await grantLeases(db(), 'holder-b', [{ campaignId: c.campaignId, need: 300, want: 300 }], NOW)
  assert.deepEqual(
    b.leases.map((l) => [l.firstSeq, l.size]),
    [[501, 300]],
    'what a batch needs is granted whole',
  )
  const again = await grantLeases(db(), 'holder-b', [{ campaignId: c.campaignId, need: 500, want: 500 }], NOW)
  assert.deepEqual(
    again.leases.map((l) => [l.firstSeq, l.size]),
    [
      [501, 300],
      [801, 200],
    ],
    'no more than is unleased',
  )
  assert.equal(again.campaigns[0]!.blockSize, 1000)
  assert.deepEqual(await assertInvariant(c.campaignId), { billed: 0, leased: 1000, delivered: 0 })
})

test('settlement folds used numbers into the campaign exactly, keeps the unused tail, and release frees it for another instance', async () => {
  const c = await campaign(await h.advertiser())
  const book = new LeaseBook('holder-settle')
  const first = await commitLedgerBatch(db(), NOW, { clicks: [], views: views(c, 37) }, book, noKnownState())
  assert.ok(first.views.every((v) => v.billable))
  assert.deepEqual(await assertInvariant(c.campaignId), { billed: 0, leased: 37, delivered: 37 })
  await book.settle(db(), NOW)
  assert.deepEqual(await assertInvariant(c.campaignId), { billed: 37, leased: 37, delivered: 37 })
  // A bigger batch: a new range, numbers 38.. priced in sequence.
  await commitLedgerBatch(db(), NOW, { clicks: [], views: views(c, 5) }, book, noKnownState())
  const held = await db().selectFrom('impression_leases').select(['holder', 'first_seq', 'size', 'used']).where('campaign_id', '=', c.campaignId).execute()
  assert.deepEqual(held, [{ holder: 'holder-settle', first_seq: 38, size: 10, used: 5 }], 'at least LEASE_MIN numbers')
  await book.settle(db(), NOW, true)
  const freed = await db().selectFrom('impression_leases').select(['holder', 'first_seq', 'size', 'used']).where('campaign_id', '=', c.campaignId).execute()
  assert.deepEqual(freed, [{ holder: null, first_seq: 43, size: 5, used: 0 }])
  assert.deepEqual(await assertInvariant(c.campaignId), { billed: 42, leased: 47, delivered: 42 })
  // Another instance takes the free row before carving new numbers.
  const other = new LeaseBook('holder-other')
  await commitLedgerBatch(db(), NOW, { clicks: [], views: views(c, 3) }, other, noKnownState())
  const rows = await db().selectFrom('impression_leases').select(['holder', 'first_seq', 'size', 'used']).where('campaign_id', '=', c.campaignId).orderBy('first_seq').execute()
  assert.deepEqual(rows[0], { holder: 'holder-other', first_seq: 43, size: 5, used: 3 })
  await other.settle(db(), NOW, true)
  const after = await assertInvariant(c.campaignId)
  assert.equal(after.billed, 45)
  const c2 = await db().selectFrom('campaigns').select(['lifetime_spent_micros']).where('campaign_id', '=', c.campaignId).executeTakeFirstOrThrow()
  assert.equal(c2.lifetime_spent_micros, Math.floor((45 * 1_234_567) / 1000), 'numbers 1..45, each once: floor(45·c/1000)')
})

test('an expired lease (its holder died) is settled and freed by another instance; the stalled holder retries on a new lease', async () => {
  const c = await campaign(await h.advertiser())
  const dead = new LeaseBook('holder-dead')
  await commitLedgerBatch(db(), NOW, { clicks: [], views: views(c, 4) }, dead, noKnownState())
  await sql`UPDATE impression_leases SET expires_at = now() - interval '1 second' WHERE holder = 'holder-dead'`.execute(db())
  // The survivor's settle period recovers it: its use is in the campaign, its tail is free.
  await settleLeases(db(), 'holder-alive', NOW)
  const rows = await db().selectFrom('impression_leases').select(['holder', 'first_seq', 'size', 'used']).where('campaign_id', '=', c.campaignId).execute()
  assert.deepEqual(rows, [{ holder: null, first_seq: 5, size: 6, used: 0 }])
  assert.deepEqual(await assertInvariant(c.campaignId), { billed: 4, leased: 10, delivered: 4 })
  // The stalled holder comes back: its lease is not its own any more, the batch is judged again on a new one.
  const back = await commitLedgerBatch(db(), NOW, { clicks: [], views: views(c, 2) }, dead, noKnownState())
  assert.equal(back.retries, 1)
  assert.ok(back.views.every((v) => v.billable))
  const mine = await db().selectFrom('impression_leases').select(['holder', 'first_seq', 'used']).where('holder', '=', 'holder-dead').execute()
  assert.deepEqual(
    mine,
    [
      { holder: 'holder-dead', first_seq: 5, used: 2 },
      { holder: 'holder-dead', first_seq: 11, used: 0 },
    ],
    'the free row first, then new numbers up to LEASE_MIN of room',
  )
  await assertInvariant(c.campaignId)
})

test('an expired lease is also recovered by a grant on its campaign', async () => {
  const c = await campaign(await h.advertiser(), { impressions: 1000 })
  await sql`UPDATE campaigns SET impressions_billed = 990, impressions_leased = 990 WHERE campaign_id = ${c.campaignId}`.execute(db())
  const dead = new LeaseBook('holder-dead-2')
  await commitLedgerBatch(db(), NOW, { clicks: [], views: views(c, 3) }, dead, noKnownState())
  // 990 billed before, set directly (no ledger rows, no spend).
  assert.deepEqual(await assertInvariant(c.campaignId, 990), { billed: 990, leased: 995, delivered: 993 })
  await sql`UPDATE impression_leases SET expires_at = now() - interval '1 second' WHERE holder = 'holder-dead-2'`.execute(db())
  const alive = new LeaseBook('holder-alive-2')
  const result = await commitLedgerBatch(db(), NOW, { clicks: [], views: views(c, 10) }, alive, noKnownState())
  assert.equal(result.views.filter((v) => v.billable).length, 7, 'the dead holder\'s tail and the rest: 1000 − 993')
  await alive.settle(db(), NOW, true)
  assert.deepEqual(await assertInvariant(c.campaignId, 990), { billed: 1000, leased: 1000, delivered: 1000 })
  const status = await db().selectFrom('campaigns').select('status').where('campaign_id', '=', c.campaignId).executeTakeFirstOrThrow()
  assert.equal(status.status, 'completed')
})

test('revocation shrinks every held lease to its use and frees the tails; a batch on the stale lease is judged again', async () => {
  const adv = await h.advertiser()
  const c = await campaign(adv)
  const book = new LeaseBook('holder-revoked')
  await commitLedgerBatch(db(), NOW, { clicks: [], views: views(c, 3) }, book, noKnownState())
  const cancelled = await adv.delete(`/v1/campaigns/${c.campaignId}`)
  assert.equal(cancelled.status, 200, cancelled.text)
  const rows = await db().selectFrom('impression_leases').select(['holder', 'first_seq', 'size', 'used']).where('campaign_id', '=', c.campaignId).orderBy('first_seq').execute()
  assert.deepEqual(rows, [
    { holder: 'holder-revoked', first_seq: 1, size: 3, used: 3 },
    { holder: null, first_seq: 4, size: 7, used: 0 },
  ])
  await assertInvariant(c.campaignId)
  // Offered before the cancellation (the service clock's now): still billable, on a fresh lease.
  const before = views(c, 1).map((v) => ({ ...v, offer: { ...v.offer, offeredAtMs: h.svc.clock.nowMs() - 20_000 } }))
  const after = await commitLedgerBatch(db(), new Date(h.svc.clock.nowMs() + 1_000), { clicks: [], views: before }, book, noKnownState())
  assert.ok(after.retries >= 1, 'the shrunk lease failed the check')
  await revokeLeases(db(), c.campaignId)
  await book.settle(db(), NOW, true)
  await assertInvariant(c.campaignId)
})

test('a running instance recovers a dead instance\'s leases on its own settle timer, within a second or two of their expiry', async () => {
  const c = await campaign(await h.advertiser())
  const dead = new LeaseBook('holder-killed')
  await commitLedgerBatch(db(), NOW, { clicks: [], views: views(c, 6) }, dead, noKnownState())
  // The dead instance's lease runs out a second from now (instead of LEASE_TTL_MS after its last renewal).
  await sql`UPDATE impression_leases SET expires_at = now() + interval '1 second' WHERE holder = 'holder-killed'`.execute(db())
  const started = performance.now()
  for (;;) {
    const rows = await db().selectFrom('impression_leases').select(['holder', 'used']).where('campaign_id', '=', c.campaignId).execute()
    if (rows.every((r) => r.holder === null && r.used === 0)) break
    assert.ok(performance.now() - started < 5_000, 'recovered by the service\'s engine within its settle period after expiry')
    await new Promise((r) => setTimeout(r, 100))
  }
  assert.deepEqual(await assertInvariant(c.campaignId), { billed: 6, leased: 10, delivered: 6 })
})
