/**
 * The SDK against a started service (the embedded store, or PostgreSQL with TEST_STORE=postgres):
 * every call goes over real HTTP to the real routes, and the answers' types are the generated ones.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'
import { useService, type Advertiser } from '../../../test/helpers/api.ts'
import { advance, deliver, offersWritten, privateCountry } from '../../../test/helpers/serving.ts'
import { AdvertiserClient, ApiError } from '../src/index.ts'

const h = useService({}, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null })

const line = { ad_line: 'Typed clients ship faster', destination_url: 'https://acme.dev/sdk', cpm_usd: 2.5, impressions: 1000 }

async function clientFor(adv?: Advertiser, extra: Partial<ConstructorParameters<typeof AdvertiserClient>[0]> = {}) {
  const a = adv ?? (await h.advertiser())
  return { adv: a, client: new AdvertiserClient({ baseUrl: h.baseUrl, userId: a.userId, apiKey: a.apiKey, ...extra }) }
}

test('credentials once: the account, a create with a key of its own, get, rename, rewrite, pause, resume, cancel', async () => {
  const { adv, client } = await clientFor()
  const account = await client.account()
  assert.equal(account.user_id, adv.userId)

  const created = await client.campaigns.create({ ...line, name: 'SDK launch' })
  assert.equal(created.replayed, false)
  const id = created.campaign_id
  assert.equal((await client.campaigns.get(id)).name, 'SDK launch')

  assert.equal((await client.campaigns.update(id, { name: 'SDK launch, renamed' })).name, 'SDK launch, renamed')
  assert.equal((await client.campaigns.update(id, { ad_line: 'Typed clients ship sooner' })).ad_line, 'Typed clients ship sooner')
  assert.equal((await client.campaigns.pause(id)).status, 'paused')
  assert.equal((await client.campaigns.resume(id)).status, 'active')
  assert.equal((await client.campaigns.cancel(id)).status, 'cancelled_user')
})

test('an explicit idempotency key replays; the same key with another body is a 409 ApiError', async () => {
  const { client } = await clientFor()
  const first = await client.campaigns.create({ ...line, idempotency_key: 'sdk-replay-1' })
  const again = await client.campaigns.create({ ...line, idempotency_key: 'sdk-replay-1' })
  assert.equal(again.replayed, true)
  assert.equal(again.campaign_id, first.campaign_id)
  await assert.rejects(client.campaigns.create({ ...line, cpm_usd: 3, idempotency_key: 'sdk-replay-1' }), (e: unknown) => e instanceof ApiError && e.status === 409)
})

test('a create whose answer was lost is sent again with the same key: one campaign, answered as a replay', async () => {
  let lost = 0
  const { adv, client } = await clientFor(undefined, {
    fetch: async (input, init) => {
      const request = new Request(input, init)
      const response = await fetch(request)
      if (request.method === 'POST' && lost++ === 0) throw new TypeError('fetch failed', { cause: new Error('socket hang up') })
      return response
    },
    sleep: async () => {},
  })
  const created = await client.campaigns.create(line)
  assert.equal(lost, 2)
  assert.equal(created.replayed, true)
  const list = await adv.get('/v1/campaigns')
  assert.equal(list.body.campaigns.length, 1)
})

test('lists are async iterators over next_cursor', async () => {
  const { client } = await clientFor()
  const ids = new Set<string>()
  for (let i = 0; i < 3; i++) ids.add((await client.campaigns.create({ ...line, name: `page ${i}` })).campaign_id)
  const seen: string[] = []
  for await (const c of client.campaigns.list({ limit: 1 })) seen.push(c.campaign_id)
  assert.deepEqual(new Set(seen), ids)
  assert.equal(seen.length, 3)
})

test('refusals are one ApiError with status, reason and the whole detail', async () => {
  const { client } = await clientFor()
  const refused = await client.campaigns.create({ ...line, cpm_usd: 0.01 }).then(
    () => assert.fail('a bid under the floor was accepted'),
    (e: unknown) => e,
  )
  assert.ok(refused instanceof ApiError)
  assert.equal(refused.status, 400)
  assert.equal(refused.reason, 'below_minimum')
  assert.ok(typeof refused.detail === 'object' && refused.detail.field === 'cpm_usd')
  assert.match(refused.requestId ?? '', /\S/)

  await assert.rejects(client.campaigns.get('cmp_unknown000000000000'), (e: unknown) => e instanceof ApiError && e.status === 404 && e.reason === 'not_found' && e.detail === 'campaign not found')
  const stranger = new AdvertiserClient({ baseUrl: `${h.baseUrl}/v1/`, userId: 'usr_nobody', apiKey: 'sk_live_wrong' })
  await assert.rejects(stranger.account(), (e: unknown) => e instanceof ApiError && e.status === 401 && e.reason === 'invalid_credentials' && e.detail === 'invalid credentials')
})

test('a 429 is retried after the Retry-After the service gives; without retries it is thrown with that wait', async () => {
  const { adv } = await clientFor()
  await h.config({ read_rate_limit_per_min: 3 })
  try {
    const waits: number[] = []
    const patient = new AdvertiserClient({
      baseUrl: h.baseUrl,
      userId: adv.userId,
      apiKey: adv.apiKey,
      retry: { maxRetries: 2, maxDelayMs: 120_000 },
      // The service runs on a manual clock: a wait moves it.
      sleep: async (ms) => {
        waits.push(ms)
        await h.admin.post('/admin/v1/clock', { advance_seconds: Math.ceil(ms / 1000) })
      },
    })
    for (let i = 0; i < 5; i++) await patient.account()
    assert.ok(waits.length >= 1, 'the SDK waited')
    assert.ok(waits.every((ms) => ms >= 1000), `waits honour Retry-After: ${waits.join(', ')}`)

    const hasty = new AdvertiserClient({ baseUrl: h.baseUrl, userId: adv.userId, apiKey: adv.apiKey, retry: { maxRetries: 0 } })
    let thrown: unknown
    for (let i = 0; i < 5 && thrown === undefined; i++) await hasty.account().catch((e: unknown) => (thrown = e))
    assert.ok(thrown instanceof ApiError && thrown.status === 429, String(thrown))
    assert.ok((thrown.retryAfterS ?? 0) >= 1)
  } finally {
    await h.config({ read_rate_limit_per_min: 100_000 })
  }
})

test('stats, the quote, creatives, and an export downloaded whose SHA-256 matches the job', async () => {
  const { client } = await clientFor()
  const country = privateCountry()
  await h.config({ country_targeting_enabled: true })
  const quote = await client.quote({ cpm_usd: 4, target_countries: country })
  assert.equal(quote.rank, 1)
  const created = await client.campaigns.create({ ...line, cpm_usd: 4, target_countries: [country] })
  await advance(h, 1)
  assert.equal(await deliver(h, country, 3), 3)
  await offersWritten(h)
  const now = new Date(h.svc.clock.nowMs() + 1000)
  const dayAgo = new Date(now.getTime() - 86_400_000)
  const stats = await client.stats({ from: dayAgo.toISOString(), to: now.toISOString(), granularity: 'hour', campaign_id: created.campaign_id })
  assert.equal(stats.totals.billable_impressions, 3)
  const creatives = await client.creatives.list()
  assert.equal(creatives.length, 1)
  assert.equal((await client.creatives.get(creatives[0]!.creative_id)).campaign_id, created.campaign_id)

  const job = await client.exports.create({ from: dayAgo.toISOString(), to: now.toISOString() })
  const ready = await client.exports.wait(job.id, { pollMs: 50 })
  assert.equal(ready.status, 'ready')
  const bytes = await client.exports.download(job.id)
  assert.equal(createHash('sha256').update(bytes).digest('hex'), ready.sha256)
  const listed: string[] = []
  for await (const e of client.exports.list()) listed.push(e.id)
  assert.deepEqual(listed, [job.id])
})

test('a 503 without Retry-After (not accepting orders) is thrown at once, not retried in a loop', async () => {
  const { client } = await clientFor(undefined, { sleep: async () => assert.fail('the SDK waited on a 503 that says not to retry') })
  assert.equal((await h.admin.put('/admin/v1/components/campaign_creation', { state: 'disabled' })).status, 200)
  try {
    await assert.rejects(client.campaigns.create(line), (e: unknown) => e instanceof ApiError && e.status === 503 && /do not retry/.test(String(e.detail)))
  } finally {
    await h.admin.put('/admin/v1/components/campaign_creation', { state: 'operational' })
  }
})
