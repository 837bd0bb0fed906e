import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { test } from 'node:test'
import { campaignBody, type Reply, type TestHarness } from './api.ts'

/** The Redis the Redis-backed tests use; they are skipped when nothing answers there. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

export async function redisReachable(url = TEST_REDIS_URL): Promise<boolean> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 6379), timeout: 500 })
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.once('connect', () => done(true))
    socket.once('error', () => done(false))
    socket.once('timeout', () => done(false))
  })
}

function remaining(res: Reply): number {
  const m = /r=(\d+)/.exec(res.headers.get('ratelimit') ?? '')
  assert.ok(m, `no RateLimit header: ${res.headers.get('ratelimit')}`)
  return Number(m[1])
}

/**
 * What spends the create budget (config.create_rate_limit_per_min), run
 * against the counter store of `h` (in memory, or Redis).
 */
export function createBudgetCases(h: TestHarness, options: { skip?: string | false } = {}): void {
  const withCreateLimit = async (limit: number, fn: () => Promise<void>) => {
    await h.config({ create_rate_limit_per_min: limit })
    try {
      await fn()
    } finally {
      await h.config({ create_rate_limit_per_min: 5, outstanding_balance_cap_usd: 10_000 })
    }
  }
  const skip = options.skip ?? false

  test('create budget: a replay spends nothing and never answers 429 while the original succeeded', { skip }, async () => {
    await withCreateLimit(2, async () => {
      const adv = await h.advertiser()
      const body = campaignBody()
      const first = await adv.post('/v1/campaigns', body)
      assert.equal(first.status, 201, first.text)
      assert.equal(remaining(first), 1)
      for (let i = 0; i < 3; i++) {
        const replay = await adv.post('/v1/campaigns', body)
        assert.equal(replay.status, 201, replay.text)
        assert.equal(replay.body.replayed, true)
        assert.equal(remaining(replay), 1, 'a replay spends nothing')
      }
      const second = await adv.post('/v1/campaigns', campaignBody())
      assert.equal(second.status, 201, second.text)
      assert.equal(remaining(second), 0)
      assert.equal((await adv.post('/v1/campaigns', campaignBody())).status, 429, 'a new create over the budget')
      // The budget is spent, yet both earlier creates still replay.
      for (const replay of [await adv.post('/v1/campaigns', body), await adv.post('/v1/campaigns', { ...body, idempotency_key: body.idempotency_key })]) {
        assert.equal(replay.status, 201, replay.text)
        assert.equal(replay.body.campaign_id, first.body.campaign_id)
      }
      assert.equal((await adv.get('/v1/campaigns')).body.campaigns.length, 2)
    })
  })

  test('create budget: creates refused with 400, 402 or 409 spend nothing', { skip }, async () => {
    await withCreateLimit(2, async () => {
      const adv = await h.advertiser()
      const original = campaignBody()
      assert.equal((await adv.post('/v1/campaigns', original)).status, 201)
      for (let i = 0; i < 3; i++) {
        assert.equal((await adv.post('/v1/campaigns', campaignBody({ impressions: 1500 }))).status, 400, 'schema')
        assert.equal((await adv.post('/v1/campaigns', campaignBody({ cpm_usd: 0.3 }))).status, 400, 'config rule')
        assert.equal((await adv.post('/v1/campaigns', { ...original, name: 'another payload' })).status, 409, 'key reused')
      }
      await h.config({ outstanding_balance_cap_usd: 0 })
      for (let i = 0; i < 3; i++) assert.equal((await adv.post('/v1/campaigns', campaignBody())).status, 402, 'balance cap')
      await h.config({ outstanding_balance_cap_usd: 10_000 })
      const second = await adv.post('/v1/campaigns', campaignBody())
      assert.equal(second.status, 201, `the second create of the budget: ${second.text}`)
      assert.equal(remaining(second), 0)
      assert.equal((await adv.post('/v1/campaigns', campaignBody())).status, 429)
    })
  })

  test('create budget: creates refused with 402 or 403 for access spend nothing', { skip }, async () => {
    await withCreateLimit(1, async () => {
      const adv = await h.advertiser({ approved: false, billing: 'none' })
      for (let i = 0; i < 3; i++) assert.equal((await adv.post('/v1/campaigns', campaignBody())).status, 403)
      assert.equal((await h.admin.post(`/admin/v1/accounts/${adv.userId}/write-approval`, { approved: true })).status, 200)
      for (let i = 0; i < 3; i++) assert.equal((await adv.post('/v1/campaigns', campaignBody())).status, 402)
      const card = { mode: 'weekly_autopay', card_number: '4242424242424242' }
      assert.equal((await h.admin.post(`/admin/v1/accounts/${adv.userId}/billing`, card)).status, 200)
      const created = await adv.post('/v1/campaigns', campaignBody())
      assert.equal(created.status, 201, created.text)
      assert.equal(remaining(created), 0)
    })
  })

  test('create budget: concurrent creates make exactly the limit, the rest are 429', { skip }, async () => {
    await withCreateLimit(3, async () => {
      const adv = await h.advertiser()
      const statuses = (await Promise.all(Array.from({ length: 8 }, () => adv.post('/v1/campaigns', campaignBody())))).map((r) => r.status)
      assert.deepEqual(statuses.sort(), [201, 201, 201, 429, 429, 429, 429, 429])
      assert.equal((await adv.get('/v1/campaigns')).body.campaigns.length, 3)
    })
  })
}
