import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { sql } from 'kysely'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { advance, decide, deliver, offersWritten, view } from '../helpers/serving.ts'

// The clock starts Monday 2026-11-02 09:00 UTC; the dataset below runs to 2026-12-02 01:00.
const h = useService({}, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null })

async function moveTo(iso: string): Promise<void> {
  const res = await h.admin.post('/admin/v1/clock', { now: iso })
  assert.equal(res.status, 200, res.text)
}

interface Dataset {
  adv: Advertiser
  other: Advertiser
  ext: { campaign: string; creative: string }
  term: { campaign: string; creative: string }
}

let dataset: Promise<Dataset> | null = null
/** One account with an extension and a terminal campaign, delivered across midnight and a month end. */
function data(): Promise<Dataset> {
  dataset ??= (async () => {
    const adv = await h.advertiser()
    const other = await h.advertiser()
    const make = async (surface: string, cpm: number) => {
      const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: ['AA', 'AB'], target_surface: surface, cpm_usd: cpm, impressions: 5000 }))
      assert.equal(res.status, 201, res.text)
      const read = await adv.get(`/v1/campaigns/${res.body.campaign_id}`)
      return { campaign: res.body.campaign_id as string, creative: read.body.creatives[0].creative_id as string }
    }
    const ext = await make('extension', 2)
    const term = await make('terminal', 3)
    await deliver(h, 'AA', 3, 'extension') // 2026-11-02 09:00
    await deliver(h, 'AB', 2, 'terminal')
    await moveTo('2026-11-02T23:59:40Z')
    await deliver(h, 'AA', 2, 'extension') // offers and views before midnight
    // The midnight viewer: offer and click 23:59:50, view 00:00:00 on 11-03 (a viewer of both days: offers carry no viewer).
    const d = await decide(h.anonymous, { country: 'AA', surface: 'extension', viewer_id: `midnight-${process.pid}` })
    assert.ok(d)
    assert.equal((await h.anonymous.get(new URL(d.click_url).pathname)).status, 302)
    await advance(h, 10)
    assert.equal(await view(h.anonymous, d.impression_id, 10_000), 204)
    await moveTo('2026-11-30T23:59:55Z')
    await deliver(h, 'AB', 2, 'terminal') // offers on 11-30, views on 12-01
    await moveTo('2026-12-01T12:00:00Z')
    await deliver(h, 'AA', 1, 'extension')
    await moveTo('2026-12-02T01:00:00Z') // rollups closed through 12-01
    return { adv, other, ext, term }
  })()
  return dataset
}

/**
 * The offers counted in [start, end) (offer_counts, migration 0030): a count belongs to the window when
 * its UTC minute starts in it. `extra` filters on columns both tables have (surface, country).
 */
async function offerCounts(userId: string, start: string, end: string, g: string | null, extra = sql``) {
  const r = await sql<{ bucket: Date | null; offers: string }>`
    SELECT ${g === null ? sql`NULL::timestamptz` : sql`date_trunc(${g}, minute, 'UTC')`} AS bucket, sum(offers) AS offers
    FROM offer_counts WHERE user_id = ${userId} AND minute >= ${new Date(start)} AND minute < ${new Date(end)} ${extra}
    GROUP BY 1 ORDER BY 1`.execute(h.svc.service.store.db)
  return r.rows.map((row) => ({ bucket: row.bucket === null ? null : new Date(row.bucket).toISOString(), offers: Number(row.offers) }))
}

/** Totals straight from the ledger, plus the counted offers in `events`, for comparison. */
async function ledgerTotals(userId: string, start: string, end: string, extra = sql``) {
  const r = await sql<{ events: string; billable: string; spend: string; viewers: string; clicks: string }>`
    SELECT count(*) AS events, count(*) FILTER (WHERE event_type = 'impression') AS billable,
      coalesce(sum(debit_micros), 0) AS spend, count(DISTINCT viewer_key) AS viewers,
      count(*) FILTER (WHERE event_type = 'click') AS clicks
    FROM ledger_events WHERE user_id = ${userId} AND occurred_at >= ${new Date(start)} AND occurred_at < ${new Date(end)} ${extra}`.execute(
    h.svc.service.store.db,
  )
  const row = r.rows[0]!
  const offers = (await offerCounts(userId, start, end, null, extra))[0]?.offers ?? 0
  return {
    events: Number(row.events) + offers,
    billable_impressions: Number(row.billable),
    spend_micros: Number(row.spend),
    unique_viewers: Number(row.viewers),
    clicks: Number(row.clicks),
  }
}

/** Points straight from the ledger plus the counted offers (buckets with events), for comparison. */
async function ledgerPoints(userId: string, start: string, end: string, g: string, extra = sql``) {
  const r = await sql<{ bucket: Date; events: string; billable: string; spend: string; viewers: string; clicks: string }>`
    SELECT date_trunc(${g}, occurred_at, 'UTC') AS bucket, count(*) AS events, count(*) FILTER (WHERE event_type = 'impression') AS billable,
      coalesce(sum(debit_micros), 0) AS spend, count(DISTINCT viewer_key) AS viewers, count(*) FILTER (WHERE event_type = 'click') AS clicks
    FROM ledger_events WHERE user_id = ${userId} AND occurred_at >= ${new Date(start)} AND occurred_at < ${new Date(end)} ${extra}
    GROUP BY 1 ORDER BY 1`.execute(h.svc.service.store.db)
  const points = r.rows.map((row) => ({
    bucket: new Date(row.bucket).toISOString(),
    events: Number(row.events),
    billable_impressions: Number(row.billable),
    spend_micros: Number(row.spend),
    unique_viewers: Number(row.viewers),
    clicks: Number(row.clicks),
  }))
  for (const o of await offerCounts(userId, start, end, g, extra)) {
    const known = points.find((p) => p.bucket === o.bucket)
    if (known) known.events += o.offers
    else points.push({ bucket: o.bucket!, events: o.offers, billable_impressions: 0, spend_micros: 0, unique_viewers: 0, clicks: 0 })
  }
  return points.sort((a, b) => a.bucket.localeCompare(b.bucket))
}

const pick = (m: any) => ({ events: m.events, billable_impressions: m.billable_impressions, spend_micros: m.spend_micros, unique_viewers: m.unique_viewers, clicks: m.clicks })

test('the default window is the last seven complete UTC days, served from rollups', async () => {
  const { adv } = await data()
  const res = await adv.get('/v1/stats')
  assert.equal(res.status, 200, res.text)
  assert.equal(res.body.start, '2026-11-25T00:00:00.000Z')
  assert.equal(res.body.end, '2026-12-02T00:00:00.000Z')
  assert.equal(res.body.granularity, 'day')
  assert.equal(res.body.served_from, 'daily_rollup')
  assert.deepEqual(res.body.filters, {})
  assert.deepEqual(pick(res.body.totals), await ledgerTotals(adv.userId, res.body.start, res.body.end))
  assert.equal(res.body.totals.billable_impressions, 3)
  assert.equal(res.body.totals.spend_micros, 2 * 3000 + 2000)
  // Zero-activity days are omitted; 11-30 has only the offers.
  assert.deepEqual(res.body.points.map((p: any) => [p.bucket, p.billable_impressions]), [
    ['2026-11-30T00:00:00.000Z', 0],
    ['2026-12-01T00:00:00.000Z', 3],
  ])
  const same = await adv.get('/v1/stats?last_days=7')
  assert.deepEqual(same.body, res.body, 'last_days=7 equals no window')
})

test('day buckets across midnight and a month end, from rollups and from the ledger alike', async () => {
  const { adv } = await data()
  const window = 'start=2026-11-01T00:00:00Z&end=2026-12-02T00:00:00Z'
  const rolled = (await adv.get(`/v1/stats?${window}`)).body
  const live = (await adv.get(`/v1/stats?${window}&country=AA,AB`)).body
  assert.equal(rolled.served_from, 'daily_rollup')
  assert.equal(live.served_from, 'ledger', 'a country filter reads the ledger')
  assert.deepEqual(rolled.totals, live.totals)
  assert.deepEqual(rolled.points, live.points)
  const days = rolled.points.map((p: any) => [p.bucket.slice(0, 10), p.billable_impressions, p.events])
  assert.deepEqual(days, [
    ['2026-11-02', 7, 16], // 7 impressions, 8 counted offers and a click: the last offer is on 11-02, its view on 11-03
    ['2026-11-03', 1, 1],
    ['2026-11-30', 0, 2],
    ['2026-12-01', 3, 4],
  ])
  assert.deepEqual(pick(rolled.totals), await ledgerTotals(adv.userId, '2026-11-01T00:00:00Z', '2026-12-02T00:00:00Z'))
  const months = (await adv.get(`/v1/stats?${window}&granularity=month`)).body
  assert.equal(months.served_from, 'daily_rollup')
  assert.deepEqual(months.points.map((p: any) => [p.bucket, p.billable_impressions]), [
    ['2026-11-01T00:00:00.000Z', 8],
    ['2026-12-01T00:00:00.000Z', 3],
  ])
})

test('explicit unaligned bounds are honoured verbatim; labels name the UTC bucket; the ledger serves them', async () => {
  const { adv } = await data()
  const res = (await adv.get('/v1/stats?start=2026-11-02T23:59:45Z&end=2026-11-03T00:00:01Z')).body
  assert.equal(res.start, '2026-11-02T23:59:45.000Z')
  assert.equal(res.end, '2026-11-03T00:00:01.000Z')
  assert.equal(res.served_from, 'ledger')
  assert.deepEqual(res.points.map((p: any) => [p.bucket, p.events]), [
    // Two views and a click at 23:59:50; the offers of 23:59 count in windows holding their whole minute, not this one.
    ['2026-11-02T00:00:00.000Z', 3],
    ['2026-11-03T00:00:00.000Z', 1], // its view, just after midnight
  ])
  const hours = (await adv.get('/v1/stats?start=2026-11-02T23:00:00Z&end=2026-11-03T01:00:00Z&granularity=hour')).body
  assert.equal(hours.served_from, 'ledger')
  assert.deepEqual(hours.points.map((p: any) => p.bucket), ['2026-11-02T23:00:00.000Z', '2026-11-03T00:00:00.000Z'])
})

test('unique viewers are distinct per bucket and over the whole interval, also from rollups', async () => {
  const { adv } = await data()
  const res = (await adv.get('/v1/stats?start=2026-11-02T00:00:00Z&end=2026-11-04T00:00:00Z')).body
  assert.equal(res.served_from, 'daily_rollup')
  const [d2, d3] = res.points
  assert.equal(d2.unique_viewers, 8)
  assert.equal(d3.unique_viewers, 1, 'the midnight viewer is counted on both days')
  assert.equal(res.totals.unique_viewers, 8, 'but once over the interval: never the sum of buckets')
})

test('filters intersect and are checked against the account', async () => {
  const { adv, other, ext, term } = await data()
  const window = 'start=2026-11-01T00:00:00Z&end=2026-12-02T00:00:00Z'
  const byCampaign = (await adv.get(`/v1/stats?${window}&campaign_id=${term.campaign}`)).body
  assert.equal(byCampaign.totals.billable_impressions, 4)
  assert.deepEqual(byCampaign.filters, { campaign_ids: [term.campaign] })
  const none = (await adv.get(`/v1/stats?${window}&campaign_id=${term.campaign}&surface=extension`)).body
  assert.equal(none.totals.events, 0, 'intersection of terminal campaign and extension surface')
  assert.deepEqual(none.points, [], 'an empty result is a measured zero')
  const creative = (await adv.get(`/v1/stats?${window}&creative_id=${ext.creative}&country=AA`)).body
  assert.equal(creative.totals.billable_impressions, 7)
  for (const q of [`campaign_id=${ext.campaign},cmp_unknown`, `creative_id=${ext.creative}`]) {
    const res = await other.get(`/v1/stats?${window}&${q}`)
    assert.equal(res.status, 404, q)
  }
})

test('window rules: conflicting_window, range ceilings, bad input', async () => {
  const { adv } = await data()
  const cases: [string, string, string][] = [
    ['last_days=3&start=2026-11-01T00:00:00Z', 'start', 'conflicting_window'],
    ['last_days=3&end=2026-11-01T00:00:00Z', 'end', 'conflicting_window'],
    ['granularity=hour&start=2026-10-01T00:00:00Z&end=2026-11-02T00:00:00Z', 'end', 'range_too_large'],
    ['start=2024-11-01T00:00:00Z&end=2026-11-03T00:00:00Z', 'end', 'range_too_large'],
    ['granularity=month&start=2016-01-01T00:00:00Z&end=2026-11-01T00:00:00Z', 'end', 'range_too_large'],
    ['last_days=3654', 'last_days', 'above_maximum'],
    ['start=2026-11-02T00:00:00Z&end=2026-11-01T00:00:00Z', 'end', 'end_not_after_start'],
    ['granularity=week', 'granularity', 'invalid_value'],
    ['surface=desktop', 'surface', 'invalid_value'],
    ['country=usa', 'country', 'invalid_format'],
    ['group_by=creative', 'creative_id', 'required_with_group_by_creative'],
    ['start=yesterday', 'start', 'invalid_format'],
  ]
  for (const [q, field, reason] of cases) {
    const res = await adv.get(`/v1/stats?${q}`)
    assert.equal(res.status, 400, q)
    assert.equal(res.body.detail.field, field, q)
    assert.equal(res.body.detail.reason, reason, q)
  }
  assert.equal((await adv.get('/v1/stats?granularity=month&last_days=3653')).status, 200)
})

test('group_by=creative: one zero-filled series per creative on one UTC spine', async () => {
  const { adv, ext, term } = await data()
  const res = (await adv.get(`/v1/stats?start=2026-11-29T00:00:00Z&end=2026-12-02T00:00:00Z&group_by=creative&creative_id=${ext.creative},${term.creative}`)).body
  assert.equal(res.served_from, 'ledger')
  assert.equal(res.series.length, 2)
  const spine = ['2026-11-29T00:00:00.000Z', '2026-11-30T00:00:00.000Z', '2026-12-01T00:00:00.000Z']
  for (const s of res.series) assert.deepEqual(s.points.map((p: any) => p.bucket), spine)
  const e = res.series.find((s: any) => s.creative_id === ext.creative)
  const t = res.series.find((s: any) => s.creative_id === term.creative)
  assert.equal(e.campaign_id, ext.campaign)
  assert.deepEqual(e.points.map((p: any) => p.billable_impressions), [0, 0, 1])
  assert.deepEqual(t.points.map((p: any) => p.billable_impressions), [0, 0, 2])
  assert.deepEqual(t.points.map((p: any) => p.events), [0, 2, 2])
  assert.deepEqual(t.sample_size, { events: 4, billable_impressions: 2, unique_viewers: 2 })
  assert.match(t.caveat, /not causal/)
})

test('window_too_costly: refused at once with the estimate and a retry window that works', async () => {
  const { adv } = await data()
  await h.config({ stats_max_live_events: 10 })
  try {
    const sent = 'start=2026-11-02T06:00:00Z&end=2026-11-04T00:00:00Z'
    const res = await adv.get(`/v1/stats?${sent}`)
    assert.equal(res.status, 400)
    assert.equal(res.body.detail.reason, 'window_too_costly')
    assert.equal(res.body.detail.max_events, 10)
    assert.ok(res.body.detail.estimated_events > 10)
    const retry = res.body.detail.retry_with
    assert.deepEqual(retry, { start: '2026-11-02T00:00:00.000Z', end: '2026-11-04T00:00:00.000Z', granularity: 'day' })
    const ok = await adv.get(`/v1/stats?start=${retry.start}&end=${retry.end}`)
    assert.equal(ok.status, 200)
    assert.equal(ok.body.served_from, 'daily_rollup')

    // An hourly window on whole closed days reads no ledger (hourly rollups): served at once.
    const closed = await adv.get('/v1/stats?granularity=hour&start=2026-11-02T00:00:00Z&end=2026-11-04T00:00:00Z')
    assert.equal(closed.status, 200, closed.text)
    assert.equal(closed.body.served_from, 'ledger')
    // A clipped first day is read from the ledger: refused, with the window snapped onto whole days.
    const clipped = await adv.get('/v1/stats?granularity=hour&start=2026-11-02T06:00:00Z&end=2026-11-04T00:00:00Z')
    assert.equal(clipped.status, 400)
    assert.equal(clipped.body.detail.reason, 'window_too_costly')
    assert.deepEqual(clipped.body.detail.retry_with, { start: '2026-11-02T00:00:00.000Z', end: '2026-11-04T00:00:00.000Z', granularity: 'hour' })

    // A window only the ledger can serve (a country filter) cannot be snapped: the retry is a shorter window with the same end.
    const hourly = await adv.get('/v1/stats?granularity=hour&start=2026-11-02T00:00:00Z&end=2026-11-04T00:00:00Z&country=AA,AB')
    assert.equal(hourly.status, 400)
    const shorter = hourly.body.detail.retry_with
    assert.equal(shorter.end, '2026-11-04T00:00:00.000Z')
    assert.notEqual(shorter.start, '2026-11-02T00:00:00.000Z')
    assert.equal((await adv.get(`/v1/stats?granularity=hour&start=${shorter.start}&end=${shorter.end}&country=AA,AB`)).status, 200)

    // Nothing smaller helps when a single day is already over the limit: no retry_with.
    const oneDay = await adv.get('/v1/stats?granularity=hour&start=2026-11-02T00:00:00Z&end=2026-11-03T00:00:00Z&country=AA,AB')
    assert.equal(oneDay.status, 400)
    assert.equal(oneDay.body.detail.retry_with, undefined)
  } finally {
    await h.config({ stats_max_live_events: 5_000_000 })
  }
})

test('rollups rerun idempotently; while they lag, reporting is degraded and /stats reads the ledger', async () => {
  const { adv, ext } = await data()
  const before = (await adv.get('/v1/stats?start=2026-11-01T00:00:00Z&end=2026-12-02T00:00:00Z')).body
  const rows = async () =>
    h.svc.service.store.db.selectFrom('daily_rollups').selectAll().where('user_id', '=', adv.userId).orderBy(['day', 'creative_id', 'surface']).execute()
  const hourlyRows = async () =>
    (
      await sql<Record<string, unknown>>`SELECT r.*, v.viewers FROM hourly_rollups r LEFT JOIN hourly_viewers v ON v.user_id = r.user_id AND v.hour = r.hour
        WHERE r.user_id = ${adv.userId} ORDER BY r.hour, r.creative_id, r.surface`.execute(h.svc.service.store.db)
    ).rows
  const rowsBefore = await rows()
  const hourlyBefore = await hourlyRows()
  assert.ok(hourlyBefore.length > 0)
  assert.equal((await h.admin.post('/admin/v1/jobs/rollups/run')).status, 200)
  await h.svc.service.store.db.updateTable('rollup_state').set({ rolled_through: '2026-11-15' }).execute()
  assert.equal((await h.admin.post('/admin/v1/jobs/rollups/run')).status, 200, 'catch-up replaces days, never adds')
  assert.deepEqual(await rows(), rowsBefore)
  assert.deepEqual(await hourlyRows(), hourlyBefore, 'hourly rows too')
  assert.deepEqual((await adv.get('/v1/stats?start=2026-11-01T00:00:00Z&end=2026-12-02T00:00:00Z')).body, before)

  await h.svc.service.store.db.updateTable('rollup_state').set({ rolled_through: '2026-11-29' }).execute()
  try {
    const account = (await adv.get('/v1/account')).body
    assert.equal(account.access.reporting, 'degraded')
    assert.equal((await h.anonymous.get('/v1/status')).body.components.reporting, 'degraded')
    const live = (await adv.get('/v1/stats?start=2026-11-01T00:00:00Z&end=2026-12-02T00:00:00Z')).body
    assert.equal(live.served_from, 'ledger')
    assert.deepEqual(live.totals, before.totals)
    const creative = (await adv.get(`/v1/creatives/${ext.creative}`)).body
    assert.equal(creative.delivery.metrics_availability, 'temporarily_unavailable')
    assert.equal(creative.delivery.billable_impressions, null)
  } finally {
    await h.admin.post('/admin/v1/jobs/rollups/run')
  }
  assert.equal((await adv.get('/v1/account')).body.access.reporting, 'operational')
  const creative = (await adv.get(`/v1/creatives/${ext.creative}`)).body
  assert.equal(creative.delivery.metrics_availability, 'complete')
  assert.equal(creative.delivery.billable_impressions, 7)
  assert.equal(creative.delivery.spend_micros, 7 * 2000)
  assert.equal(creative.delivery.first_served_at, '2026-11-02T09:00:10.000Z')
})

test('unavailable reporting is a 503, never zeros', async () => {
  const { adv } = await data()
  await h.admin.put('/admin/v1/components/reporting', { state: 'disabled' })
  try {
    const res = await adv.get('/v1/stats')
    assert.equal(res.status, 503)
    assert.ok(res.body.detail)
  } finally {
    await h.admin.put('/admin/v1/components/reporting', { state: 'operational' })
  }
})

test('an empty account answers measured zeros', async () => {
  await data()
  const fresh = await h.advertiser()
  const res = (await fresh.get('/v1/stats')).body
  assert.deepEqual(res.points, [])
  assert.equal(res.totals.events, 0)
  assert.equal(res.totals.ctr, 0)
})

test('property: /stats totals over random windows equal a direct sum over the ledger', async () => {
  const { adv } = await data()
  const from = Date.parse('2026-11-01T00:00:00Z')
  const to = Date.parse('2026-12-02T00:00:00Z')
  const hour = 3_600_000
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: from, max: to - 1 }),
      fc.integer({ min: 1, max: to - from }),
      fc.boolean(),
      fc.constantFrom('hour', 'day', 'month'),
      fc.constantFrom('', '&country=AA', '&surface=terminal'),
      async (startMs, length, align, granularity, filter) => {
        let start = startMs
        let end = Math.min(to, startMs + (granularity === 'hour' ? Math.min(length, 31 * 24 * hour) : length))
        if (align) {
          start = Math.floor(start / (24 * hour)) * 24 * hour
          end = Math.max(start + 24 * hour, Math.floor(end / (24 * hour)) * 24 * hour)
        }
        const startIso = new Date(start).toISOString()
        const endIso = new Date(end).toISOString()
        const res = await adv.get(`/v1/stats?start=${startIso}&end=${endIso}&granularity=${granularity}${filter}`)
        assert.equal(res.status, 200, res.text)
        const extra = filter === '&country=AA' ? sql`AND country = 'AA'` : filter === '&surface=terminal' ? sql`AND surface = 'terminal'` : sql``
        assert.deepEqual(pick(res.body.totals), await ledgerTotals(adv.userId, startIso, endIso, extra))
        const summed = res.body.points.reduce((n: number, p: any) => n + p.spend_micros, 0)
        assert.equal(summed, res.body.totals.spend_micros, 'buckets add up to the totals (spend)')
        // Every bucket, unique viewers included, equals the ledger's (clipped by the window).
        assert.deepEqual(
          res.body.points.map((p: any) => ({ bucket: p.bucket, ...pick(p) })),
          await ledgerPoints(adv.userId, startIso, endIso, granularity, extra),
        )
      },
    ),
    { numRuns: 60 },
  )
})

test('hourly windows: whole closed days from hourly rollups, edges and the live tail from the ledger, exactly', async () => {
  const { adv } = await data()
  const compare = async (query: string) => {
    const res = await adv.get(`/v1/stats?granularity=hour&${query}`)
    assert.equal(res.status, 200, res.text)
    assert.equal(res.body.served_from, 'ledger', 'rule 4: hour granularity answers ledger')
    // The same window with a country filter matching every event reads the ledger alone.
    const live = await adv.get(`/v1/stats?granularity=hour&${query}&country=AA,AB`)
    assert.equal(live.status, 200, live.text)
    assert.deepEqual(res.body.totals, live.body.totals, query)
    assert.deepEqual(res.body.points, live.body.points, query)
    assert.deepEqual(pick(res.body.totals), await ledgerTotals(adv.userId, res.body.start, res.body.end), query)
    assert.deepEqual(
      res.body.points.map((p: any) => ({ bucket: p.bucket, ...pick(p) })),
      await ledgerPoints(adv.userId, res.body.start, res.body.end, 'hour'),
      query,
    )
    return res.body
  }
  // Whole closed days only (the 31-day ceiling).
  const whole = await compare('start=2026-11-01T00:00:00Z&end=2026-12-02T00:00:00Z')
  assert.equal(whole.totals.unique_viewers, 11)
  assert.equal(whole.points.length, 6)
  // A clipped first day and a partial last day: the viewer of the click at 23:59:50 (clipped day) and its
  // view at 00:00:00 (a whole day) is one viewer. 5, not 6: the viewer offered at 12-01 12:00:00 (viewed at
  // 12:00:10, past the end) only received an offer, and offers carry no viewer.
  const edges = await compare('start=2026-11-02T12:00:00Z&end=2026-12-01T12:00:00.001Z')
  assert.equal(edges.totals.unique_viewers, 5)
  await compare('start=2026-11-02T23:59:45Z&end=2026-11-04T00:00:00Z')
  await compare('start=2026-11-30T23:00:00Z&end=2026-12-01T00:00:00Z')
  // After the watermark: a viewer seen on 11-02 comes back today (12-02, not rolled up yet), and a new one.
  const country = 'AA'
  const again = await decide(h.anonymous, { country, surface: 'extension', viewer_id: `deliver-${process.pid}-0-0` })
  const fresh = await decide(h.anonymous, { country, surface: 'terminal', viewer_id: `hourly-tail-${process.pid}` })
  assert.ok(again && fresh)
  await advance(h, 10)
  // Viewers are counted by their views (an offer carries none); the offers are counted in the store within 2 s, here at once.
  assert.deepEqual(await Promise.all([again, fresh].map((d) => view(h.anonymous, d.impression_id, 10_000))), [204, 204])
  await offersWritten(h)
  const tail = await compare(`start=2026-11-02T00:00:00Z&end=${new Date(h.svc.clock.nowMs() + 1000).toISOString()}`)
  assert.equal(tail.totals.unique_viewers, 12, 'the returning viewer is counted once, the new one once')
  // Filtered hourly windows read the ledger (per-hour viewers are kept per account only), and stay exact.
  const filtered = (await adv.get('/v1/stats?granularity=hour&start=2026-11-01T00:00:00Z&end=2026-12-02T00:00:00Z&surface=terminal')).body
  assert.deepEqual(pick(filtered.totals), await ledgerTotals(adv.userId, filtered.start, filtered.end, sql`AND surface = 'terminal'`))
})
