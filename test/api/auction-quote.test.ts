import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, Client, useService, type Advertiser, type Reply } from '../helpers/api.ts'
import { advance, deliver, offersWritten, privateCountry } from '../helpers/serving.ts'

/**
 * GET /v1/auction/quote over real HTTP, every answer checked against the
 * OpenAPI document (the Client does). Campaigns are targeted at a country of
 * each test's own on the extension surface, and quotes ask about that
 * country, so tests never see each other's queue or traffic.
 */
const h = useService({}, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })

async function create(adv: Advertiser, countries: string[], overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: countries, impressions: 1000, ...overrides }))
  assert.equal(res.status, 201, res.text)
  return res.body.campaign_id
}

function quote(adv: Client, params: Record<string, string | number>): Promise<Reply> {
  return adv.get(`/v1/auction/quote?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`)
}

async function place(adv: Client, params: Record<string, string | number>): Promise<{ rank: number; impressions_ahead: number }> {
  const res = await quote(adv, params)
  assert.equal(res.status, 200, res.text)
  return { rank: res.body.rank, impressions_ahead: res.body.impressions_ahead }
}

const iso = (ms: number) => new Date(ms).toISOString()

test('rank and impressions_ahead across advertisers: the auction order, a new bid loses ties, delivered impressions are not queued', async () => {
  const [a, b, quoter] = [await h.advertiser(), await h.advertiser(), await h.advertiser()]
  const country = privateCountry()
  await create(a, [country], { cpm_usd: 3, impressions: 1000, brand: 'Alpha Brand' })
  await create(b, [country], { cpm_usd: 2, impressions: 2000, brand: 'Beta Brand' })
  await create(a, [country], { cpm_usd: 2, impressions: 3000 })
  await create(quoter, [country], { cpm_usd: 1, impressions: 4000 })

  const q = (cpm: number, extra: Record<string, string | number> = {}) => place(quoter, { cpm_usd: cpm, target_countries: country, ...extra })
  assert.deepEqual(await q(3.5), { rank: 1, impressions_ahead: 0 })
  assert.deepEqual(await q(3), { rank: 2, impressions_ahead: 1000 }, 'equal to the best bid: created later, so behind it')
  assert.deepEqual(await q(2.5), { rank: 2, impressions_ahead: 1000 })
  assert.deepEqual(await q(2), { rank: 4, impressions_ahead: 6000 })
  assert.deepEqual(await q(1), { rank: 5, impressions_ahead: 10_000 }, "the caller's own campaign at the same bid is ahead too")
  assert.deepEqual(await q(0.5), { rank: 5, impressions_ahead: 10_000 })
  // A click bid ranks by expected value per impression: its CPM × the 1 % prior CTR (no clicks observed here).
  assert.deepEqual(await q(2.5, { kind: 'click' }), { rank: 5, impressions_ahead: 10_000 }, '$2.50 a thousand clicks is worth $0.025 a thousand impressions')
  assert.deepEqual(await q(250, { kind: 'click' }), { rank: 2, impressions_ahead: 1000 }, '$250 a thousand clicks at 1 % is worth $2.50')

  // Delivered impressions leave the queue: 3 billable impressions go to the best bid (997 left, shown to two significant figures).
  assert.equal(await deliver(h, country, 3), 3)
  assert.deepEqual(await q(2.5), { rank: 2, impressions_ahead: 1000 })
  assert.equal(await deliver(h, country, 20), 20)
  assert.deepEqual(await q(2.5), { rank: 2, impressions_ahead: 980 }, '977 left')

  // Nothing in the answer names or prices another advertiser's campaign.
  const res = await quote(quoter, { cpm_usd: 0.5, target_countries: country })
  const campaigns: { campaign_id: string; creative_id?: string }[] = [...(await a.get('/v1/campaigns')).body.campaigns, ...(await b.get('/v1/campaigns')).body.campaigns]
  for (const secret of [a.userId, b.userId, 'Alpha Brand', 'Beta Brand', 'Ship faster', 'acme.dev', ...campaigns.map((c) => c.campaign_id)]) {
    assert.ok(!res.text.includes(secret), `the quote reveals ${secret}`)
  }
  assert.deepEqual(Object.keys(res.body).sort(), ['based_on', 'clearing_cpm_usd', 'estimated_completion_at', 'estimated_start_at', 'impressions_ahead', 'rank'])
})

test('targeting overlap: campaigns count when they share a surface and a country (or target the world)', async () => {
  const [adv, quoter] = [await h.advertiser(), await h.advertiser()]
  const [c1, c2] = [privateCountry(), privateCountry()]
  await create(adv, [c1, c2], { cpm_usd: 2, impressions: 1000 })
  await create(adv, [c2], { cpm_usd: 3, impressions: 2000 })
  await create(adv, [c1], { cpm_usd: 5, impressions: 4000, target_surface: 'terminal' })

  assert.deepEqual(await place(quoter, { cpm_usd: 1, target_countries: c1 }), { rank: 2, impressions_ahead: 1000 })
  assert.deepEqual(await place(quoter, { cpm_usd: 1, target_countries: c2 }), { rank: 3, impressions_ahead: 3000 })
  assert.deepEqual(await place(quoter, { cpm_usd: 1, target_countries: `${c1},${c2}` }), { rank: 3, impressions_ahead: 3000 })
  assert.deepEqual(await place(quoter, { cpm_usd: 1, target_countries: `${c2},${c1},${c2}` }), { rank: 3, impressions_ahead: 3000 }, 'a list is deduplicated')
  assert.deepEqual(await place(quoter, { cpm_usd: 1, target_countries: c1, target_surface: 'terminal' }), { rank: 2, impressions_ahead: 4000 })
  assert.deepEqual(await place(quoter, { cpm_usd: 1, target_countries: c2, target_surface: 'terminal' }), { rank: 1, impressions_ahead: 0 })
  const res = await quote(quoter, { cpm_usd: 1, target_countries: `${c2},${c1}` })
  assert.deepEqual(res.body.based_on.surfaces, ['extension'])
  assert.deepEqual(res.body.based_on.countries, [c1, c2].sort())
})

test('campaigns that cannot serve are not counted: paused, staged, pending or rejected, cancelled, exhausted, stopped by billing', async () => {
  const [adv, quoter] = [await h.advertiser(), await h.advertiser()]
  const country = privateCountry()
  await create(adv, [country], { cpm_usd: 1, impressions: 1000 })
  const paused = await create(adv, [country], { cpm_usd: 5 })
  assert.equal((await adv.post(`/v1/campaigns/${paused}/pause`)).status, 200)
  await create(adv, [country], { cpm_usd: 5, start_paused: true })
  const pending = await create(adv, [country], { cpm_usd: 5, ad_line: 'Instant loans for freelancers' })
  const rejected = await create(adv, [country], { cpm_usd: 5, ad_line: 'Instant loans for developers' })
  assert.equal((await h.admin.post(`/admin/v1/campaigns/${rejected}/moderation`, { status: 'rejected', reason: 'misleading' })).status, 200)
  const cancelled = await create(adv, [country], { cpm_usd: 5 })
  assert.equal((await adv.delete(`/v1/campaigns/${cancelled}`)).status, 200)
  const held = await h.advertiser()
  await create(held, [country], { cpm_usd: 5 })
  const hold = await h.admin.post(`/admin/v1/accounts/${held.userId}/billing/hold`, { hold: 'disabled' })
  assert.equal(hold.status, 200, hold.text)
  assert.equal((await adv.get(`/v1/campaigns/${pending}`)).body.moderation_status, 'pending')

  assert.deepEqual(await place(quoter, { cpm_usd: 2, target_countries: country }), { rank: 1, impressions_ahead: 0 })
  assert.deepEqual(await place(quoter, { cpm_usd: 1, target_countries: country }), { rank: 2, impressions_ahead: 1000 })

  // Resumed, the paused campaign is back ahead (it kept its place).
  assert.equal((await adv.post(`/v1/campaigns/${paused}/resume`)).status, 200)
  assert.deepEqual(await place(quoter, { cpm_usd: 2, target_countries: country }), { rank: 2, impressions_ahead: 1000 })

  // Exhausted: a campaign that delivered everything it bought leaves the queue.
  const exhausted = privateCountry()
  await create(adv, [exhausted], { cpm_usd: 5, impressions: 1000 })
  assert.deepEqual(await place(quoter, { cpm_usd: 2, target_countries: exhausted }), { rank: 2, impressions_ahead: 1000 })
  assert.equal(await deliver(h, exhausted, 1000), 1000)
  assert.deepEqual(await place(quoter, { cpm_usd: 2, target_countries: exhausted }), { rank: 1, impressions_ahead: 0 })
})

test('estimates: null without traffic; from the billable impressions of the last hour once real decisions and views made some', async () => {
  const [adv, quoter] = [await h.advertiser(), await h.advertiser()]
  const country = privateCountry()
  await create(adv, [country], { cpm_usd: 3.07, impressions: 2000 })

  const before = await quote(quoter, { cpm_usd: 2, target_countries: country })
  assert.equal(before.status, 200, before.text)
  const now0 = h.svc.clock.nowMs()
  assert.deepEqual(before.body, {
    rank: 2,
    impressions_ahead: 2000,
    clearing_cpm_usd: null,
    estimated_start_at: null,
    estimated_completion_at: null,
    based_on: {
      window_start: iso(now0 - 3_600_000),
      window_end: iso(now0),
      billable_impressions: 0,
      surfaces: ['extension'],
      countries: [country],
      topics: null,
      topic_share: null,
      decisions_counted: null,
      impressions: 1000,
      kind: 'impression',
    },
  })

  // Four decisions, ten seconds, four billable views: 4 billable impressions in the hour, 900 s each.
  assert.equal(await deliver(h, country, 4), 4)
  // The clearing price reads the counted offers: in the store within 2 s, here at once.
  await offersWritten(h)
  const now = h.svc.clock.nowMs()
  const res = await quote(quoter, { cpm_usd: 2, target_countries: country, impressions: 3000 })
  assert.equal(res.status, 200, res.text)
  assert.deepEqual(res.body, {
    rank: 2,
    impressions_ahead: 2000,
    clearing_cpm_usd: 3,
    estimated_start_at: iso(now + 2000 * 900_000),
    estimated_completion_at: iso(now + (2000 + 3000) * 900_000),
    based_on: {
      window_start: iso(now - 3_600_000),
      window_end: iso(now),
      billable_impressions: 4,
      surfaces: ['extension'],
      countries: [country],
      topics: null,
      topic_share: null,
      decisions_counted: null,
      impressions: 3000,
      kind: 'impression',
    },
  })
  assert.ok(!res.text.includes('3.07'), 'the clearing price is a level (its band, $3.00–3.30), not the exact bid')
  assert.ok(!res.text.includes('1996'), 'nor the exact inventory left, which the estimates are computed from the shown figure')

  // At the head of the queue, delivery starts now.
  const first = await quote(quoter, { cpm_usd: 4, target_countries: country })
  assert.equal(first.body.estimated_start_at, iso(now))
  assert.equal(first.body.estimated_completion_at, iso(now + 1000 * 900_000))

  // Another country's traffic says nothing about this one; the terminal surface has none either.
  assert.equal((await quote(quoter, { cpm_usd: 4, target_countries: privateCountry() })).body.estimated_start_at, null)
  assert.equal((await quote(quoter, { cpm_usd: 4, target_countries: country, target_surface: 'terminal' })).body.clearing_cpm_usd, null)

  // An hour later the traffic is out of the window: no estimate again. Offers are counted per UTC minute, and
  // the clearing price reads the minutes that start in the window.
  await advance(h, 3601 + 60)
  const later = await quote(quoter, { cpm_usd: 2, target_countries: country })
  assert.equal(later.body.based_on.billable_impressions, 0)
  assert.equal(later.body.estimated_start_at, null)
  assert.equal(later.body.clearing_cpm_usd, null)
})

test('a quote writes nothing and needs no write access', async () => {
  const quoter = await h.advertiser({ approved: false, terms: false, billing: 'none' })
  const country = privateCountry()
  const res = await quote(quoter, { cpm_usd: 1, target_countries: country })
  assert.equal(res.status, 200, res.text)
  assert.equal(res.headers.get('cache-control'), 'no-store')
  assert.deepEqual((await quoter.get('/v1/campaigns')).body.campaigns, [])
  assert.deepEqual(await place(quoter, { cpm_usd: 1, target_countries: country }), { rank: 1, impressions_ahead: 0 })
})

test('401 without valid credentials', async () => {
  const adv = await h.advertiser()
  assert.equal((await quote(h.anonymous, { cpm_usd: 1 })).status, 401)
  const wrong = new Client(h, { 'x-service-user-id': adv.userId, 'x-service-api-key': 'sk_live_wrong' })
  const res = await quote(wrong, { cpm_usd: 1 })
  assert.equal(res.status, 401)
  assert.deepEqual(res.body, { detail: 'invalid credentials' })
})

test('400 with the create rules and reasons', async () => {
  const adv = await h.advertiser()
  const refused = async (params: Record<string, string | number>, detail: Record<string, unknown>) => {
    const res = await quote(adv, params)
    assert.equal(res.status, 400, res.text)
    assert.deepEqual(res.body.detail, detail, JSON.stringify(params))
  }
  await refused({}, { field: 'cpm_usd', reason: 'required' })
  await refused({ cpm_usd: 'two' }, { field: 'cpm_usd', reason: 'invalid_type', expected: 'number' })
  await refused({ cpm_usd: 0 }, { field: 'cpm_usd', reason: 'below_minimum', minimum: 0 })
  await refused({ cpm_usd: 0.4 }, { field: 'cpm_usd', reason: 'below_minimum', minimum: 0.5 })
  await refused({ cpm_usd: 1.0000001 }, { field: 'cpm_usd', reason: 'too_precise', max_decimals: 6 })
  await refused({ cpm_usd: 1, impressions: 1500 }, { field: 'impressions', reason: 'not_a_multiple', multiple_of: 1000 })
  await refused({ cpm_usd: 1, impressions: 200_000 }, { field: 'impressions', reason: 'above_maximum', maximum: 100_000 })
  await refused({ cpm_usd: 100, impressions: 100_000 }, { field: 'cpm_usd', reason: 'order_total_exceeded', max_total_usd: 5000, order_total_usd: 10_000 })
  await refused({ cpm_usd: 1, target_surface: 'both' }, { field: 'target_surface', reason: 'invalid_value', allowed: ['extension', 'terminal'] })
  await refused({ cpm_usd: 1, target_countries: 'usa' }, { field: 'target_countries', reason: 'invalid_format' })
  await refused({ cpm_usd: 1, target_countries: ',' }, { field: 'target_countries', reason: 'empty' })
  const many = Array.from({ length: 21 }, (_, i) => `Q${String.fromCharCode(65 + i)}`).join(',')
  await refused({ cpm_usd: 1, target_countries: many }, { field: 'target_countries', reason: 'too_many_items', limit: 20 })
  await refused({ cpm_usd: 1, kind: 'cpc' }, { field: 'kind', reason: 'invalid_value', allowed: ['impression', 'click'] })
  await refused({ cpm_usd: 1, sort: 'rank' }, { field: 'sort', reason: 'unknown_parameter' })

  // The live config's gates, as POST /campaigns applies them.
  await h.config({ min_cpm_usd: 1.5, max_blocks: 2, surface_split_enabled: false, country_targeting_enabled: false })
  try {
    await refused({ cpm_usd: 1 }, { field: 'cpm_usd', reason: 'below_minimum', minimum: 1.5 })
    await refused({ cpm_usd: 2, impressions: 3000 }, { field: 'impressions', reason: 'too_many_blocks', max_blocks: 2 })
    await refused({ cpm_usd: 2, target_surface: 'extension' }, { field: 'target_surface', reason: 'surface_split_not_enabled' })
    await refused({ cpm_usd: 2, target_countries: 'US' }, { field: 'target_countries', reason: 'country_targeting_not_enabled' })
    const blended = await quote(adv, { cpm_usd: 2 })
    assert.equal(blended.status, 200, blended.text)
    assert.deepEqual(blended.body.based_on.surfaces, ['extension', 'terminal'], 'split off: a bid serves on both surfaces')
    assert.equal(blended.body.based_on.countries, null)
  } finally {
    await h.config({ min_cpm_usd: 0.5, max_blocks: 100, surface_split_enabled: true, country_targeting_enabled: true })
  }
})

test('a quote counts against the read rate limit, like every other read', async () => {
  await h.config({ read_rate_limit_per_min: 3 })
  try {
    const adv = await h.advertiser()
    const first = await quote(adv, { cpm_usd: 1, target_countries: privateCountry() })
    assert.equal(first.status, 200, first.text)
    assert.equal(first.headers.get('ratelimit-policy'), '"requests";q=3;w=60')
    assert.match(first.headers.get('ratelimit') ?? '', /^"requests";r=2;t=\d+$/)
    assert.equal((await adv.get('/v1/account')).status, 200)
    assert.equal((await quote(adv, { cpm_usd: 1 })).status, 200)
    const over = await quote(adv, { cpm_usd: 1 })
    assert.equal(over.status, 429, over.text)
    assert.ok(over.headers.get('retry-after'))
    assert.equal((await adv.get('/v1/account')).status, 429, 'the quotes spent the shared read budget')
  } finally {
    await h.config({ read_rate_limit_per_min: 60 })
    await advance(h, 60)
  }
})
