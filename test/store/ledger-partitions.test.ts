import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { creativeLifetimeMetrics } from '../../src/store/creative-metrics.ts'
import { campaignIds, useService, type Advertiser } from '../helpers/api.ts'
import { commitLedgerBatch } from '../../src/serving/ledger-batch.ts'
import { noKnownState, viewReportRow, type ClickClaim, type ViewClaim } from '../../src/serving/ledger-claims.ts'
import { LeaseBook } from '../../src/serving/leases.ts'
import { EventColumns, writeViewReports } from '../../src/store/ledger.ts'
import { listPartitions, readRetainedFrom } from '../../src/store/ledger-partitions.ts'
import { rollUpDay } from '../../src/store/rollups.ts'
import { runLedgerPartitions } from '../../src/jobs/ledger-partitions.ts'
import { servingLimitsOf } from '../../src/domain/rate-limits.ts'
import { DEFAULT_CONFIG } from '../../src/domain/order-config.ts'

/**
 * The ledger partitioned by month (migration 0031;
 * docs/decisions/0354-by-utc-month-declaratively.md to 0360),
 * on a real store (both stores): partitions ahead, rows outside them, the once-per-impression claims
 * across partitions, and retention (the ledger-partitions job) with what stats and exports answer after it.
 * The tests run in order: the retention test drops what the earlier ones wrote before September 2026.
 */
const h = useService({}, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null })
const db = () => h.svc.service.store.db
// The service clock starts 2026-11-02 09:00 UTC (test/helpers/service.ts).
const SERVICE_NOW = new Date('2026-11-02T09:00:00Z')

const partitionOfRow = async (impressionId: string) =>
  (await sql<{ p: string }>`SELECT tableoid::regclass::text AS p FROM ledger_events WHERE impression_key = ledger_claim_key(${impressionId})`.execute(db())).rows.map((r) => r.p)

async function insertRow(at: string, impressionId: string, userId: string, type: 'impression' | 'view' = 'view', country = 'DE') {
  await sql`INSERT INTO ledger_events (occurred_at, event_type, impression_key, user_id, campaign_id, creative_id, surface, country, billable, dwell_ms, reason, viewer_key)
    VALUES (${at}::timestamptz, ${type}, ledger_claim_key(${impressionId}), ${userId}, 'cmp_part', 'crv_part', 'terminal', ${country}, ${type === 'impression'},
            ${10_000}, ${type === 'view' ? 'short_dwell' : null}, ${`vk_${impressionId}`})`.execute(db())
}

test('the job creates the current month and the next two ahead; a rerun creates nothing', async () => {
  const now = new Date('2027-03-15T12:00:00Z')
  const first = await runLedgerPartitions(db(), now, 400)
  const names = (await listPartitions(db())).map((p) => p.name)
  for (const m of ['2027_03', '2027_04', '2027_05']) assert.ok(names.includes(`ledger_events_${m}`), `ledger_events_${m} in ${names.join(', ')}`)
  assert.ok((first.partitions_created as number) >= 3)
  const again = await runLedgerPartitions(db(), now, 400)
  assert.equal(again.partitions_created, 0)
  assert.deepEqual(again.partitions_dropped, [])
})

test('a row before or after every partition goes to the DEFAULT partition; the job moves it into its month', async () => {
  await insertRow('2031-05-01T00:30:00Z', 'imp_part_future', 'usr_part')
  await insertRow('2026-03-10T08:00:00Z', 'imp_part_past', 'usr_part')
  await insertRow('2026-11-30T23:59:59.999Z', 'imp_part_edge', 'usr_part')
  assert.deepEqual(await partitionOfRow('imp_part_future'), ['ledger_events_default'])
  assert.deepEqual(await partitionOfRow('imp_part_past'), ['ledger_events_default'])
  assert.deepEqual(await partitionOfRow('imp_part_edge'), ['ledger_events_2026_11'], 'the last instant of November')
  await runLedgerPartitions(db(), SERVICE_NOW, 400)
  assert.deepEqual(await partitionOfRow('imp_part_future'), ['ledger_events_2031_05'])
  assert.deepEqual(await partitionOfRow('imp_part_past'), ['ledger_events_2026_03'])
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ledger_events_default`.execute(db())
  assert.equal(rows[0]!.n, 0, 'the default partition is empty again')
})

const campaign = (adv: Advertiser) => campaignIds(h, adv, { cpm_usd: 2 })

test('once per impression across partitions: a view replayed, a repeat report and a click replayed in the next month', async () => {
  const c = await campaign(await h.advertiser())
  // Offered at 23:30 on the last day of November; reported at 23:59 and again at 00:10 in December.
  const offeredAtMs = Date.parse('2026-11-30T23:30:00Z')
  const offer = { ...c, surface: 'extension' as const, country: 'US', viewerKey: 'vk_part_cross', source: null, offeredAtMs, origin: 0 }
  const limits = servingLimitsOf(DEFAULT_CONFIG).sources
  const view: ViewClaim = { impressionId: 'imp_part_cross', offer, dwellMs: 10_000, reason: null, limits }
  const book = new LeaseBook()
  const november = new Date('2026-11-30T23:59:00Z')
  const december = new Date('2026-12-01T00:10:00Z')
  const first = await commitLedgerBatch(db(), november, { clicks: [], views: [view] }, book)
  assert.equal(first.views[0]!.billable, true)
  const replay = await commitLedgerBatch(db(), december, { clicks: [], views: [view] }, book)
  assert.deepEqual(replay.views[0], { billable: false, reason: 'repeat' })
  // From known state (no read): the claim fails the plain insert, and the batch is judged again from the store.
  const known = await commitLedgerBatch(db(), december, { clicks: [], views: [view] }, book, noKnownState())
  assert.deepEqual(known.views[0], { billable: false, reason: 'repeat' })
  assert.ok(known.retries >= 1, 'judged again from the store')

  for (const at of [november, december, december]) {
    const e = new EventColumns()
    const row = viewReportRow('repeat', 'imp_part_cross', offer, at, 10_000)
    e.push(row, 0, 10_000, 'repeat', false)
    await writeViewReports(db(), e)
  }
  const click: ClickClaim = { impressionId: 'imp_part_cross', offer, blocked: false, limits }
  await commitLedgerBatch(db(), november, { clicks: [click], views: [] }, book)
  await commitLedgerBatch(db(), december, { clicks: [click, click], views: [] }, book)

  const { rows } = await sql<{ event_type: string; p: string }>`
    SELECT event_type, tableoid::regclass::text AS p FROM ledger_events WHERE impression_key = ledger_claim_key('imp_part_cross') ORDER BY event_type`.execute(db())
  assert.deepEqual(rows, [
    { event_type: 'click', p: 'ledger_events_2026_11' },
    { event_type: 'impression', p: 'ledger_events_2026_11' },
    { event_type: 'repeat_view', p: 'ledger_events_2026_11' },
  ])
  await book.settle(db(), december, true)
  const billed = await db().selectFrom('campaigns').select('impressions_billed').where('campaign_id', '=', c.campaignId).executeTakeFirstOrThrow()
  assert.equal(billed.impressions_billed, 1, 'billed exactly once')
})

test('retention drops a rolled-up month older than LEDGER_RETENTION_DAYS; its stats come from the rollups; a ledger read there is 400', async () => {
  const adv = await h.advertiser()
  const user = adv.userId!
  await insertRow('2026-08-10T10:00:00Z', 'imp_part_old_1', user, 'impression')
  await insertRow('2026-08-10T11:00:00Z', 'imp_part_old_2', user, 'impression')
  await insertRow('2026-08-10T12:00:00Z', 'imp_part_old_3', user, 'view')
  await insertRow('2026-10-05T12:00:00Z', 'imp_part_kept', user, 'impression')
  await runLedgerPartitions(db(), SERVICE_NOW, 400)
  assert.deepEqual(await partitionOfRow('imp_part_old_1'), ['ledger_events_2026_08'])
  // Rows written into days the rollups closed already (the service started at 2026-11-02): roll those days again.
  await rollUpDay(db(), '2026-08-10')
  await rollUpDay(db(), '2026-10-05')
  // The earlier test's row of March (dropped too) is rolled up with them; so is its day's offer count.
  await sql`INSERT INTO offer_counts (minute, user_id, campaign_id, creative_id, surface, country, offers)
    VALUES ('2026-08-10T09:00:00Z', ${user}, 'cmp_part', 'crv_part', 'terminal', 'DE', 4)`.execute(db())
  await rollUpDay(db(), '2026-03-10')
  await rollUpDay(db(), '2026-08-10')
  const lifetime = await creativeLifetimeMetrics(db(), 'crv_part')
  const DAY = 'start=2026-08-10T00:00:00Z&end=2026-08-11T00:00:00Z'
  const before = (await adv.get(`/v1/stats?${DAY}`)).body
  assert.equal(before.served_from, 'daily_rollup')
  assert.equal(before.totals.billable_impressions, 2)

  // 35 days before 2026-11-02 is 2026-09-28: August is past it, September and October are not.
  const result = await runLedgerPartitions(db(), SERVICE_NOW, 35)
  assert.ok((result.partitions_dropped as string[]).includes('ledger_events_2026_08'), JSON.stringify(result))
  assert.ok(!(result.partitions_dropped as string[]).includes('ledger_events_2026_09'))
  assert.equal(result.retained_from, '2026-09-01')
  assert.equal(await readRetainedFrom(db()), '2026-09-01')
  assert.deepEqual(await partitionOfRow('imp_part_old_1'), [])
  assert.deepEqual(await partitionOfRow('imp_part_kept'), ['ledger_events_2026_10'])

  const after = await adv.get(`/v1/stats?${DAY}`)
  assert.equal(after.status, 200, after.text)
  assert.equal(after.body.served_from, 'daily_rollup')
  assert.deepEqual(after.body.totals, before.totals, 'the rollups answer the dropped days')
  // A creative's all-time metrics: the dropped days from the rollups (served instants to the hour), the rest from the ledger.
  const since = await creativeLifetimeMetrics(db(), 'crv_part')
  assert.deepEqual({ ...since, first: null, last: null }, { ...lifetime, first: null, last: null })
  assert.equal(since.first?.toISOString(), '2026-08-10T10:00:00.000Z')
  assert.equal(since.last?.getTime(), lifetime.last?.getTime())
  const counted = await db().selectFrom('offer_counts').select('minute').where('creative_id', '=', 'crv_part').where('minute', '<', new Date('2026-09-01')).execute()
  assert.deepEqual(counted, [], 'the offer counts of the dropped days went with them (the rollups hold them)')

  const beyond = { field: 'start', reason: 'beyond_retention', oldest_available_day: '2026-09-01' }
  // A country filter is read from the ledger (rollups carry no country).
  const live = await adv.get(`/v1/stats?${DAY}&country=DE`)
  assert.equal(live.status, 400, live.text)
  assert.deepEqual(live.body.detail, beyond)
  // Hourly edges past retention (an hourly window not on whole days reads its edges from the ledger).
  const edges = await adv.get('/v1/stats?start=2026-08-10T10:30:00Z&end=2026-08-12T00:00:00Z&granularity=hour')
  assert.equal(edges.status, 400, edges.text)
  assert.deepEqual(edges.body.detail, beyond)
  const kept = await adv.get('/v1/stats?start=2026-10-05T00:00:00Z&end=2026-10-06T00:00:00Z&country=DE')
  assert.equal(kept.status, 200, kept.text)
  assert.equal(kept.body.totals.billable_impressions, 1)

  const exportPast = await adv.post('/v1/exports', { start: '2026-08-10T00:00:00Z', end: '2026-08-11T00:00:00Z' })
  assert.equal(exportPast.status, 400, exportPast.text)
  assert.deepEqual(exportPast.body.detail, beyond)
  const exportKept = await adv.post('/v1/exports', { start: '2026-10-05T00:00:00Z', end: '2026-10-06T00:00:00Z' })
  assert.equal(exportKept.status, 202, exportKept.text)
})
