import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'

const h = useService()

const COLLECTION_LIMIT = 500
const BORDERLINE_LINE = 'Instant loans for freelancers' // lending: accepted, but reviewed before it serves

async function createCampaign(adv: Advertiser, overrides: Record<string, unknown> = {}): Promise<any> {
  const res = await adv.post('/v1/campaigns', campaignBody(overrides))
  assert.equal(res.status, 201, res.text)
  return res.body
}

/** The allocation-safe read of a creative that has not delivered yet. */
function assertUndelivered(creative: any, impressions: number) {
  assert.equal(creative.allocation_status, 'creative')
  assert.deepEqual(creative.inventory, { purchased_impressions: impressions, served_impressions: 0, remaining_impressions: impressions })
  assert.equal(creative.delivery.metrics_availability, 'temporarily_unavailable')
  const metrics = Object.entries(creative.delivery).filter(([key]) => key !== 'metrics_availability')
  assert.ok(metrics.length >= 7, 'billable impressions, clicks, CTR, viewable ticks, unique viewers, spend, served timestamps')
  for (const [key, value] of metrics) assert.equal(value, null, `delivery.${key} is null, never a measured zero`)
}

test('GET /creatives lists the account\'s creatives newest first, with inventory and null metrics', async () => {
  const adv = await h.advertiser()
  const first = await createCampaign(adv, { impressions: 1000, ad_line: 'First line for Acme CI', destination_url: 'https://acme.dev' })
  const second = await createCampaign(adv, { impressions: 2000, ad_line: 'Second line for Acme CI' })
  await h.admin.post('/admin/v1/clock', { advance_seconds: 60 })
  const third = await createCampaign(adv, { impressions: 3000, ad_line: 'Third line for Acme CI' })

  const res = await adv.get('/v1/creatives')
  assert.equal(res.status, 200)
  assert.deepEqual(Object.keys(res.body), ['creatives'])
  const creatives = res.body.creatives
  assert.deepEqual(
    creatives.map((c: any) => c.campaign_id),
    [third.campaign_id, second.campaign_id, first.campaign_id],
    'newest first, also among creatives created at the same instant',
  )
  const ids = creatives.map((c: any) => c.creative_id)
  assert.equal(new Set(ids).size, 3)
  for (const id of ids) {
    assert.equal(typeof id, 'string')
    assert.ok(![first, second, third].some((c) => c.campaign_id === id), 'a creative id is not its campaign id')
  }
  const expected = [
    [3000, 'Third line for Acme CI', 'https://acme.dev/ci'],
    [2000, 'Second line for Acme CI', 'https://acme.dev/ci'],
    [1000, 'First line for Acme CI', 'https://acme.dev/'],
  ] as const
  creatives.forEach((creative: any, i: number) => {
    const [impressions, adLine, destination] = expected[i]!
    assert.equal(creative.ad_line, adLine)
    assert.equal(creative.destination_url, destination, 'normalized like the campaign')
    assert.equal(creative.moderation_status, 'approved')
    assert.equal(creative.campaign_status, 'active')
    assertUndelivered(creative, impressions)
  })
})

test('a new account has an empty collection', async () => {
  const adv = await h.advertiser({ approved: false, terms: false, billing: 'none' })
  const res = await adv.get('/v1/creatives')
  assert.equal(res.status, 200)
  assert.deepEqual(res.body, { creatives: [] })
})

test('GET /creatives/{id} returns the same creative as the collection', async () => {
  const adv = await h.advertiser()
  const { campaign_id } = await createCampaign(adv, { impressions: 5000 })
  const [listed] = (await adv.get('/v1/creatives')).body.creatives
  const res = await adv.get(`/v1/creatives/${listed.creative_id}`)
  assert.equal(res.status, 200)
  assert.equal(res.body.creative_id, listed.creative_id)
  assert.equal(res.body.campaign_id, campaign_id)
  // The single read passes the coverage gate (rollups are closed through yesterday): measured zeros.
  assert.equal(res.body.delivery.metrics_availability, 'complete')
  assert.deepEqual(
    [res.body.delivery.billable_impressions, res.body.delivery.clicks, res.body.delivery.spend_micros, res.body.delivery.first_served_at],
    [0, 0, 0, null],
  )
  assert.deepEqual({ ...res.body, delivery: null }, { ...listed, delivery: null })
  assertUndelivered(listed, 5000)
})

test('a creative carries the campaign\'s presentation, targeting and pacing', async () => {
  const adv = await h.advertiser()
  const icon = 'https://cdn.acme.dev/icon.png'
  const { campaign_id } = await createCampaign(adv, {
    ad_line: '  Ship faster with Acme CI  ',
    brand: 'Acme',
    icon_url: icon,
    kind: 'click',
    cpm_usd: 3.25,
    impressions: 2000,
    target_surface: 'terminal',
    target_countries: ['US', 'DE'],
    pace_minutes: 600,
  })
  const [creative] = (await adv.get('/v1/creatives')).body.creatives
  assert.equal(creative.campaign_id, campaign_id)
  assert.equal(creative.ad_line, 'Ship faster with Acme CI')
  assert.equal(creative.brand, 'Acme')
  assert.equal(creative.icon_url, icon)
  assert.equal(creative.kind, 'click')
  assert.equal(creative.cpm_usd, 3.25)
  assert.equal(creative.target_surface, 'terminal')
  assert.deepEqual([...creative.target_countries].sort(), ['DE', 'US'])
  assert.equal(creative.pace_minutes, 600)
  assert.equal(creative.blocks.length, 2)
})

test("unknown and another account's creative ids are the same 404", async () => {
  const owner = await h.advertiser()
  const other = await h.advertiser()
  const { campaign_id } = await createCampaign(owner)
  const [creative] = (await owner.get('/v1/creatives')).body.creatives

  const foreign = await other.get(`/v1/creatives/${creative.creative_id}`)
  const unknown = await other.get('/v1/creatives/crv_doesnotexist0000000000')
  const campaignIdAsCreative = await owner.get(`/v1/creatives/${campaign_id}`)
  for (const res of [foreign, unknown, campaignIdAsCreative]) assert.equal(res.status, 404, res.text)
  assert.deepEqual(foreign.body, unknown.body)
  assert.deepEqual(foreign.headers.get('content-type'), unknown.headers.get('content-type'))
  assert.deepEqual((await other.get('/v1/creatives')).body, { creatives: [] }, "another account's creatives are never listed")
  assert.equal((await owner.get(`/v1/creatives/${creative.creative_id}`)).status, 200, 'still readable by its owner')
})

test(
  'an over-long creative id is answered like any unknown id',
  async () => {
    const adv = await h.advertiser()
    for (const length of [65, 101]) {
      const res = await adv.get(`/v1/creatives/crv_${'x'.repeat(length)}`)
      assert.equal(res.status, 404, `${length}: ${res.text}`)
    }
  },
)

test('a borderline ad line is pending on create and on its creative until an operator approves it', async () => {
  const adv = await h.advertiser()
  const created = await createCampaign(adv, { ad_line: BORDERLINE_LINE })
  assert.equal(created.moderation_status, 'pending')
  const [creative] = (await adv.get('/v1/creatives')).body.creatives
  assert.equal(creative.moderation_status, 'pending')
  assert.equal(creative.ad_line, BORDERLINE_LINE)
  assert.equal((await adv.get(`/v1/campaigns/${created.campaign_id}`)).body.moderation_status, 'pending')

  const decided = await h.admin.post(`/admin/v1/campaigns/${created.campaign_id}/moderation`, { status: 'approved' })
  assert.equal(decided.status, 200, decided.text)
  assert.equal((await adv.get(`/v1/creatives/${creative.creative_id}`)).body.moderation_status, 'approved')
  assert.equal((await adv.get('/v1/creatives')).body.creatives[0].moderation_status, 'approved')
  assert.equal((await adv.get(`/v1/campaigns/${created.campaign_id}`)).body.moderation_status, 'approved')
})

test('an operator rejection shows on the creative', async () => {
  const adv = await h.advertiser()
  const created = await createCampaign(adv, { ad_line: BORDERLINE_LINE })
  assert.equal((await h.admin.post(`/admin/v1/campaigns/${created.campaign_id}/moderation`, { status: 'rejected' })).status, 200)
  const [creative] = (await adv.get('/v1/creatives')).body.creatives
  assert.equal(creative.moderation_status, 'rejected')
})

test('GET /campaigns/{id} embeds the same creative', async () => {
  const adv = await h.advertiser()
  const { campaign_id } = await createCampaign(adv, { impressions: 4000 })
  const campaign = await adv.get(`/v1/campaigns/${campaign_id}`)
  assert.equal(campaign.status, 200)
  assert.equal(campaign.body.creatives.length, 1)
  const [embedded] = campaign.body.creatives
  const single = (await adv.get(`/v1/creatives/${embedded.creative_id}`)).body
  // Embedded creatives are a collection read: metrics unavailable; the rest is identical.
  assert.equal(embedded.delivery.metrics_availability, 'temporarily_unavailable')
  assert.deepEqual({ ...embedded, delivery: null }, { ...single, delivery: null })
  assert.equal(embedded.ad_line, campaign.body.ad_line)
  assert.equal(embedded.moderation_status, campaign.body.moderation_status)
})

test('PATCH ad_line rewrites the creative in place; a borderline rewrite returns it to pending', async () => {
  const adv = await h.advertiser()
  const { campaign_id } = await createCampaign(adv)
  const [before] = (await adv.get('/v1/creatives')).body.creatives
  assert.equal((await adv.patch(`/v1/campaigns/${campaign_id}`, { ad_line: 'Deploy previews with Acme CD' })).status, 200)
  let creatives = (await adv.get('/v1/creatives')).body.creatives
  assert.equal(creatives.length, 1, 'no second creative')
  assert.equal(creatives[0].creative_id, before.creative_id)
  assert.equal(creatives[0].ad_line, 'Deploy previews with Acme CD')
  assert.equal(creatives[0].moderation_status, 'approved')

  assert.equal((await adv.patch(`/v1/campaigns/${campaign_id}`, { ad_line: BORDERLINE_LINE })).status, 200)
  creatives = (await adv.get('/v1/creatives')).body.creatives
  assert.equal(creatives[0].ad_line, BORDERLINE_LINE)
  assert.equal(creatives[0].moderation_status, 'pending')
})

test('a cancelled campaign keeps its creative, with the campaign status', async () => {
  const adv = await h.advertiser()
  const { campaign_id } = await createCampaign(adv, { impressions: 2000 })
  assert.equal((await adv.delete(`/v1/campaigns/${campaign_id}`)).status, 200)
  const [creative] = (await adv.get('/v1/creatives')).body.creatives
  assert.equal(creative.campaign_id, campaign_id)
  assert.equal(creative.campaign_status, 'cancelled_user')
  assertUndelivered(creative, 2000)
})

test('creative reads need credentials: uniform 401', async () => {
  const adv = await h.advertiser()
  await createCampaign(adv)
  const [creative] = (await adv.get('/v1/creatives')).body.creatives
  for (const path of ['/v1/creatives', `/v1/creatives/${creative.creative_id}`]) {
    const res = await h.anonymous.get(path)
    assert.equal(res.status, 401)
    assert.deepEqual(res.body, { detail: 'invalid credentials' })
  }
})

test(`the collection is bounded to ${COLLECTION_LIMIT} rows, newest first`, async () => {
  const before = (await h.admin.get('/admin/v1/config')).body
  await h.config({ create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })
  try {
    const adv = await h.advertiser()
    const ids: string[] = []
    // Sequential: the store serializes an account's creates anyway, and the order is the assertion.
    for (let i = 0; i <= COLLECTION_LIMIT; i++) {
      const res = await adv.post('/v1/campaigns', campaignBody({ impressions: 1000, cpm_usd: 0.5, ad_line: `Acme CI build ${i}` }))
      assert.equal(res.status, 201, res.text)
      ids.push(res.body.campaign_id)
    }
    const res = await adv.get('/v1/creatives')
    assert.equal(res.status, 200)
    const listed = res.body.creatives.map((c: any) => c.campaign_id)
    assert.equal(listed.length, COLLECTION_LIMIT)
    assert.deepEqual(listed, ids.slice(1).reverse(), 'the newest 500, newest first; the oldest is left off')

    // The bound applies to the collection only: the oldest creative is still readable one by one.
    const oldest = (await adv.get(`/v1/campaigns/${ids[0]}`)).body.creatives[0]
    assert.equal(oldest.ad_line, 'Acme CI build 0')
    assert.equal((await adv.get(`/v1/creatives/${oldest.creative_id}`)).status, 200)
  } finally {
    await h.config({
      create_rate_limit_per_min: before.create_rate_limit_per_min,
      outstanding_balance_cap_usd: before.outstanding_balance_cap_usd,
    })
  }
})
