import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, Client, useService, type Advertiser, type Reply } from '../helpers/api.ts'

const h = useService()

const DEFAULT_READS_PER_MIN = 60
const DEFAULT_CREATES_PER_MIN = 5

/** Runs `fn` with operator config `patch`, restoring `restore` afterwards (config is global for the file). */
async function withConfig(patch: Record<string, unknown>, restore: Record<string, unknown>, fn: () => Promise<void>): Promise<void> {
  await h.config(patch)
  try {
    await fn()
  } finally {
    await h.config(restore)
  }
}

const withReadLimit = (limit: number, fn: () => Promise<void>) =>
  withConfig({ read_rate_limit_per_min: limit }, { read_rate_limit_per_min: DEFAULT_READS_PER_MIN }, fn)

const withCreateLimit = (limit: number, fn: () => Promise<void>) =>
  withConfig({ create_rate_limit_per_min: limit }, { create_rate_limit_per_min: DEFAULT_CREATES_PER_MIN }, fn)

/** Seconds until the current fixed one-minute window of service time ends. */
function secondsToWindowEnd(): number {
  const ms = h.svc.clock.nowMs()
  return Math.max(1, Math.ceil((60_000 - (ms % 60_000)) / 1000))
}

async function advanceClock(seconds: number): Promise<void> {
  const res = await h.admin.post('/admin/v1/clock', { advance_seconds: seconds })
  assert.equal(res.status, 200, res.text)
}

/** Asserts the IETF RateLimit-Policy / RateLimit headers of a response. */
function assertRateHeaders(res: Reply, policy: 'requests' | 'creates', limit: number, remaining: number): void {
  assert.equal(res.headers.get('ratelimit-policy'), `"${policy}";q=${limit};w=60`)
  assert.equal(res.headers.get('ratelimit'), `"${policy}";r=${remaining};t=${secondsToWindowEnd()}`)
}

function assertRateLimited(res: Reply, what = 'request'): void {
  assert.equal(res.status, 429, `${what}: ${res.text}`)
  assert.equal(res.headers.get('retry-after'), String(secondsToWindowEnd()), `${what}: Retry-After is the rest of the window`)
  assert.equal(typeof res.body.detail, 'string')
  assert.ok(res.body.detail.length > 0)
}

/** Makes `count` reads, each expected to succeed. */
async function readTimes(client: Client, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await client.get('/v1/account')
    assert.equal(res.status, 200, `read ${i + 1}: ${res.text}`)
  }
}

const withKey = (adv: Advertiser, apiKey: string) => new Client(h, { 'x-service-user-id': adv.userId, 'x-service-api-key': apiKey })

// ---------------------------------------------------------------------------
// Reads

test('reads: the request after the limit is 429 with Retry-After; RateLimit headers count down', async () => {
  await withReadLimit(5, async () => {
    const adv = await h.advertiser()
    for (let i = 1; i <= 5; i++) {
      const res = await adv.get('/v1/account')
      assert.equal(res.status, 200, `read ${i}`)
      assertRateHeaders(res, 'requests', 5, 5 - i)
    }
    const sixth = await adv.get('/v1/account')
    assertRateLimited(sixth, 'sixth read')
    assert.match(sixth.body.detail, /rate limit/i)
    assertRateHeaders(sixth, 'requests', 5, 0)
  })
})

test('reads: every authenticated read shares the one per-account budget', async () => {
  await withReadLimit(5, async () => {
    const adv = await h.advertiser()
    for (const path of ['/v1/account', '/v1/campaigns', '/v1/creatives', '/v1/campaigns/cmp_unknown', '/v1/creatives/crv_unknown']) {
      const res = await adv.get(path)
      assert.ok(res.status === 200 || res.status === 404, `${path}: ${res.status}`)
    }
    assertRateLimited(await adv.get('/v1/campaigns'), 'GET /v1/campaigns after five mixed reads')
    assertRateLimited(await adv.get('/v1/creatives'), 'GET /v1/creatives after five mixed reads')
  })
})

test('reads: the limit counts per account across keys (rotation does not reset it)', async () => {
  await withReadLimit(5, async () => {
    const adv = await h.advertiser()
    await readTimes(adv, 3)

    const rotated = await h.admin.post(`/admin/v1/accounts/${adv.userId}/rotate-key`)
    assert.equal(rotated.status, 200, rotated.text)
    const fresh = withKey(adv, rotated.body.api_key)

    const fourth = await fresh.get('/v1/account')
    assert.equal(fourth.status, 200)
    assertRateHeaders(fourth, 'requests', 5, 1)
    await readTimes(fresh, 1)
    assertRateLimited(await fresh.get('/v1/account'), 'sixth read, with the new key')
  })
})

test('reads: the limit is per account, not per address', async () => {
  await withReadLimit(5, async () => {
    const adv = await h.advertiser()
    await readTimes(adv, 5)
    assertRateLimited(await adv.get('/v1/account'))
    // Same account, another address: still limited.
    assertRateLimited(await new Client(h, adv.auth).get('/v1/account'), 'same account from another address')

    // Another account, same address: unaffected.
    const other = await h.advertiser()
    const res = await new Client(h, { ...other.auth, 'x-forwarded-for': adv.ip }).get('/v1/account')
    assert.equal(res.status, 200)
    assertRateHeaders(res, 'requests', 5, 4)
  })
})

test('reads: a new one-minute window of service time resets the budget', async () => {
  await withReadLimit(5, async () => {
    const adv = await h.advertiser()
    await readTimes(adv, 5)
    const limited = await adv.get('/v1/account')
    assertRateLimited(limited)
    const retryAfter = Number(limited.headers.get('retry-after'))

    if (retryAfter > 1) {
      await advanceClock(retryAfter - 1)
      assertRateLimited(await adv.get('/v1/account'), 'one second before the window ends')
      await advanceClock(1)
    } else {
      await advanceClock(retryAfter)
    }
    const res = await adv.get('/v1/account')
    assert.equal(res.status, 200, 'the next window allows reads again')
    assertRateHeaders(res, 'requests', 5, 4)

    await advanceClock(60)
    await readTimes(adv, 5)
  })
})

test('reads: the default limit is config.read_rate_limit_per_min = 60 and GET /account shows it', async () => {
  const adv = await h.advertiser()
  const res = await adv.get('/v1/account')
  assert.equal(res.body.config.read_rate_limit_per_min, DEFAULT_READS_PER_MIN)
  assert.equal(res.body.config.create_rate_limit_per_min, DEFAULT_CREATES_PER_MIN)
  assertRateHeaders(res, 'requests', DEFAULT_READS_PER_MIN, DEFAULT_READS_PER_MIN - 1)

  await withReadLimit(7, async () => {
    const now = await adv.get('/v1/account')
    assert.equal(now.body.config.read_rate_limit_per_min, 7, 'config changes take effect on the next request')
  })
})

test('reads: failed authentication does not spend the account budget', async () => {
  await withReadLimit(5, async () => {
    const adv = await h.advertiser()
    for (let i = 0; i < 5; i++) {
      assert.equal((await withKey(adv, 'sk_live_wrong').get('/v1/account')).status, 401)
    }
    const res = await adv.get('/v1/account')
    assert.equal(res.status, 200)
    assertRateHeaders(res, 'requests', 5, 4)
  })
})

// ---------------------------------------------------------------------------
// Creates

test('creates: POST /v1/campaigns is limited separately, and reads stay allowed', async () => {
  await withCreateLimit(2, async () => {
    const adv = await h.advertiser()
    for (let i = 1; i <= 2; i++) {
      const res = await adv.post('/v1/campaigns', campaignBody())
      assert.equal(res.status, 201, res.text)
      assertRateHeaders(res, 'creates', 2, 2 - i)
    }
    const third = await adv.post('/v1/campaigns', campaignBody())
    assertRateLimited(third, 'third create')
    assert.match(third.body.detail, /rate limit/i)
    assertRateHeaders(third, 'creates', 2, 0)

    const read = await adv.get('/v1/campaigns')
    assert.equal(read.status, 200, 'reads are not spent by creates')
    assertRateHeaders(read, 'requests', DEFAULT_READS_PER_MIN, DEFAULT_READS_PER_MIN - 1)
    assert.equal(read.body.campaigns.length, 2, 'the refused create made no campaign')
  })
})

test('creates: other writes (PATCH, pause, resume) spend the read budget, not the create budget', async () => {
  await withCreateLimit(1, async () => {
    const adv = await h.advertiser()
    const created = await adv.post('/v1/campaigns', campaignBody())
    assert.equal(created.status, 201, created.text)
    const id = created.body.campaign_id
    for (const res of [
      await adv.patch(`/v1/campaigns/${id}`, { name: 'renamed' }),
      await adv.post(`/v1/campaigns/${id}/pause`),
      await adv.post(`/v1/campaigns/${id}/resume`),
    ]) {
      assert.equal(res.status, 200, res.text)
      assert.match(res.headers.get('ratelimit-policy') ?? '', /^"requests";/)
    }
    assertRateLimited(await adv.post('/v1/campaigns', campaignBody()), 'second create')
  })
})

test('creates: the create limit is per account and resets with the next window', async () => {
  await withCreateLimit(1, async () => {
    const adv = await h.advertiser()
    assert.equal((await adv.post('/v1/campaigns', campaignBody())).status, 201)
    const limited = await adv.post('/v1/campaigns', campaignBody())
    assertRateLimited(limited)

    const other = await h.advertiser()
    assert.equal((await other.post('/v1/campaigns', campaignBody())).status, 201, 'another account is unaffected')

    await advanceClock(Number(limited.headers.get('retry-after')))
    const next = await adv.post('/v1/campaigns', campaignBody())
    assert.equal(next.status, 201, next.text)
    assertRateHeaders(next, 'creates', 1, 0)
  })
})
