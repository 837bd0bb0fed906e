import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService } from '../helpers/api.ts'

// Many creates per test: the create rate limit has its own tests.
const h = useService({}, { create_rate_limit_per_min: 1000 })

test('a valid create answers 201 CampaignCreated and is readable at once', async () => {
  const adv = await h.advertiser()
  const res = await adv.post('/v1/campaigns', campaignBody({ cpm_usd: 2.5, impressions: 3000 }))
  assert.equal(res.status, 201, res.text)
  const c = res.body
  assert.match(c.campaign_id, /^cmp_/)
  assert.equal(c.creation_channel, 'advertiser_api')
  assert.equal(c.status, 'active')
  assert.equal(c.moderation_status, 'approved')
  assert.equal(c.impressions, 3000)
  assert.equal(c.blocks, 3)
  assert.equal(c.cpm_usd, 2.5)
  assert.equal(c.amount_cents, 750)
  assert.equal(c.currency, 'usd')
  assert.equal(c.billing, 'delivered_value_postpay')
  assert.equal(c.replayed, false)
  assert.equal(res.headers.get('idempotent-replayed'), null)

  const read = await adv.get(`/v1/campaigns/${c.campaign_id}`)
  assert.equal(read.status, 200)
  assert.equal(read.body.status, 'active')
  assert.equal(read.body.name, 'API campaign - 2026-11-02')
  assert.equal(read.body.created_at, h.svc.clock.now().toISOString())
  assert.equal(read.body.lifetime_spent_micros, 0)
  assert.deepEqual(
    read.body.blocks.map((b: any) => [b.status, b.impressions_served, b.impressions_target]),
    [['serving', 0, 1000], ['queued', 0, 1000], ['queued', 0, 1000]],
  )
  assert.equal(read.body.creatives.length, 1)
  assert.equal(read.body.creatives[0].campaign_id, c.campaign_id)
})

test('start_paused books the order with every block queued and no delivery', async () => {
  const adv = await h.advertiser()
  const res = await adv.post('/v1/campaigns', campaignBody({ start_paused: true }))
  assert.equal(res.status, 201)
  assert.equal(res.body.status, 'paused')
  const read = await adv.get(`/v1/campaigns/${res.body.campaign_id}`)
  assert.ok(read.body.blocks.every((b: any) => b.status === 'queued'))
})

test('amount_cents rounds the face value half up to cents', async () => {
  const adv = await h.advertiser()
  // 0.505 USD CPM × 1 block = 50.5 cents → 51.
  const res = await adv.post('/v1/campaigns', campaignBody({ cpm_usd: 0.505, impressions: 1000 }))
  assert.equal(res.status, 201, res.text)
  assert.equal(res.body.amount_cents, 51)
})

test('destination URL: a bare host gains a trailing slash; paths and queries are kept', async () => {
  const adv = await h.advertiser()
  const cases = [
    ['https://acme.dev', 'https://acme.dev/'],
    ['https://acme.dev?utm=a', 'https://acme.dev/?utm=a'],
    ['https://acme.dev/Path/?Q=%20x', 'https://acme.dev/Path/?Q=%20x'],
    ['https://acme.dev:8443', 'https://acme.dev:8443/'],
  ]
  for (const [input, expected] of cases) {
    const res = await adv.post('/v1/campaigns', campaignBody({ destination_url: input, impressions: 1000, cpm_usd: 0.5 }))
    assert.equal(res.status, 201, res.text)
    assert.equal((await adv.get(`/v1/campaigns/${res.body.campaign_id}`)).body.destination_url, expected)
  }
})

test('name, brand and lengths count grapheme clusters after trimming', async () => {
  const adv = await h.advertiser()
  const family = '👨‍👩‍👧'
  const ok = await adv.post('/v1/campaigns', campaignBody({ ad_line: family.repeat(60), name: `  ${'n'.repeat(120)}  `, brand: 'b'.repeat(120) }))
  assert.equal(ok.status, 201, ok.text)
  const read = await adv.get(`/v1/campaigns/${ok.body.campaign_id}`)
  assert.equal(read.body.name, 'n'.repeat(120))
  assert.equal(read.body.brand, 'b'.repeat(120))
  for (const [field, value, reason] of [
    ['ad_line', family.repeat(61), 'too_long'],
    ['ad_line', '  ab  ', 'too_short'],
    ['ad_line', 'Line with\u0007bell', 'control_characters'],
    ['ad_line', 'Right-to-left \u202Etrick', 'control_characters'],
    ['name', 'n'.repeat(121), 'too_long'],
    ['name', '', 'empty'],
    ['name', '   ', 'blank'],
    ['name', '\u200b\u200b', 'blank'],
    ['brand', 'b'.repeat(121), 'too_long'],
  ] as const) {
    const res = await adv.post('/v1/campaigns', campaignBody({ [field]: value }))
    assert.equal(res.status, 400, `${field}=${value}`)
    assert.equal(res.body.detail.field, field)
    assert.equal(res.body.detail.reason, reason)
  }
})

test('every CampaignCreate constraint is a 400 naming the input', async () => {
  const adv = await h.advertiser()
  const cases: [Record<string, unknown>, string, string][] = [
    [{ ad_line: undefined }, 'ad_line', 'required'],
    [{ destination_url: 'http://acme.dev/' }, 'destination_url', 'https_required'],
    [{ destination_url: 'https://user:pw@acme.dev/' }, 'destination_url', 'credentials_not_allowed'],
    [{ destination_url: `https://acme.dev/${'a'.repeat(490)}` }, 'destination_url', 'too_long'],
    [{ destination_url: 'not a url' }, 'destination_url', 'invalid_format'],
    [{ cpm_usd: 0 }, 'cpm_usd', 'below_minimum'],
    [{ cpm_usd: 0.49 }, 'cpm_usd', 'below_minimum'],
    [{ cpm_usd: 1.2345678 }, 'cpm_usd', 'too_precise'],
    [{ impressions: 500 }, 'impressions', 'below_minimum'],
    [{ impressions: 1500 }, 'impressions', 'not_a_multiple'],
    [{ impressions: 101_000 }, 'impressions', 'above_maximum'],
    [{ idempotency_key: '' }, 'idempotency_key', 'invalid_format'],
    [{ idempotency_key: 'has space' }, 'idempotency_key', 'invalid_format'],
    [{ idempotency_key: 'k'.repeat(65) }, 'idempotency_key', 'invalid_format'],
    [{ kind: 'video' }, 'kind', 'invalid_value'],
    [{ target_surface: 'both' }, 'target_surface', 'invalid_value'],
    [{ target_countries: ['us'] }, 'target_countries.0', 'invalid_format'],
    [{ target_countries: Array.from({ length: 21 }, (_, i) => `A${String.fromCharCode(65 + i)}`) }, 'target_countries', 'too_many_items'],
    [{ pace_minutes: 0 }, 'pace_minutes', 'below_minimum'],
    [{ pace_minutes: 10_081 }, 'pace_minutes', 'above_maximum'],
    [{ icon_url: 'ftp://acme.dev/i.png' }, 'icon_url', 'invalid_icon_url'],
    [{ icon_url: `data:image/png;base64,${'A'.repeat(12_000)}` }, 'icon_url', 'too_long'],
    [{ optin_leaderboard: 'yes' }, 'optin_leaderboard', 'invalid_type'],
    [{ colour: 'red' }, 'colour', 'unknown_field'],
  ]
  for (const [override, field, reason] of cases) {
    const res = await adv.post('/v1/campaigns', campaignBody(override))
    assert.equal(res.status, 400, `${JSON.stringify(override).slice(0, 80)} → ${res.text}`)
    assert.equal(res.body.detail.field, field, JSON.stringify(res.body))
    assert.equal(res.body.detail.reason, reason, JSON.stringify(res.body))
  }
  const fine = await adv.post('/v1/campaigns', campaignBody({ cpm_usd: 1.0000001 }))
  assert.equal(fine.body.detail.max_decimals, 6, 'a bid finer than a micro-USD per thousand is refused, not rounded')
  const floor = await adv.post('/v1/campaigns', campaignBody({ cpm_usd: 0.3 }))
  assert.equal(floor.body.detail.minimum, 0.5, 'the minimum-bid reason carries the floor')
  assert.equal((await adv.get('/v1/campaigns')).body.campaigns.length, 0, 'no rejected order was booked')
})

test('order total and block count are checked against the live config', async () => {
  const adv = await h.advertiser()
  await h.config({ max_total_usd: 100, max_blocks: 5 })
  try {
    const total = await adv.post('/v1/campaigns', campaignBody({ cpm_usd: 25, impressions: 5000 }))
    assert.equal(total.status, 400)
    assert.equal(total.body.detail.reason, 'order_total_exceeded')
    assert.equal(total.body.detail.max_total_usd, 100)
    assert.equal((await adv.post('/v1/campaigns', campaignBody({ cpm_usd: 20, impressions: 5000 }))).status, 201)
    const blocks = await adv.post('/v1/campaigns', campaignBody({ cpm_usd: 1, impressions: 6000 }))
    assert.equal(blocks.status, 400)
    assert.deepEqual(blocks.body.detail, { field: 'impressions', reason: 'too_many_blocks', max_blocks: 5 })
  } finally {
    await h.config({ max_total_usd: 5000, max_blocks: 100 })
  }
})

test('surface and country targeting follow the config switches and are never silently ignored', async () => {
  const adv = await h.advertiser()
  const ext = await adv.post('/v1/campaigns', campaignBody())
  assert.equal((await adv.get(`/v1/campaigns/${ext.body.campaign_id}`)).body.target_surface, 'extension')
  const term = await adv.post('/v1/campaigns', campaignBody({ target_surface: 'terminal', target_countries: ['US', 'DE', 'US'] }))
  const termRead = (await adv.get(`/v1/campaigns/${term.body.campaign_id}`)).body
  assert.equal(termRead.target_surface, 'terminal')
  assert.deepEqual(termRead.target_countries, ['DE', 'US'])

  await h.config({ surface_split_enabled: false, country_targeting_enabled: false })
  try {
    const surface = await adv.post('/v1/campaigns', campaignBody({ target_surface: 'terminal' }))
    assert.deepEqual(surface.body.detail, { field: 'target_surface', reason: 'surface_split_not_enabled' })
    const country = await adv.post('/v1/campaigns', campaignBody({ target_countries: ['US'] }))
    assert.deepEqual(country.body.detail, { field: 'target_countries', reason: 'country_targeting_not_enabled' })
    const blended = await adv.post('/v1/campaigns', campaignBody())
    assert.equal((await adv.get(`/v1/campaigns/${blended.body.campaign_id}`)).body.target_surface, 'blended')
  } finally {
    await h.config({ surface_split_enabled: true, country_targeting_enabled: true })
  }
})

test('content-safety hits are 400 with the category; borderline lines book as pending', async () => {
  const adv = await h.advertiser()
  for (const [line, category] of [
    ['Free CASINO bonus tonight', 'gambling'],
    ['F r e e  c.a.s.i.n.o  spins', 'gambling'],
    ['cаsino deals for devs', 'gambling'], // Cyrillic а
    ['Verify your wallet seed phrase', 'phishing'],
    ['p0rn for coders', 'adult'],
  ]) {
    const res = await adv.post('/v1/campaigns', campaignBody({ ad_line: line }))
    assert.equal(res.status, 400, line)
    assert.deepEqual(res.body.detail, { field: 'ad_line', reason: 'content_safety', category }, line)
  }
  const pending = await adv.post('/v1/campaigns', campaignBody({ ad_line: 'Instant loans for freelancers' }))
  assert.equal(pending.status, 201)
  assert.equal(pending.body.moderation_status, 'pending')
})

test('403 without approval or terms (403 wins over 402), 402 without billing; reads stay open', async () => {
  for (const [setup, status] of [
    [{ approved: false, terms: true, billing: 'card' }, 403],
    [{ approved: true, terms: false, billing: 'card' }, 403],
    [{ approved: false, terms: false, billing: 'none' }, 403],
    [{ approved: true, terms: true, billing: 'none' }, 402],
  ] as const) {
    const adv = await h.advertiser(setup)
    const res = await adv.post('/v1/campaigns', campaignBody())
    assert.equal(res.status, status, JSON.stringify(setup))
    // 403 is a sentence; 402 names its billing cause (docs/billing.md).
    if (status === 403) assert.equal(typeof res.body.detail, 'string')
    else assert.deepEqual(res.body.detail, { field: 'billing', reason: 'billing_not_enrolled', collection_status: 'not_enrolled' })
    assert.equal((await adv.get('/v1/campaigns')).status, 200)
    assert.equal((await adv.get('/v1/account')).status, 200)
  }
})

test('the outstanding-balance cap counts what is owed, not the face value of orders', async () => {
  const adv = await h.advertiser()
  await h.config({ outstanding_balance_cap_usd: 10 })
  try {
    // Nothing delivered, nothing owed: orders far above the cap are accepted, one after another.
    for (const impressions of [100_000, 100_000]) {
      const res = await adv.post('/v1/campaigns', campaignBody({ cpm_usd: 50, impressions }))
      assert.equal(res.status, 201, res.text)
    }
    // A cap of zero is reached by an account that owes nothing.
    await h.config({ outstanding_balance_cap_usd: 0 })
    const over = await adv.post('/v1/campaigns', campaignBody())
    assert.equal(over.status, 402, over.text)
    assert.deepEqual(over.body.detail, { field: 'impressions', reason: 'outstanding_balance_cap', cap_usd: 0, outstanding_cents: 0 })
  } finally {
    await h.config({ outstanding_balance_cap_usd: 10_000 })
  }
})

test('503 while campaign creation is disabled, with a do-not-loop detail', async () => {
  const adv = await h.advertiser()
  await h.admin.put('/admin/v1/components/campaign_creation', { state: 'disabled' })
  try {
    const res = await adv.post('/v1/campaigns', campaignBody())
    assert.equal(res.status, 503)
    assert.match(res.body.detail, /not accepting orders/)
  } finally {
    await h.admin.put('/admin/v1/components/campaign_creation', { state: 'operational' })
  }
})
