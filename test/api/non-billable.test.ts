import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { advance, decide, offersWritten, privateCountry, served, view } from '../helpers/serving.ts'
import { ADMIN_TOKEN } from '../helpers/service.ts'
import { Scrape } from '../helpers/metrics.ts'
import { exportCsv } from '../helpers/exports.ts'
import { impressionKey } from '../helpers/impression-key.ts'

// Every non-billable view explained (issue 25, part 3): each reason from real requests over HTTP,
// counted by /v1/stats on the ledger path and, after the rollup job, on the rollup paths; the sums
// reconcile with the ledger and the ledger-export-v3 file; replays stay bounded.
// The manual clock starts Monday 2026-11-02 09:00 UTC.

const h = useService({}, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null })
const db = () => h.svc.service.store.db

// invalid_traffic has its own file (test/api/invalid-traffic.test.ts); here it stays 0.
const REASONS = ['short_dwell', 'repeat', 'too_fast', 'viewer_frequency', 'expired', 'block_full', 'invalid_traffic', 'unattested', 'invalid_token'] as const
type Counts = Record<(typeof REASONS)[number], number>
const counts = (partial: Partial<Counts>): Counts => ({ short_dwell: 0, repeat: 0, too_fast: 0, viewer_frequency: 0, expired: 0, block_full: 0, invalid_traffic: 0, unattested: 0, invalid_token: 0, ...partial })
const sum = (c: Counts) => REASONS.reduce((n, r) => n + c[r], 0)
const addCounts = (a: Counts, b: Counts) => counts(Object.fromEntries(REASONS.map((r) => [r, a[r] + b[r]])))

const DAY = 'start=2026-11-02T00:00:00Z&end=2026-11-03T00:00:00Z'

async function scrape(): Promise<Scrape> {
  const res = await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  assert.equal(res.status, 200)
  return new Scrape(await res.text())
}

async function create(adv: Advertiser, country: string): Promise<{ campaign: string; creative: string }> {
  const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 1000 }))
  assert.equal(res.status, 201, res.text)
  const read = await adv.get(`/v1/campaigns/${res.body.campaign_id}`)
  return { campaign: res.body.campaign_id, creative: read.body.creatives[0].creative_id }
}

/** Recorded views of the account in [start, end), straight from the ledger: every view report, billable or not. */
async function recordedViews(userId: string, start: string, end: string): Promise<number> {
  const r = await sql<{ n: string }>`SELECT count(*) AS n FROM ledger_events
    WHERE user_id = ${userId} AND occurred_at >= ${new Date(start)} AND occurred_at < ${new Date(end)}
      AND event_type IN ('impression', 'view', 'repeat_view', 'expired_view')`.execute(db())
  return Number(r.rows[0]!.n)
}

async function ledgerRows(impressionId: string) {
  return db().selectFrom('ledger_events').select(['event_type', 'reason', 'billable', 'debit_micros']).where('impression_key', '=', impressionKey(impressionId)).orderBy('event_id').execute()
}

interface Dataset {
  adv: Advertiser
  a: { campaign: string; creative: string }
  b: { campaign: string; creative: string }
  /** What campaign A's views were: one billable, one of each reason but block_full (two repeats, two late views). */
  expectedA: Counts
  expectedB: Counts
  replayed: string
  metrics: { before: Scrape; after: Scrape }
}

let dataset: Promise<Dataset> | null = null
function data(): Promise<Dataset> {
  dataset ??= (async () => {
    const before = await scrape()
    const adv = await h.advertiser()
    const [countryA, countryB] = [privateCountry(), privateCountry()]
    const a = await create(adv, countryA)
    const b = await create(adv, countryB)

    // Campaign A, 09:00: offers to viewers v1 (twice), v3 and v5.
    const d1 = (await decide(h.anonymous, { country: countryA, viewer_id: 'nb-v1' }))!
    const d2 = (await decide(h.anonymous, { country: countryA, viewer_id: 'nb-v1' }))!
    const d3 = (await decide(h.anonymous, { country: countryA, viewer_id: 'nb-v3' }))!
    const d5 = (await decide(h.anonymous, { country: countryA, viewer_id: 'nb-v5' }))!
    await advance(h, 10)
    assert.equal(await view(h.anonymous, d1.impression_id, 10_000), 204) // billable
    assert.equal(await view(h.anonymous, d2.impression_id, 10_000), 204) // viewer_frequency: v1 was billed just now
    assert.equal(await view(h.anonymous, d3.impression_id, 3_000), 204) // short_dwell
    const d4 = (await decide(h.anonymous, { country: countryA, viewer_id: 'nb-v4' }))!
    assert.equal(await view(h.anonymous, d4.impression_id, 10_000), 204) // too_fast: offered this instant
    // repeat: d1 replayed many times (once counted), d3 once.
    const replays = await Promise.all(Array.from({ length: 20 }, () => view(h.anonymous, d1.impression_id, 10_000)))
    assert.ok(replays.every((s) => s === 204))
    assert.equal(await view(h.anonymous, d3.impression_id, 12_000), 204)
    assert.equal(await served(adv, a.campaign), 1, 'repeats never bill')

    // Campaign B: its thousand impressions billed, then one more view of an offer made earlier: block_full.
    const offers = []
    for (let wave = 0; wave < 1001; wave += 250) {
      offers.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(250, 1001 - wave) }, (_, i) => decide(h.anonymous, { country: countryB, viewer_id: `nb-b-${wave + i}` })),
        )),
      )
    }
    const filled = offers.filter((o) => o !== null)
    assert.equal(filled.length, 1000)
    await advance(h, 10)
    assert.ok((await Promise.all(filled.slice(1).map((o) => view(h.anonymous, o.impression_id, 10_000)))).every((s) => s === 204))
    await advance(h, 20) // the unviewed offer no longer holds the last impression
    const last = (await decide(h.anonymous, { country: countryB, viewer_id: 'nb-b-last' }))!
    await advance(h, 10)
    assert.equal(await view(h.anonymous, last.impression_id, 10_000), 204)
    assert.equal(await view(h.anonymous, filled[0]!.impression_id, 10_000), 204) // block_full
    assert.equal(await served(adv, b.campaign), 1000)

    // expired: an hour later, d5 (never viewed) and d1 (measured) are reported: 410, recorded once each.
    await advance(h, 3_600)
    for (let i = 0; i < 5; i++) {
      assert.equal(await view(h.anonymous, d5.impression_id, 10_000), 410)
      assert.equal(await view(h.anonymous, d1.impression_id, 10_000), 410)
    }
    // The `events` the tests compare include the counted offers: in the store within 2 s, here at once.
    await offersWritten(h)
    return {
      adv,
      a,
      b,
      expectedA: counts({ short_dwell: 1, repeat: 2, too_fast: 1, viewer_frequency: 1, expired: 2 }),
      expectedB: counts({ block_full: 1 }),
      replayed: d1.impression_id,
      metrics: { before, after: await scrape() },
    }
  })()
  return dataset
}

test('a replayed view grows the ledger by at most one repeat and one late report per impression, and never bills', async () => {
  const { replayed } = await data()
  assert.deepEqual(
    (await ledgerRows(replayed)).map((r) => [r.event_type, r.reason, r.billable, r.debit_micros]),
    [
      ['impression', null, true, 2500],
      ['repeat_view', 'repeat', false, 0],
      ['expired_view', 'expired', false, 0],
    ],
    '20 repeats and 5 late reports of one impression: 2 rows (and its offer none: offers are counted, not stored)',
  )
})

test('every reason on the ledger path: totals, points and group_by=creative series; billable + Σ non_billable = recorded views', async () => {
  const { adv, a, b, expectedA, expectedB } = await data()
  const end = new Date(h.svc.clock.nowMs() + 1).toISOString()
  const window = `start=2026-11-02T00:00:00Z&end=${end}`
  const stats = (await adv.get(`/v1/stats?${window}&granularity=hour`)).body
  assert.equal(stats.served_from, 'ledger')
  const expected = addCounts(expectedA, expectedB)
  assert.deepEqual(stats.totals.non_billable, expected)
  assert.equal(stats.totals.billable_impressions, 1001)
  assert.equal(stats.totals.billable_impressions + sum(stats.totals.non_billable), await recordedViews(adv.userId, '2026-11-02T00:00:00Z', end))
  for (const p of stats.points) assert.deepEqual(Object.keys(p.non_billable).sort(), [...REASONS].sort(), 'always all six keys')
  const pointSums = counts(Object.fromEntries(REASONS.map((r) => [r, stats.points.reduce((n: number, p: any) => n + p.non_billable[r], 0)])))
  assert.deepEqual(pointSums, expected, 'points add up to the totals')
  assert.ok(stats.points.some((p: any) => p.non_billable.expired === 2), 'the late reports fall in the hour they were reported')

  const byCampaign = (await adv.get(`/v1/stats?${window}&campaign_id=${a.campaign}`)).body
  assert.deepEqual(byCampaign.totals.non_billable, expectedA)
  assert.equal(byCampaign.totals.billable_impressions, 1)

  const series = (await adv.get(`/v1/stats?${window}&granularity=hour&group_by=creative&creative_id=${a.creative},${b.creative}`)).body
  const [sa, sb] = [a.creative, b.creative].map((id) => series.series.find((s: any) => s.creative_id === id))
  assert.deepEqual(sa.totals.non_billable, expectedA)
  assert.deepEqual(sb.totals.non_billable, expectedB)
  assert.equal(sb.totals.billable_impressions + sum(sb.totals.non_billable), 1001)
  for (const s of [sa, sb]) {
    const fromPoints = counts(Object.fromEntries(REASONS.map((r) => [r, s.points.reduce((n: number, p: any) => n + p.non_billable[r], 0)])))
    assert.deepEqual(fromPoints, s.totals.non_billable)
  }
})

test('/metrics labels view requests by the same reasons', async () => {
  const { metrics } = await data()
  const delta = (reason: string) =>
    metrics.after.value('adapi_serve_views_total', { billable: 'false', reason }) - metrics.before.value('adapi_serve_views_total', { billable: 'false', reason })
  // Every request counts (a replay too), so a repeat counts each replay, a late report each 410.
  assert.equal(delta('short_dwell'), 1)
  assert.equal(delta('too_fast'), 1)
  assert.equal(delta('viewer_frequency'), 1)
  assert.equal(delta('block_full'), 1)
  assert.equal(delta('repeat'), 21)
  assert.equal(delta('expired'), 10)
  for (const old of ['duplicate', 'offer_expired', 'dwell_exceeds_elapsed', 'inventory_exhausted', 'campaign_cancelled']) {
    assert.equal(metrics.after.value('adapi_serve_views_total', { billable: 'false', reason: old }), 0, `${old} is no longer a label`)
  }
})

test('ledger-export-v3 per request: v2 columns plus non_billable_reason, reconciling with /stats; v1 and v2 keep their rows', async () => {
  const { adv, expectedA, expectedB } = await data()
  const end = new Date(h.svc.clock.nowMs() + 1).toISOString()
  const window = { start: '2026-11-02T00:00:00Z', end }
  const v3 = await exportCsv(adv, { ...window, schema_version: 'ledger-export-v3' })
  assert.equal(v3.job.schema_version, 'ledger-export-v3', 'echoed on the job')
  assert.equal(v3.header, 'timestamp,event_type,campaign_id,creative_id,surface,country,billable,debit_micros,processor_billing_country,non_billable_reason')
  const reasonOf = (row: string[]) => row[9]!
  const views = v3.rows.filter((r) => ['impression', 'view', 'repeat_view', 'expired_view'].includes(r[1]!))
  for (const row of v3.rows) {
    assert.equal(row.length, 10)
    assert.notEqual(row[1], 'offer', 'offers are counted, not exported')
    if (row[1] === 'impression' || row[1] === 'click') assert.equal(reasonOf(row), '', `blank on ${row[1]}`)
    else assert.ok((REASONS as readonly string[]).includes(reasonOf(row)), `${row[1]}: ${reasonOf(row)}`)
  }
  const byReason = counts(Object.fromEntries(REASONS.map((r) => [r, views.filter((row) => reasonOf(row) === r).length])))
  const stats = (await adv.get(`/v1/stats?start=${window.start}&end=${end}&granularity=hour`)).body
  assert.deepEqual(byReason, stats.totals.non_billable)
  assert.deepEqual(byReason, addCounts(expectedA, expectedB))
  assert.equal(views.filter((r) => r[6] === 'true').length, stats.totals.billable_impressions)
  assert.equal(views.length, stats.totals.billable_impressions + sum(stats.totals.non_billable), 'recorded views reconcile')

  // The default stays v2; v1 and v2 list exactly the events they always did (no repeat or late reports).
  const v2 = await exportCsv(adv, window)
  assert.equal(v2.job.schema_version, 'ledger-export-v2')
  assert.equal(v2.header, 'timestamp,event_type,campaign_id,creative_id,surface,country,billable,debit_micros,processor_billing_country')
  assert.ok(v2.rows.every((r) => r.length === 9 && ['impression', 'view', 'click'].includes(r[1]!)))
  assert.equal(v2.rows.length, v3.rows.length - sum(counts({ repeat: expectedA.repeat, expired: expectedA.expired })))
  assert.deepEqual(
    v2.rows.map((r) => r.join(',')),
    v3.rows.filter((r) => r[1] !== 'repeat_view' && r[1] !== 'expired_view').map((r) => r.slice(0, 9).join(',')),
  )
  const v1 = await exportCsv(adv, { ...window, schema_version: 'ledger-export-v1' })
  assert.equal(v1.job.schema_version, 'ledger-export-v1')
  assert.deepEqual(
    v1.rows.map((r) => r.join(',')),
    v2.rows.map((r) => r.slice(0, 8).join(',')),
  )

  const bad = await adv.post('/v1/exports', { ...window, schema_version: 'ledger-export-v9' })
  assert.equal(bad.status, 400)
  assert.equal(bad.body.detail.field, 'schema_version')
})

test('ledger-export-v3 through the operator config; a request naming a version still wins', async () => {
  const { adv } = await data()
  const window = { start: '2026-11-02T09:00:00Z', end: '2026-11-02T09:10:00Z' }
  const patched = await h.admin.patch('/admin/v1/config', { export_schema_version: 'ledger-export-v3' })
  assert.equal(patched.status, 200, patched.text)
  assert.equal(patched.body.export_schema_version, 'ledger-export-v3')
  try {
    const byConfig = await exportCsv(adv, window)
    assert.equal(byConfig.job.schema_version, 'ledger-export-v3')
    assert.ok(byConfig.header.endsWith(',non_billable_reason'))
    const byRequest = await adv.post('/v1/exports', { ...window, schema_version: 'ledger-export-v2' })
    assert.equal(byRequest.body.schema_version, 'ledger-export-v2')
  } finally {
    await h.config({ export_schema_version: 'ledger-export-v2' })
  }
  const refused = await h.admin.patch('/admin/v1/config', { export_schema_version: 'ledger-export-v9' })
  assert.equal(refused.status, 400)
})

test('reasons stored before issue 25 are read under their current names, on the ledger path and in v3', async () => {
  const adv = await h.advertiser()
  const rows = (['dwell_exceeds_elapsed', 'inventory_exhausted', 'campaign_cancelled', 'short_dwell'] as const).map(
    (reason, i) => sql`(${`2026-11-02T10:30:0${i}Z`}::timestamptz, 'view', ledger_claim_key(${`imp_legacy_${adv.userId}_${i}`}), ${adv.userId}, 'cmp_legacy', 'crv_legacy',
      'terminal', 'DE', false, 0, 10000, ${reason}, ${`vk_legacy_${i}`})`,
  )
  await sql`INSERT INTO ledger_events (occurred_at, event_type, impression_key, user_id, campaign_id, creative_id, surface, country, billable,
      debit_micros, dwell_ms, reason, viewer_key) VALUES ${sql.join(rows)}`.execute(db())
  const stats = (await adv.get('/v1/stats?start=2026-11-02T10:00:00Z&end=2026-11-02T11:00:00Z&granularity=hour')).body
  assert.deepEqual(stats.totals.non_billable, counts({ too_fast: 1, block_full: 2, short_dwell: 1 }))
  const v3 = await exportCsv(adv, { start: '2026-11-02T10:00:00Z', end: '2026-11-02T11:00:00Z', schema_version: 'ledger-export-v3' })
  assert.deepEqual(
    v3.rows.map((r) => r[9]),
    ['too_fast', 'block_full', 'block_full', 'short_dwell'],
  )
  // A view without a known reason cannot be written: the per-reason counts always add up.
  await assert.rejects(
    sql`INSERT INTO ledger_events (occurred_at, event_type, impression_key, user_id, campaign_id, creative_id, surface, billable, viewer_key, reason)
      VALUES (now(), 'view', ledger_claim_key('imp_no_reason'), ${adv.userId}, 'c', 'c', 'terminal', false, 'vk', NULL)`.execute(db()),
    (err: { code?: string }) => err.code === '23514',
  )
})

test('after the rollup job: the daily, campaign-filtered and hourly rollup paths and the creative read count the same', async () => {
  const { adv, a, expectedA, expectedB } = await data()
  const live = (await adv.get(`/v1/stats?${DAY}`)).body
  // The legacy test's advertiser is another account: these are only this account's views.
  assert.deepEqual(live.totals.non_billable, addCounts(expectedA, expectedB))
  assert.equal(live.served_from, 'ledger', 'before the day is closed')
  const liveByCampaign = (await adv.get(`/v1/stats?${DAY}&campaign_id=${a.campaign}`)).body
  const liveHours = (await adv.get(`/v1/stats?${DAY}&granularity=hour`)).body

  const moved = await h.admin.post('/admin/v1/clock', { now: '2026-11-03T00:20:00Z' })
  assert.equal(moved.status, 200, moved.text)
  const job = await h.admin.post('/admin/v1/jobs/rollups/run')
  assert.equal(job.status, 200, job.text)

  const rolled = (await adv.get(`/v1/stats?${DAY}`)).body
  assert.equal(rolled.served_from, 'daily_rollup')
  assert.deepEqual(rolled.totals, live.totals)
  assert.deepEqual(rolled.points, live.points)
  assert.equal(rolled.totals.billable_impressions + sum(rolled.totals.non_billable), await recordedViews(adv.userId, '2026-11-02T00:00:00Z', '2026-11-03T00:00:00Z'))

  const rolledByCampaign = (await adv.get(`/v1/stats?${DAY}&campaign_id=${a.campaign}`)).body
  assert.equal(rolledByCampaign.served_from, 'daily_rollup')
  assert.deepEqual(rolledByCampaign.totals, liveByCampaign.totals)
  assert.deepEqual(rolledByCampaign.totals.non_billable, expectedA)

  const month = (await adv.get('/v1/stats?start=2026-11-01T00:00:00Z&end=2026-11-03T00:00:00Z&granularity=month')).body
  assert.equal(month.served_from, 'daily_rollup')
  assert.deepEqual(month.points[0].non_billable, addCounts(expectedA, expectedB))

  // Whole closed days of an hourly window come from the hourly rollups.
  const rolledHours = (await adv.get(`/v1/stats?${DAY}&granularity=hour`)).body
  assert.deepEqual(rolledHours.points, liveHours.points)
  assert.deepEqual(rolledHours.totals, liveHours.totals)
  const hourly = await sql<{ n: string }>`SELECT coalesce(sum(nb_repeat + nb_expired), 0) AS n FROM hourly_rollups WHERE user_id = ${adv.userId}`.execute(db())
  assert.equal(Number(hourly.rows[0]!.n), expectedA.repeat + expectedA.expired, 'read from the hourly rollup rows')

  const creative = (await adv.get(`/v1/creatives/${a.creative}`)).body
  assert.equal(creative.delivery.metrics_availability, 'complete')
  assert.deepEqual(creative.delivery.non_billable, expectedA)
  const listed = (await adv.get('/v1/creatives')).body.creatives.find((c: any) => c.creative_id === a.creative)
  assert.equal(listed.delivery.non_billable, null, 'a collection read has no metrics')
})
