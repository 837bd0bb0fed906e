import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { advance, decide, privateCountry, served, view } from '../helpers/serving.ts'

const h = useService({}, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })

async function create(adv: Advertiser, country: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 1000, ...overrides }))
  assert.equal(res.status, 201, res.text)
  return res.body.campaign_id
}

test('the highest bid wins; equal bids go to the campaign created first', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  await create(adv, country, { cpm_usd: 1, ad_line: 'One dollar line' })
  await create(adv, country, { cpm_usd: 3, ad_line: 'Three dollar first' })
  await create(adv, country, { cpm_usd: 3, ad_line: 'Three dollar second' })
  await create(adv, country, { cpm_usd: 2, ad_line: 'Two dollar line' })
  const d = await decide(h.anonymous, { country })
  assert.equal(d?.ad_line, 'Three dollar first')
  assert.match(d!.view_url, /\/serve\/v1\/impressions\/imp_[^/]+\/view$/)
  assert.match(d!.click_url, /\/click$/)
})

test('a cheaper bid serves only when every better one is ineligible', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const best = await create(adv, country, { cpm_usd: 5, ad_line: 'Best bid line', target_surface: 'terminal' })
  await create(adv, country, { cpm_usd: 1, ad_line: 'Cheap bid line' })
  assert.equal((await decide(h.anonymous, { country, surface: 'terminal' }))?.ad_line, 'Best bid line')
  assert.equal((await decide(h.anonymous, { country, surface: 'extension' }))?.ad_line, 'Cheap bid line', 'surface mismatch')
  await adv.post(`/v1/campaigns/${best}/pause`)
  assert.equal((await decide(h.anonymous, { country, surface: 'terminal' })), null, 'the cheap one is extension-only')
})

test('pause, resume, cancel, rewrite and moderation take effect on the next decision', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await create(adv, country, { ad_line: 'Original line' })
  assert.equal((await decide(h.anonymous, { country }))?.ad_line, 'Original line')
  await adv.post(`/v1/campaigns/${id}/pause`)
  assert.equal(await decide(h.anonymous, { country }), null)
  await adv.post(`/v1/campaigns/${id}/resume`)
  assert.ok(await decide(h.anonymous, { country }))
  await adv.patch(`/v1/campaigns/${id}`, { ad_line: 'Rewritten line' })
  assert.equal((await decide(h.anonymous, { country }))?.ad_line, 'Rewritten line')
  await adv.patch(`/v1/campaigns/${id}`, { ad_line: 'Instant loans for freelancers' })
  assert.equal(await decide(h.anonymous, { country }), null, 'pending moderation does not serve')
  await h.admin.post(`/admin/v1/campaigns/${id}/moderation`, { status: 'approved' })
  assert.equal((await decide(h.anonymous, { country }))?.ad_line, 'Instant loans for freelancers')
  await h.admin.post(`/admin/v1/campaigns/${id}/moderation`, { status: 'rejected' })
  assert.equal(await decide(h.anonymous, { country }), null, 'rejected does not serve')
  await h.admin.post(`/admin/v1/campaigns/${id}/moderation`, { status: 'approved' })
  await adv.delete(`/v1/campaigns/${id}`)
  assert.equal(await decide(h.anonymous, { country }), null)
})

test('a staged campaign serves only after resume', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await create(adv, country, { start_paused: true })
  assert.equal(await decide(h.anonymous, { country }), null)
  await adv.post(`/v1/campaigns/${id}/resume`)
  assert.ok(await decide(h.anonymous, { country }))
})

test('country targeting: only listed countries; untargeted decisions never get targeted lines', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  await create(adv, country)
  assert.ok(await decide(h.anonymous, { country }))
  assert.equal(await decide(h.anonymous, { country: privateCountry() }), null)
})

test('blended orders serve on both surfaces', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  await h.config({ surface_split_enabled: false })
  try {
    await create(adv, country)
  } finally {
    await h.config({ surface_split_enabled: true })
  }
  assert.ok(await decide(h.anonymous, { country, surface: 'terminal' }))
  assert.ok(await decide(h.anonymous, { country, surface: 'extension' }))
})

test('pacing spreads delivery over pace_minutes, with paused time excluded', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  // 1,000 impressions over 100 minutes: at most 10 per elapsed minute, one per 6 s.
  const id = await create(adv, country, { pace_minutes: 100 })
  assert.equal(await decide(h.anonymous, { country }), null, 'nothing is due at the first instant')
  await advance(h, 6)
  const offers = [await decide(h.anonymous, { country }), await decide(h.anonymous, { country }), await decide(h.anonymous, { country })]
  assert.ok(offers.every(Boolean), 'offers are not deliveries')
  await advance(h, 10) // elapsed 16 s: 2.67 impressions due
  for (const o of offers) assert.equal(await view(h.anonymous, o!.impression_id, 10_000), 204)
  assert.equal(await served(adv, id), 3)
  assert.equal(await decide(h.anonymous, { country }), null, '3 delivered > 2.67 due: ahead of schedule')

  await adv.post(`/v1/campaigns/${id}/pause`)
  await advance(h, 3600)
  await adv.post(`/v1/campaigns/${id}/resume`)
  assert.equal(await decide(h.anonymous, { country }), null, 'the paused hour does not count')
  await advance(h, 2) // elapsed 18 s: exactly 3 due, still not below
  assert.equal(await decide(h.anonymous, { country }), null)
  await advance(h, 1) // elapsed 19 s: 3.17 due
  assert.ok(await decide(h.anonymous, { country }))
})

test('a campaign stops serving once it has delivered what it bought', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await create(adv, country, { impressions: 1000 })
  const offers = await Promise.all(Array.from({ length: 1001 }, (_, i) => decide(h.anonymous, { country, viewer_id: `exhaust-${i}` })))
  assert.ok(offers.every(Boolean), 'offers may exceed inventory; billing never does')
  await advance(h, 10)
  const statuses = await Promise.all(offers.map((o) => view(h.anonymous, o!.impression_id, 10_000)))
  assert.ok(statuses.every((s) => s === 204))
  const campaign = (await adv.get(`/v1/campaigns/${id}`)).body
  assert.equal(campaign.impressions_served, 1000)
  assert.equal(campaign.status, 'completed')
  assert.equal(campaign.blocks[0].status, 'exhausted')
  assert.equal(await decide(h.anonymous, { country }), null)
})

test('a decision with nothing eligible is 204 with no body; a filled one has exactly the documented fields', async () => {
  const none = await h.anonymous.post('/serve/v1/decisions', { surface: 'terminal', viewer_id: 'nobody-here', country: privateCountry() })
  assert.equal(none.status, 204)
  assert.equal(none.text, '')
  const adv = await h.advertiser()
  const country = privateCountry()
  await create(adv, country)
  const res = await h.anonymous.post('/serve/v1/decisions', { surface: 'extension', viewer_id: 'fields-viewer', country })
  assert.equal(res.status, 200)
  assert.deepEqual(Object.keys(res.body).sort(), ['ad_line', 'brand', 'click_url', 'icon_url', 'impression_id', 'view_url'])
})
