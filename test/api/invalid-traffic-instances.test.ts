import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, test } from 'node:test'
import { ADMIN_TOKEN, callService, startService, STORE, type TestService } from '../helpers/service.ts'
import { campaignBody } from '../helpers/api.ts'
import { redisReachable, TEST_REDIS_URL } from '../helpers/create-budget.ts'

/**
 * Two instances on one PostgreSQL and one Redis (issue 32): the invalid-traffic bounds of a source
 * hold across them, whichever instance its decisions and views go through. The counts live in the
 * store and move in the ledger statement that bills, so neither instance can pass them, and Redis
 * (the instances' shared rate limits) plays no part in them. PostgreSQL only: the embedded store is
 * one process.
 */
const skip = STORE !== 'postgres' ? 'two instances need a shared PostgreSQL' : (await redisReachable()) ? false : `no Redis at ${TEST_REDIS_URL}`

let a: TestService
let b: TestService
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }

before(async () => {
  if (skip) return
  a = await startService({ REDIS_URL: TEST_REDIS_URL })
  b = await startService({ DATABASE_URL: a.databaseUrl!, REDIS_URL: TEST_REDIS_URL })
})
after(async () => {
  if (skip) return
  await b.close()
  await a.close()
})

async function advanceBoth(seconds: number) {
  for (const svc of [a, b]) assert.equal((await callService(svc, 'POST', '/admin/v1/clock', { advance_seconds: seconds }, admin)).status, 200)
}

async function advertiser(): Promise<Record<string, string>> {
  const { body } = await callService(a, 'POST', '/admin/v1/accounts', { email: `ivt-${randomBytes(3).toString('hex')}@example.dev` }, admin)
  await callService(a, 'POST', `/admin/v1/accounts/${body.user_id}/write-approval`, { approved: true }, admin)
  await callService(a, 'POST', `/admin/v1/accounts/${body.user_id}/terms`, { accepted: true }, admin)
  await callService(a, 'POST', `/admin/v1/accounts/${body.user_id}/billing`, { mode: 'weekly_autopay', card_number: '4242424242424242' }, admin)
  return { 'x-service-user-id': body.user_id, 'x-service-api-key': body.api_key, 'x-forwarded-for': '198.51.100.9' }
}

test('a botnet split over two instances bills no more than one source may', { skip }, async () => {
  const auth = await advertiser()
  const created = await callService(a, 'POST', '/v1/campaigns', campaignBody({ target_countries: ['QI'], impressions: 2000 }), auth)
  assert.equal(created.status, 201, created.text)
  const bot = { 'x-forwarded-for': '203.0.113.90' }
  const viewers = Array.from({ length: 160 }, (_, i) => `two-bots-${process.pid}-${i}`)
  for (let r = 0; r < 2; r++) {
    // Each viewer's decision on one instance, its view on the other: the bounds hold wherever they land.
    const offers = await Promise.all(
      viewers.map((viewer_id, i) => callService(i % 2 ? a : b, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id, country: 'QI' }, bot)),
    )
    await advanceBoth(10)
    const views = await Promise.all(
      offers.map((o, i) => {
        assert.equal(o.status, 200, o.text)
        return callService(i % 2 ? b : a, 'POST', `/serve/v1/impressions/${o.body.impression_id}/view`, { dwell_ms: 10_000 }, bot)
      }),
    )
    for (const v of views) assert.equal(v.status, 204)
  }
  const stats = await callService(b, 'GET', `/v1/stats?campaign_id=${created.body.campaign_id}&start=2026-11-02T00:00:00Z&end=2026-11-03T00:00:00Z`, undefined, auth)
  assert.equal(stats.status, 200, stats.text)
  // 50 viewers of the day, twice each.
  assert.equal(stats.body.totals.billable_impressions, 100)
  assert.equal(stats.body.totals.non_billable.invalid_traffic, 220)
})

test('a botnet spread over twenty /64s of one /48 and split over two instances bills no more than the /48 may', { skip }, async () => {
  const auth = await advertiser()
  const created = await callService(a, 'POST', '/v1/campaigns', campaignBody({ target_countries: ['QM'], impressions: 2000 }), auth)
  assert.equal(created.status, 201, created.text)
  // 160 viewers, 8 in each of 20 /64s: each /64 far inside its own 50 viewers, the /48 past its 100 (the default).
  const viewers = Array.from({ length: 160 }, (_, i) => ({ id: `spread-48-${process.pid}-${i}`, from: { 'x-forwarded-for': `2001:db8:480:${(i % 20).toString(16)}::${i + 1}` } }))
  for (let r = 0; r < 2; r++) {
    const offers = await Promise.all(
      viewers.map((v, i) => callService(i % 2 ? a : b, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id: v.id, country: 'QM' }, v.from)),
    )
    await advanceBoth(10)
    const views = await Promise.all(
      offers.map((o, i) => {
        assert.equal(o.status, 200, o.text)
        return callService(i % 2 ? b : a, 'POST', `/serve/v1/impressions/${o.body.impression_id}/view`, { dwell_ms: 10_000 }, viewers[i]!.from)
      }),
    )
    for (const v of views) assert.equal(v.status, 204)
  }
  const stats = await callService(b, 'GET', `/v1/stats?campaign_id=${created.body.campaign_id}&start=2026-11-02T00:00:00Z&end=2026-11-03T00:00:00Z`, undefined, auth)
  assert.equal(stats.status, 200, stats.text)
  // The /48's 100 viewers of the day, twice each.
  assert.equal(stats.body.totals.billable_impressions, 200)
  assert.equal(stats.body.totals.non_billable.invalid_traffic, 120)
})

test('an hourly bound set on one instance holds on both', { skip }, async () => {
  assert.equal((await callService(a, 'PATCH', '/admin/v1/config', { ivt_max_billable_per_source_per_hour: 25 }, admin)).status, 200)
  try {
    // The other instance serves the new value within its reload interval (two seconds of real time).
    await new Promise((resolve) => setTimeout(resolve, 2_100))
    const auth = await advertiser()
    const created = await callService(a, 'POST', '/v1/campaigns', campaignBody({ target_countries: ['QJ'], impressions: 1000 }), auth)
    const bot = { 'x-forwarded-for': '203.0.113.91' }
    const viewers = Array.from({ length: 40 }, (_, i) => `hourly-bots-${process.pid}-${i}`)
    // One decision first, so that instance b reloads its limits (a reload starts on a request past the TTL).
    await callService(b, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id: 'reload', country: 'QZ' }, bot)
    await new Promise((resolve) => setTimeout(resolve, 200))
    const offers = await Promise.all(viewers.map((viewer_id) => callService(a, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id, country: 'QJ' }, bot)))
    await advanceBoth(10)
    await Promise.all(offers.map((o, i) => callService(i % 2 ? a : b, 'POST', `/serve/v1/impressions/${o.body.impression_id}/view`, { dwell_ms: 10_000 }, bot)))
    const stats = await callService(a, 'GET', `/v1/stats?campaign_id=${created.body.campaign_id}&start=2026-11-02T00:00:00Z&end=2026-11-03T00:00:00Z`, undefined, auth)
    assert.equal(stats.body.totals.billable_impressions, 25)
    assert.equal(stats.body.totals.non_billable.invalid_traffic, 15)
  } finally {
    await callService(a, 'PATCH', '/admin/v1/config', { ivt_max_billable_per_source_per_hour: 1000 }, admin)
  }
})

test('a blocked range stops billing at once on the instance that blocked it and within seconds on the other', { skip }, async () => {
  const auth = await advertiser()
  const created = await callService(a, 'POST', '/v1/campaigns', campaignBody({ target_countries: ['QK'], impressions: 1000 }), auth)
  assert.equal(created.status, 201, created.text)
  const net = { 'x-forwarded-for': '192.0.2.77' }
  const offer = async (svc: TestService, viewer_id: string) => {
    const res = await callService(svc, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id, country: 'QK' }, net)
    assert.equal(res.status, 200, 'a blocked source still gets ads: it learns nothing')
    return res.body.impression_id as string
  }
  const viewOn = (svc: TestService, id: string) => callService(svc, 'POST', `/serve/v1/impressions/${id}/view`, { dwell_ms: 10_000 }, net)
  const before = [await offer(a, 'blk-1'), await offer(b, 'blk-2')]
  const blocked = await callService(a, 'POST', '/admin/v1/traffic/blocks', { kind: 'cidr', value: '192.0.2.0/24', note: 'test botnet' }, admin)
  assert.equal(blocked.status, 201, blocked.text)
  await advanceBoth(10)
  // Instance a applies the block at once; instance b within its reload interval (two seconds of real time).
  assert.equal((await viewOn(a, before[0]!)).status, 204)
  await new Promise((resolve) => setTimeout(resolve, 2_100))
  await callService(b, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id: 'reload', country: 'QZ' })
  await new Promise((resolve) => setTimeout(resolve, 200))
  assert.equal((await viewOn(b, before[1]!)).status, 204)
  const rows = await callService(a, 'GET', `/v1/stats?campaign_id=${created.body.campaign_id}&start=2026-11-02T00:00:00Z&end=2026-11-04T00:00:00Z`, undefined, auth)
  assert.equal(rows.body.totals.billable_impressions, 0)
  assert.equal(rows.body.totals.non_billable.invalid_traffic, 2)
  // Removed: billing resumes.
  assert.equal((await callService(a, 'DELETE', `/admin/v1/traffic/blocks/${blocked.body.block_id}`, undefined, admin)).status, 200)
  const after = await offer(a, 'blk-3')
  await advanceBoth(10)
  assert.equal((await viewOn(a, after)).status, 204)
  const again = await callService(a, 'GET', `/v1/stats?campaign_id=${created.body.campaign_id}&start=2026-11-02T00:00:00Z&end=2026-11-04T00:00:00Z`, undefined, auth)
  assert.equal(again.body.totals.billable_impressions, 1)
})
