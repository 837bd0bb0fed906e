import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { campaignBody, Client, useService, type Advertiser } from '../helpers/api.ts'
import { advance, decide, privateCountry, view, type Decision } from '../helpers/serving.ts'
import { ADMIN_TOKEN } from '../helpers/service.ts'
import { Scrape } from '../helpers/metrics.ts'

// Invalid traffic at the edge (issue 32, part 1; operations.md section 2, "Invalid traffic"): what one
// source (an IPv4 address or an IPv6 /64, after TRUST_PROXY) can make billable is bounded per UTC day
// (distinct viewers) and per UTC hour (billable units); the rest answers 204 and is recorded
// non-billable as invalid_traffic, in /v1/stats, the v3 export, the rollups and /metrics.
// The manual clock starts Monday 2026-11-02 09:00 UTC.

const h = useService({}, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null })
const db = () => h.svc.service.store.db

/** A client whose every request comes from `address` (TRUST_PROXY is 1 in tests). */
const from = (address: string) => new Client(h, { 'x-forwarded-for': address })

async function campaign(adv: Advertiser, country: string, blocks = 2): Promise<string> {
  const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: blocks * 1000, cpm_usd: 5 }))
  assert.equal(res.status, 201, res.text)
  return res.body.campaign_id
}

/** One round: a decision for each viewer from its address, ten seconds, then a view of each with `dwellMs`. */
async function round(country: string, viewers: readonly { id: string; address: string }[], dwellMs = 10_000): Promise<Decision[]> {
  const offers = await Promise.all(viewers.map((v) => decide(h.anonymous, { country, viewer_id: v.id }, v.address)))
  await advance(h, 10)
  const filled = offers.filter((o): o is Decision => o !== null)
  assert.equal(filled.length, viewers.length, 'every decision is filled')
  for (const status of await Promise.all(filled.map((o, i) => from(viewers[i]!.address).post(`/serve/v1/impressions/${o.impression_id}/view`, { dwell_ms: dwellMs }).then((r) => r.status)))) {
    assert.equal(status, 204)
  }
  return filled
}

async function stats(adv: Advertiser, campaignId: string) {
  const res = await adv.get(`/v1/stats?campaign_id=${campaignId}&start=2026-11-02T00:00:00Z&end=2026-11-09T00:00:00Z`)
  assert.equal(res.status, 200, res.text)
  return res.body.totals
}

async function scrape(): Promise<Scrape> {
  const res = await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  return new Scrape(await res.text())
}

const botnet = (prefix: string, n: number, address: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${process.pid}-${i}`, address: address(i) }))

test('a botnet of 500 invented viewers behind one address bills no more than the bounds; the rest is invalid_traffic', async () => {
  await h.config({ ivt_max_billable_per_source_per_hour: 120 })
  try {
    const adv = await h.advertiser()
    const country = privateCountry()
    const id = await campaign(adv, country)
    const bots = botnet('bot', 500, () => '203.0.113.66')
    const before = await scrape()
    // Round 1: only the first 50 viewers of the day bill; rounds 2 and 3: the same 50 again, until the hour's 120.
    for (let r = 0; r < 3; r++) await round(country, bots)
    const totals = await stats(adv, id)
    assert.equal(totals.billable_impressions, 120)
    assert.equal(totals.non_billable.invalid_traffic, 1500 - 120)
    assert.equal(totals.spend_micros, 600_000)
    const after = await scrape()
    const delta = (labels: Record<string, string>) => after.value('adapi_serve_views_total', labels) - before.value('adapi_serve_views_total', labels)
    assert.equal(delta({ billable: 'false', reason: 'invalid_traffic' }), 1380)
    assert.equal(delta({ billable: 'true' }), 120)
    // The store's counts say the same: 50 viewers of the day, 120 units of the hour.
    const counts = await db().selectFrom('source_counts').select(['viewers', 'hour_billable']).where('source', '=', '203.0.113.66').executeTakeFirstOrThrow()
    assert.deepEqual(counts, { viewers: 50, hour_billable: 120 })
    // Every ledger row of the botnet carries its source; the billable ones belong to 50 viewers.
    const rows = await sql<{ billable: number; viewers: number; sourced: number }>`
      SELECT count(*) FILTER (WHERE event_type = 'impression') AS billable,
             count(DISTINCT viewer_key) FILTER (WHERE event_type = 'impression') AS viewers,
             count(*) FILTER (WHERE source = '203.0.113.66') AS sourced
      FROM ledger_events WHERE campaign_id = ${id} AND event_type IN ('impression', 'view')`.execute(db())
    assert.deepEqual(rows.rows[0], { billable: 120, viewers: 50, sourced: 1500 })
  } finally {
    await h.config({ ivt_max_billable_per_source_per_hour: 1000 })
  }
})

test('the next UTC hour and the next UTC day open the bounds again', async () => {
  await h.config({ ivt_max_billable_per_source_per_hour: 30, ivt_max_viewers_per_source_per_day: 20 })
  try {
    const adv = await h.advertiser()
    const country = privateCountry()
    const id = await campaign(adv, country)
    const bots = botnet('hourly', 40, () => '203.0.113.67')
    await round(country, bots) // 20 viewers bill
    await round(country, bots) // 10 more: the hour's 30
    assert.equal((await stats(adv, id)).billable_impressions, 30)
    await advance(h, 3600)
    await round(country, bots) // a new hour: the same 20 viewers
    assert.equal((await stats(adv, id)).billable_impressions, 50)
    const now = new Date(h.svc.clock.nowMs())
    await advance(h, Math.ceil((Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000) + 60)
    const tomorrow = botnet('hourly-next', 40, () => '203.0.113.67')
    await round(country, tomorrow) // a new day: 20 new viewers
    const read = await adv.get(`/v1/campaigns/${id}`)
    assert.equal(read.body.impressions_served, 70)
  } finally {
    await h.config({ ivt_max_billable_per_source_per_hour: 1000, ivt_max_viewers_per_source_per_day: 50 })
  }
})

test('an IPv6 botnet spread over one /64 counts as one source; another /64 is another source', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await campaign(adv, country)
  const spread = botnet('v6', 120, (i) => `2001:db8:77:1:${((i * 7919) % 0xffff).toString(16)}:${i.toString(16)}::${(i + 1).toString(16)}`)
  await round(country, spread)
  assert.equal((await stats(adv, id)).billable_impressions, 50)
  const neighbour = botnet('v6-next', 10, (i) => `2001:db8:77:2::${i + 1}`)
  await round(country, neighbour)
  const totals = await stats(adv, id)
  assert.equal(totals.billable_impressions, 60)
  assert.equal(totals.non_billable.invalid_traffic, 70)
  const counted = await db().selectFrom('source_counts').select(['source', 'viewers']).where('source', 'like', '2001:db8:77:%/64').orderBy('source').execute()
  assert.deepEqual(counted, [
    { source: '2001:db8:77:1::/64', viewers: 50 },
    { source: '2001:db8:77:2::/64', viewers: 10 },
  ])
})

test('ten /64s of one IPv6 /48 bill no more than the /48\'s bounds together; another /48 is unaffected', async () => {
  // Each /64 stays far inside its own bounds (50 viewers, 1000 units); the /48 as a whole is bounded lower.
  await h.config({ ivt_max_billable_per_ipv6_48_per_hour: 30, ivt_max_viewers_per_ipv6_48_per_day: 12 })
  try {
    const adv = await h.advertiser()
    const country = privateCountry()
    const id = await campaign(adv, country)
    const spread = botnet('v6-48', 60, (i) => `2001:db8:48:${i % 10}::${(i + 1).toString(16)}`)
    await round(country, spread) // the /48's first 12 viewers of the day bill
    await round(country, spread) // the same 12 again: 24 units
    await round(country, spread) // 6 more: the hour's 30
    let totals = await stats(adv, id)
    assert.equal(totals.billable_impressions, 30)
    assert.equal(totals.non_billable.invalid_traffic, 180 - 30)
    // The store counts the /48 as a whole, beside each /64 it holds, and they agree.
    const whole = await db().selectFrom('source_counts').select(['viewers', 'hour_billable']).where('source', '=', '2001:db8:48::/48').executeTakeFirstOrThrow()
    assert.deepEqual(whole, { viewers: 12, hour_billable: 30 })
    const parts = await db().selectFrom('source_counts').select(['source', 'viewers', 'hour_billable']).where('source', 'like', '2001:db8:48:%/64').execute()
    assert.ok(parts.length >= 2, 'the billable units came from several /64s')
    assert.equal(parts.reduce((n, p) => n + p.hour_billable, 0), 30)
    assert.equal(parts.reduce((n, p) => n + p.viewers, 0), 12)
    // Its first viewer of the day is held in its counts row, the other 11 listed (migration 0041).
    const members = await db().selectFrom('source_day_viewers').select((eb) => eb.fn.countAll<number>().as('n')).where('source', '=', '2001:db8:48::/48').executeTakeFirstOrThrow()
    assert.equal(Number(members.n), 11)
    const first = await db().selectFrom('source_counts').select('first_viewer').where('source', '=', '2001:db8:48::/48').executeTakeFirstOrThrow()
    const listed = await db().selectFrom('source_day_viewers').select('viewer_key').where('source', '=', '2001:db8:48::/48').execute()
    assert.ok(first.first_viewer !== null && !listed.some((v) => v.viewer_key === first.first_viewer), 'the first viewer is held once, in the counts row')
    // Another /48 has bounds of its own.
    const other = botnet('v6-48-next', 8, (i) => `2001:db8:49:${i}::1`)
    await round(country, other)
    totals = await stats(adv, id)
    assert.equal(totals.billable_impressions, 38)
    assert.equal(totals.non_billable.invalid_traffic, 150)
    // The next UTC hour opens the /48's hour again, for the viewers it already counted today.
    await advance(h, 3600)
    await round(country, spread) // the 12 viewers of the day, and no new one
    assert.equal((await stats(adv, id)).billable_impressions, 38 + 12)
  } finally {
    await h.config({ ivt_max_billable_per_ipv6_48_per_hour: 2000, ivt_max_viewers_per_ipv6_48_per_day: 100 })
  }
})

test('the /48 bounds are operator config: defaults 2000 and 100, never 0, in the operator OpenAPI', async () => {
  const config = (await h.admin.get('/admin/v1/config')).body
  assert.equal(config.ivt_max_billable_per_ipv6_48_per_hour, 2000)
  assert.equal(config.ivt_max_viewers_per_ipv6_48_per_day, 100)
  for (const field of ['ivt_max_billable_per_ipv6_48_per_hour', 'ivt_max_viewers_per_ipv6_48_per_day']) {
    for (const bad of [0, 1.5, -3, 'ten']) {
      const refused = await h.admin.patch('/admin/v1/config', { [field]: bad })
      assert.equal(refused.status, 400, `${field}: ${bad}`)
      assert.equal(refused.body.detail.field, field)
    }
  }
  try {
    const patched = await h.admin.patch('/admin/v1/config', { ivt_max_billable_per_ipv6_48_per_hour: 5000, ivt_max_viewers_per_ipv6_48_per_day: 250 })
    assert.equal(patched.status, 200, patched.text)
    assert.equal(patched.body.ivt_max_billable_per_ipv6_48_per_hour, 5000)
    assert.equal(patched.body.ivt_max_viewers_per_ipv6_48_per_day, 250)
  } finally {
    await h.config({ ivt_max_billable_per_ipv6_48_per_hour: 2000, ivt_max_viewers_per_ipv6_48_per_day: 100 })
  }
  const doc = (await h.admin.get('/admin/v1/openapi.json')).body
  const described = (field: string): string[] => {
    const found: string[] = []
    const walk = (node: unknown): void => {
      if (node === null || typeof node !== 'object') return
      const props = (node as { properties?: Record<string, { description?: string }> }).properties
      if (props?.[field]?.description) found.push(props[field].description)
      for (const child of Object.values(node)) walk(child)
    }
    walk(doc)
    return found
  }
  assert.match(described('ivt_max_billable_per_ipv6_48_per_hour')[0] ?? '', /\/48.*hour/)
  assert.match(described('ivt_max_viewers_per_ipv6_48_per_day')[0] ?? '', /\/48.*day/)
})

test('50 honest viewers behind one office address keep billing: a few views each, varied dwell, some clicks', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await campaign(adv, country)
  const office = botnet('office', 50, () => '198.51.100.200')
  let billable = 0
  for (let r = 0; r < 3; r++) {
    const offers = await Promise.all(office.map((v) => decide(h.anonymous, { country, viewer_id: v.id }, v.address)))
    await advance(h, 31)
    const dwell = (i: number) => [9_500, 12_345, 30_000, 4_000, 15_000][(i + r) % 5]!
    await Promise.all(offers.map((o, i) => view(from('198.51.100.200'), o!.impression_id, dwell(i))))
    billable += offers.filter((_, i) => dwell(i) >= 9_500).length
    for (const o of offers.filter((_, i) => i % 7 === r)) assert.equal((await from('198.51.100.200').get(`/serve/v1/impressions/${o!.impression_id}/click`)).status, 302)
  }
  const totals = await stats(adv, id)
  assert.equal(totals.billable_impressions, billable)
  assert.equal(totals.non_billable.invalid_traffic, 0)
  assert.ok(totals.clicks > 0)
})

test('a replayed view and a batch judged again never count twice against the bounds', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  await campaign(adv, country)
  const viewers = botnet('replay', 5, () => '203.0.113.68')
  const offers = await round(country, viewers)
  for (let i = 0; i < 3; i++) await Promise.all(offers.map((o) => view(from('203.0.113.68'), o.impression_id, 10_000)))
  const counts = await db().selectFrom('source_counts').select(['viewers', 'hour_billable']).where('source', '=', '203.0.113.68').executeTakeFirstOrThrow()
  assert.deepEqual(counts, { viewers: 5, hour_billable: 5 })
})

test('a click campaign: billable clicks count against the bounds and past them are invalid_traffic', async () => {
  await h.config({ ivt_max_viewers_per_source_per_day: 3 })
  try {
    const adv = await h.advertiser()
    const country = privateCountry()
    const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 1000, cpm_usd: 50, kind: 'click' }))
    assert.equal(res.status, 201, res.text)
    const bots = botnet('clicker', 6, () => '203.0.113.69')
    const offers = await Promise.all(bots.map((v) => decide(h.anonymous, { country, viewer_id: v.id }, v.address)))
    for (const o of offers) assert.equal((await from('203.0.113.69').get(`/serve/v1/impressions/${o!.impression_id}/click`)).status, 302)
    const clicks = await db().selectFrom('ledger_events').select(['billable', 'reason']).where('campaign_id', '=', res.body.campaign_id).where('event_type', '=', 'click').execute()
    assert.equal(clicks.filter((c) => c.billable).length, 3)
    assert.deepEqual(clicks.filter((c) => !c.billable).map((c) => c.reason), ['invalid_traffic', 'invalid_traffic', 'invalid_traffic'])
  } finally {
    await h.config({ ivt_max_viewers_per_source_per_day: 50 })
  }
})

test('the authentication lockout counts an IPv6 /64 as one source', async () => {
  const wrong = { 'x-service-user-id': 'usr_nobody', 'x-service-api-key': 'sk_live_wrong' }
  for (let i = 1; i <= 10; i++) {
    const res = await new Client(h, { ...wrong, 'x-forwarded-for': `2001:db8:99:5::${i.toString(16)}` }).get('/v1/account')
    assert.equal(res.status, 401)
  }
  const sameNetwork = await new Client(h, { ...wrong, 'x-forwarded-for': '2001:db8:99:5:ffff::1' }).get('/v1/account')
  assert.equal(sameNetwork.status, 429, 'another address of the same /64 is locked out')
  const otherNetwork = await new Client(h, { ...wrong, 'x-forwarded-for': '2001:db8:99:6::1' }).get('/v1/account')
  assert.equal(otherNetwork.status, 401)
})
