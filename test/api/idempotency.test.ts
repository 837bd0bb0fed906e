import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService } from '../helpers/api.ts'

// Many creates per test: the create rate limit has its own tests.
const h = useService({}, { create_rate_limit_per_min: 1000 })

test('a retry with the same key and payload replays the original 201', async () => {
  const adv = await h.advertiser()
  const body = campaignBody()
  const first = await adv.post('/v1/campaigns', body)
  assert.equal(first.status, 201)
  await adv.post(`/v1/campaigns/${first.body.campaign_id}/pause`)
  const again = await adv.post('/v1/campaigns', body)
  assert.equal(again.status, 201)
  assert.equal(again.headers.get('idempotent-replayed'), 'true')
  // The original body, as it was answered (status active), flagged as a replay.
  assert.deepEqual(again.body, { ...first.body, replayed: true })
  assert.equal((await adv.get('/v1/campaigns')).body.campaigns.length, 1)
})

test('defaults count as sent: omitted start_paused equals false, but true is a different payload', async () => {
  const adv = await h.advertiser()
  const body = campaignBody()
  assert.equal((await adv.post('/v1/campaigns', body)).status, 201)
  assert.equal((await adv.post('/v1/campaigns', { ...body, start_paused: false })).status, 201)
  const changed = await adv.post('/v1/campaigns', { ...body, start_paused: true })
  assert.equal(changed.status, 409)
  assert.equal(changed.body.detail.field, 'idempotency_key')
  assert.equal(changed.body.detail.reason, 'idempotency_key_reused')
})

test('the same key with any other payload difference is 409', async () => {
  const adv = await h.advertiser()
  const body = campaignBody()
  await adv.post('/v1/campaigns', body)
  for (const change of [{ cpm_usd: 3 }, { ad_line: 'Another line entirely' }, { brand: 'Acme' }, { impressions: 4000 }]) {
    assert.equal((await adv.post('/v1/campaigns', { ...body, ...change })).status, 409, JSON.stringify(change))
  }
})

test('keys are scoped to the account', async () => {
  const a = await h.advertiser()
  const b = await h.advertiser()
  const body = campaignBody()
  const ra = await a.post('/v1/campaigns', body)
  const rb = await b.post('/v1/campaigns', body)
  assert.equal(rb.status, 201)
  assert.equal(rb.body.replayed, false)
  assert.notEqual(ra.body.campaign_id, rb.body.campaign_id)
})

test('10 concurrent identical creates make one campaign; exactly one answer is not a replay', async () => {
  const adv = await h.advertiser()
  const body = campaignBody()
  const replies = await Promise.all(Array.from({ length: 10 }, () => adv.post('/v1/campaigns', body)))
  assert.deepEqual(replies.map((r) => r.status), Array(10).fill(201))
  assert.equal(new Set(replies.map((r) => r.body.campaign_id)).size, 1)
  assert.equal(replies.filter((r) => r.body.replayed === false).length, 1)
  assert.equal((await adv.get('/v1/campaigns')).body.campaigns.length, 1)
})

test('a rejected create stores nothing: the key can be used once the body is fixed', async () => {
  const adv = await h.advertiser()
  const body = campaignBody({ cpm_usd: 0.1 })
  assert.equal((await adv.post('/v1/campaigns', body)).status, 400)
  assert.equal((await adv.post('/v1/campaigns', { ...body, cpm_usd: 1 })).status, 201)
})
