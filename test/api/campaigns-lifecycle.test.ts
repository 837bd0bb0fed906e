import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'

const h = useService({}, { create_rate_limit_per_min: 1000 })

async function newCampaign(adv: Advertiser, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await adv.post('/v1/campaigns', campaignBody(overrides))
  assert.equal(res.status, 201, res.text)
  return res.body.campaign_id
}

test('the state table: pause, resume and cancel', async () => {
  const adv = await h.advertiser()
  const id = await newCampaign(adv)
  const path = `/v1/campaigns/${id}`

  const paused = await adv.post(`${path}/pause`)
  assert.equal(paused.status, 200)
  assert.equal(paused.body.status, 'paused')
  assert.equal((await adv.post(`${path}/pause`)).body.status, 'paused', 'pausing a paused campaign is a no-op')

  const resumed = await adv.post(`${path}/resume`)
  assert.equal(resumed.status, 200)
  assert.equal(resumed.body.status, 'active')
  assert.equal((await adv.post(`${path}/resume`)).body.status, 'active', 'resuming an active campaign is a no-op')

  const cancelled = await adv.delete(path)
  assert.equal(cancelled.status, 200)
  assert.equal(cancelled.body.status, 'cancelled_user')

  for (const [method, suffix] of [['POST', '/pause'], ['POST', '/resume'], ['DELETE', '']] as const) {
    const res = await adv.call(method, `${path}${suffix}`)
    assert.equal(res.status, 409, `${method} ${suffix} on a cancelled campaign`)
    assert.equal(typeof res.body.detail, 'string')
  }
  assert.equal((await adv.get(path)).body.status, 'cancelled_user')
})

test('pause keeps the serving block; resume restores it exactly', async () => {
  const adv = await h.advertiser()
  const id = await newCampaign(adv)
  const before = (await adv.get(`/v1/campaigns/${id}`)).body.blocks
  await adv.post(`/v1/campaigns/${id}/pause`)
  await h.admin.post('/admin/v1/clock', { advance_seconds: 600 })
  const after = (await adv.post(`/v1/campaigns/${id}/resume`)).body.blocks
  assert.deepEqual(after, before)
})

test('resuming a staged (start_paused) campaign begins delivery of its first block', async () => {
  const adv = await h.advertiser()
  const id = await newCampaign(adv, { start_paused: true })
  await h.admin.post('/admin/v1/clock', { advance_seconds: 60 })
  const resumed = await adv.post(`/v1/campaigns/${id}/resume`)
  assert.equal(resumed.body.status, 'active')
  assert.equal(resumed.body.blocks[0].status, 'serving')
  assert.equal(resumed.body.blocks[0].started_at, h.svc.clock.now().toISOString())
  assert.ok(resumed.body.blocks.slice(1).every((b: any) => b.status === 'queued'))
})

test('cancel of a paused campaign is allowed and final', async () => {
  const adv = await h.advertiser()
  const id = await newCampaign(adv, { start_paused: true })
  assert.equal((await adv.delete(`/v1/campaigns/${id}`)).body.status, 'cancelled_user')
  assert.equal((await adv.post(`/v1/campaigns/${id}/resume`)).status, 409)
})

test('PATCH renames and rewrites the live ad line in place', async () => {
  const adv = await h.advertiser()
  const id = await newCampaign(adv)
  const creativeId = (await adv.get(`/v1/campaigns/${id}`)).body.creatives[0].creative_id
  const res = await adv.patch(`/v1/campaigns/${id}`, { name: 'Spring push', ad_line: '  Faster builds with Acme  ' })
  assert.equal(res.status, 200, res.text)
  assert.equal(res.body.name, 'Spring push')
  assert.equal(res.body.ad_line, 'Faster builds with Acme')
  assert.equal(res.body.creatives[0].creative_id, creativeId, 'the same creative, rewritten')
  assert.equal(res.body.creatives[0].ad_line, 'Faster builds with Acme')
  const list = (await adv.get('/v1/campaigns')).body.campaigns
  assert.equal(list[0].name, 'Spring push')
})

test('PATCH re-screens the line: denied is 400, borderline goes back to pending', async () => {
  const adv = await h.advertiser()
  const id = await newCampaign(adv)
  const denied = await adv.patch(`/v1/campaigns/${id}`, { ad_line: 'Online betting for devs' })
  assert.equal(denied.status, 400)
  assert.deepEqual(denied.body.detail, { field: 'ad_line', reason: 'content_safety', category: 'gambling' })
  assert.equal((await adv.get(`/v1/campaigns/${id}`)).body.ad_line, 'Ship faster with Acme CI', 'unchanged after a refusal')
  const borderline = await adv.patch(`/v1/campaigns/${id}`, { ad_line: 'Instant loans for freelancers' })
  assert.equal(borderline.status, 200)
  assert.equal(borderline.body.moderation_status, 'pending')
  await h.admin.post(`/admin/v1/campaigns/${id}/moderation`, { status: 'approved' })
  assert.equal((await adv.get(`/v1/campaigns/${id}`)).body.moderation_status, 'approved')
})

test('PATCH rules: only name and ad_line; lengths; cancelled campaigns keep their line', async () => {
  const adv = await h.advertiser()
  const id = await newCampaign(adv)
  for (const field of ['cpm_usd', 'destination_url', 'impressions', 'target_surface', 'status']) {
    const res = await adv.patch(`/v1/campaigns/${id}`, { name: 'ok', [field]: 'x' })
    assert.equal(res.status, 400)
    assert.deepEqual(res.body.detail, { field, reason: 'not_editable' })
  }
  assert.deepEqual((await adv.patch(`/v1/campaigns/${id}`, {})).body.detail, { field: 'body', reason: 'empty_body' })
  assert.equal((await adv.patch(`/v1/campaigns/${id}`, { name: '' })).body.detail.reason, 'empty')
  assert.equal((await adv.patch(`/v1/campaigns/${id}`, { name: 'x'.repeat(121) })).body.detail.reason, 'too_long')
  assert.equal((await adv.patch(`/v1/campaigns/${id}`, { ad_line: 'ab' })).body.detail.reason, 'too_short')

  await adv.delete(`/v1/campaigns/${id}`)
  assert.equal((await adv.patch(`/v1/campaigns/${id}`, { name: 'Archived' })).status, 200)
  assert.equal((await adv.patch(`/v1/campaigns/${id}`, { ad_line: 'A new line now' })).status, 409)
})

test('writes need access: pause, resume, PATCH and cancel answer 403/402 like create', async () => {
  const adv = await h.advertiser()
  const id = await newCampaign(adv)
  await h.admin.post(`/admin/v1/accounts/${adv.userId}/terms`, { accepted: false })
  for (const [method, suffix, body] of [
    ['POST', '/pause', undefined],
    ['POST', '/resume', undefined],
    ['PATCH', '', { name: 'x' }],
    ['DELETE', '', undefined],
  ] as const) {
    assert.equal((await adv.call(method, `/v1/campaigns/${id}${suffix}`, { body })).status, 403, `${method} ${suffix}`)
  }
  assert.equal((await adv.get(`/v1/campaigns/${id}`)).status, 200, 'reads stay available')
})

test('GET /campaigns lists only the account\'s campaigns, newest first', async () => {
  const a = await h.advertiser()
  const b = await h.advertiser()
  const first = await newCampaign(a)
  const second = await newCampaign(a)
  await newCampaign(b)
  const list = (await a.get('/v1/campaigns')).body.campaigns
  assert.deepEqual(list.map((c: any) => c.campaign_id), [second, first])
  assert.equal((await b.get(`/v1/campaigns/${first}`)).status, 404)
})

test('body-less writes accept an empty body sent as application/json', async () => {
  const adv = await h.advertiser()
  const id = await newCampaign(adv)
  const res = await adv.call('POST', `/v1/campaigns/${id}/pause`, { raw: '', headers: { 'content-type': 'application/json' } })
  assert.equal(res.status, 200, res.text)
  assert.equal(res.body.status, 'paused')
})
