import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { advance, decide, privateCountry, served, view } from '../helpers/serving.ts'
import { impressionKey } from '../helpers/impression-key.ts'

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

test('pacing spreads delivery over pace_minutes, outstanding offers counted, paused time excluded', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  // 1,000 impressions over 100 minutes: the k-th is due once 6k seconds have elapsed.
  const id = await create(adv, country, { pace_minutes: 100 })
  assert.equal(await decide(h.anonymous, { country }), null, 'nothing is due at the first instant')
  await advance(h, 6)
  const first = await decide(h.anonymous, { country })
  assert.ok(first)
  assert.equal(await decide(h.anonymous, { country }), null, 'the offer not yet viewed counts as delivered')
  await advance(h, 10) // elapsed 16 s: 2.67 due
  assert.equal(await view(h.anonymous, first.impression_id, 10_000), 204)
  assert.equal(await served(adv, id), 1)
  assert.ok(await decide(h.anonymous, { country }), 'the view released its offer: 1 billed + 1 offered <= 2.67')
  assert.equal(await decide(h.anonymous, { country }), null, '3 > 2.67: ahead of schedule')

  await advance(h, 30) // elapsed 46 s: 7.67 due; the offer made at 16 s was never viewed and no longer counts
  const offers = []
  for (let i = 0; i < 6; i++) offers.push(await decide(h.anonymous, { country }))
  assert.ok(offers.every(Boolean), '1 billed + 6 offered <= 7.67')
  assert.equal(await decide(h.anonymous, { country }), null)
  assert.equal(await view(h.anonymous, offers[0]!.impression_id, 1_000), 204)
  assert.ok(await decide(h.anonymous, { country }), 'a view that does not bill releases its offer too')
  assert.equal(await decide(h.anonymous, { country }), null)
  await advance(h, 10) // elapsed 56 s: 9.33 due
  for (const o of offers.slice(1)) assert.equal(await view(h.anonymous, o!.impression_id, 10_000), 204)
  assert.equal(await served(adv, id), 6)

  await adv.post(`/v1/campaigns/${id}/pause`)
  await advance(h, 3600)
  await adv.post(`/v1/campaigns/${id}/resume`)
  // Still elapsed 56 s (the paused hour does not count): 6 billed, the offer made at 46 s no longer counts, 3 more fit 9.33.
  for (let i = 0; i < 3; i++) assert.ok(await decide(h.anonymous, { country }))
  assert.equal(await decide(h.anonymous, { country }), null, 'the paused hour does not count')
})

test('a campaign stops taking offers while as many are outstanding as it has left; an offer never viewed stops counting', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await create(adv, country, { impressions: 1000 })
  const offers = []
  // Concurrent decisions, in waves of 250 (a thousand sockets at once can be reset on a busy machine).
  for (let wave = 0; wave < 1001; wave += 250) {
    offers.push(...(await Promise.all(Array.from({ length: Math.min(250, 1001 - wave) }, (_, i) => decide(h.anonymous, { country, viewer_id: `exhaust-${wave + i}` })))))
  }
  const filled = offers.filter((o) => o !== null)
  assert.equal(filled.length, 1000, 'no offer that could not bill')
  await advance(h, 10)
  const statuses = await Promise.all(filled.slice(1).map((o) => view(h.anonymous, o.impression_id, 10_000)))
  assert.ok(statuses.every((s) => s === 204))
  assert.equal(await served(adv, id), 999)
  assert.equal(await decide(h.anonymous, { country }), null, 'one left, one outstanding')
  await advance(h, 20) // the unviewed offer is 30 s old: it no longer holds the last impression
  const last = await decide(h.anonymous, { country, viewer_id: 'exhaust-last' })
  assert.ok(last)
  await advance(h, 10)
  assert.equal(await view(h.anonymous, last.impression_id, 10_000), 204)
  assert.equal(await view(h.anonymous, filled[0]!.impression_id, 10_000), 204, 'the late view is recorded, not billed')
  const campaign = (await adv.get(`/v1/campaigns/${id}`)).body
  assert.equal(campaign.impressions_served, 1000)
  assert.equal(campaign.status, 'completed')
  assert.equal(campaign.blocks[0].status, 'exhausted')
  assert.equal(await decide(h.anonymous, { country }), null)
  const late = await h.svc.service.store.db
    .selectFrom('ledger_events')
    .select('reason')
    .where('impression_key', '=', impressionKey(filled[0]!.impression_id))
    .where('event_type', '=', 'view')
    .executeTakeFirstOrThrow()
  assert.equal(late.reason, 'block_full')
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
