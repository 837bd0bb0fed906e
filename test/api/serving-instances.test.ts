import { randomUUID } from 'node:crypto'
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { ADMIN_TOKEN, callService, startService, STORE, type TestService } from '../helpers/service.ts'
import { campaignBody } from '../helpers/api.ts'
import { viewerAddress } from '../helpers/serving.ts'
import { OUTSTANDING_WINDOW_MS } from '../../src/domain/auction.ts'
import { impressionDebitMicros } from '../../src/domain/money.ts'
import { impressionKey } from '../helpers/impression-key.ts'

/**
 * Two service instances on one PostgreSQL: changes made through one take
 * effect on the other's next decision, and together they never bill a
 * campaign beyond what it bought. (The embedded store is one process by
 * design, so this file runs on PostgreSQL only.)
 */
const skip = STORE !== 'postgres' ? 'two instances need a shared PostgreSQL' : false

let a: TestService
let b: TestService

before(async () => {
  if (skip) return
  a = await startService()
  b = await startService({ DATABASE_URL: a.databaseUrl! })
})
after(async () => {
  if (skip) return
  await b.close()
  await a.close()
})

/**
 * Every decision comes from its viewer's own address (`viewerAddress`), as real viewers sit on many
 * networks: the invalid-traffic bounds (test/api/invalid-traffic*.test.ts) then judge this traffic
 * as real traffic.
 */
const call = (svc: TestService, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const viewer = path === '/serve/v1/decisions' && body && typeof body === 'object' && 'viewer_id' in body ? String(body.viewer_id) : null
  return callService(svc, method, path, body, viewer === null ? headers : { 'x-forwarded-for': viewerAddress(viewer), ...headers })
}

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }

async function advertiser(): Promise<Record<string, string>> {
  const { body } = await call(a, 'POST', '/admin/v1/accounts', { email: `two-${randomUUID()}@example.dev` }, admin)
  await call(a, 'POST', `/admin/v1/accounts/${body.user_id}/write-approval`, { approved: true }, admin)
  await call(a, 'POST', `/admin/v1/accounts/${body.user_id}/terms`, { accepted: true }, admin)
  await call(a, 'POST', `/admin/v1/accounts/${body.user_id}/billing`, { mode: 'weekly_autopay', card_number: '4242424242424242' }, admin)
  return { 'x-service-user-id': body.user_id, 'x-service-api-key': body.api_key, 'x-forwarded-for': '203.0.113.7' }
}

async function advanceBoth(seconds: number) {
  for (const svc of [a, b]) assert.equal((await call(svc, 'POST', '/admin/v1/clock', { advance_seconds: seconds }, admin)).status, 200)
}

test('a change made on one instance takes effect on the next decision of the other', { skip }, async () => {
  const auth = await advertiser()
  const created = await call(a, 'POST', '/v1/campaigns', campaignBody({ target_countries: ['QQ'] }), auth)
  assert.equal(created.status, 201)
  const id = created.body.campaign_id
  assert.equal((await call(b, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id: 'x', country: 'QQ' })).status, 200)
  assert.equal((await call(a, 'POST', `/v1/campaigns/${id}/pause`, undefined, auth)).status, 200)
  assert.equal((await call(b, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id: 'x', country: 'QQ' })).status, 204)
  await call(b, 'POST', `/v1/campaigns/${id}/resume`, undefined, auth)
  assert.equal((await call(a, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id: 'x', country: 'QQ' })).status, 200)
  await call(a, 'PATCH', `/v1/campaigns/${id}`, { ad_line: 'Rewritten on instance A' }, auth)
  const d = await call(b, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id: 'x', country: 'QQ' })
  assert.equal(d.body.ad_line, 'Rewritten on instance A')
})

test('two instances billing one campaign concurrently never exceed what it bought', { skip }, async () => {
  const auth = await advertiser()
  const created = await call(a, 'POST', '/v1/campaigns', campaignBody({ target_countries: ['QR'], impressions: 1000 }), auth)
  const id = created.body.campaign_id
  const filledPerRound: number[] = []
  for (let round = 0; round < 3; round++) {
    // 400 decisions per round on each instance; views cross over to the other instance.
    const offers = await Promise.all(
      Array.from({ length: 800 }, (_, i) =>
        call(i % 2 ? a : b, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id: `r${round}-v${i}`, country: 'QR' }),
      ),
    )
    const filled = offers.filter((o) => o.status === 200)
    filledPerRound.push(filled.length)
    await advanceBoth(10)
    await Promise.all(filled.map((o, i) => call(i % 2 ? b : a, 'POST', `/serve/v1/impressions/${o.body.impression_id}/view`, { dwell_ms: 10_000 })))
    // A view answered by the other instance does not release the offer where it was made: wait out the window.
    await advanceBoth(OUTSTANDING_WINDOW_MS / 1000)
  }
  // Each instance offers at most what is left (200 each in the second round); the store bills only those 200.
  assert.deepEqual(filledPerRound, [800, 400, 0])
  // The status follows the leases' settlement (each instance settles every second): polled, not assumed done.
  let campaign = (await call(a, 'GET', `/v1/campaigns/${id}`, undefined, auth)).body
  for (const deadline = performance.now() + 15_000; campaign.status !== 'completed' && performance.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, 100))
    campaign = (await call(a, 'GET', `/v1/campaigns/${id}`, undefined, auth)).body
  }
  assert.equal(campaign.impressions_served, 1000)
  assert.equal(campaign.status, 'completed')
  const n = await a.service.store.db
    .selectFrom('ledger_events')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('campaign_id', '=', id)
    .where('event_type', '=', 'impression')
    .executeTakeFirstOrThrow()
  assert.equal(Number(n.n), 1000)
})

test('each instance holds the offers it made until their view there or the window; the store bills only what was bought', { skip }, async () => {
  const auth = await advertiser()
  const created = await call(a, 'POST', '/v1/campaigns', campaignBody({ target_countries: ['QU'], impressions: 1000 }), auth)
  const id = created.body.campaign_id
  await a.service.store.db.updateTable('campaigns').set({ impressions_billed: 998, impressions_leased: 998 }).where('campaign_id', '=', id).execute()
  await advanceBoth(1) // both reload delivery counts
  let viewer = 0
  const decideOn = async (svc: TestService) =>
    (await call(svc, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id: `held-${viewer++}`, country: 'QU' })).body?.impression_id ?? null
  const [a1, a2, aFull] = [await decideOn(a), await decideOn(a), await decideOn(a)]
  const [b1, b2, bFull] = [await decideOn(b), await decideOn(b), await decideOn(b)]
  assert.ok(a1 && a2 && b1 && b2, 'two left: each instance offers two')
  assert.deepEqual([aFull, bFull], [null, null])
  await advanceBoth(10)
  const viewOn = async (svc: TestService, impressionId: string) =>
    assert.equal((await call(svc, 'POST', `/serve/v1/impressions/${impressionId}/view`, { dwell_ms: 10_000 })).status, 204)
  await viewOn(b, a1) // billed on B: A does not learn which of its offers it was
  await advanceBoth(1)
  assert.equal(await decideOn(a), null, '999 billed and A still holds two offers: held back, not ahead')
  await advanceBoth(OUTSTANDING_WINDOW_MS / 1000)
  const a3 = await decideOn(a)
  assert.ok(a3, 'past the window A offers the last impression again')
  await advanceBoth(10)
  for (const impressionId of [b1, a3, a2, b2]) await viewOn(a, impressionId)
  // The status follows the leases' settlement (each instance settles every second): polled, not assumed done.
  let campaign = (await call(a, 'GET', `/v1/campaigns/${id}`, undefined, auth)).body
  for (const deadline = performance.now() + 15_000; campaign.status !== 'completed' && performance.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, 100))
    campaign = (await call(a, 'GET', `/v1/campaigns/${id}`, undefined, auth)).body
  }
  assert.equal(campaign.impressions_served, 1000)
  assert.equal(campaign.status, 'completed')
})

test('one viewer billed through both instances at the same instant is billed once; repeats across instances count once', { skip }, async () => {
  const auth = await advertiser()
  const created = await call(a, 'POST', '/v1/campaigns', campaignBody({ target_countries: ['QS'], impressions: 1000 }), auth)
  const id = created.body.campaign_id
  for (let round = 0; round < 5; round++) {
    // The same viewer gets one offer from each instance; both views arrive together, each on the other instance.
    const viewer = `same-viewer-${round}`
    const [fromA, fromB] = await Promise.all([a, b].map((svc) => call(svc, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id: viewer, country: 'QS' })))
    await advanceBoth(10)
    const statuses = await Promise.all([
      call(b, 'POST', `/serve/v1/impressions/${fromA!.body.impression_id}/view`, { dwell_ms: 10_000 }),
      call(a, 'POST', `/serve/v1/impressions/${fromB!.body.impression_id}/view`, { dwell_ms: 10_000 }),
      call(a, 'POST', `/serve/v1/impressions/${fromA!.body.impression_id}/view`, { dwell_ms: 10_000 }),
    ])
    assert.deepEqual(statuses.map((s) => s.status), [204, 204, 204])
  }
  const rows = await a.service.store.db
    .selectFrom('ledger_events')
    .select(['event_type', 'reason'])
    .where('campaign_id', '=', id)
    .where('event_type', 'in', ['impression', 'view'])
    .execute()
  assert.equal(rows.filter((r) => r.event_type === 'impression').length, 5, 'one billable impression per round')
  assert.equal(rows.length, 10, 'two measured views per round: the repeat is recorded once')
  assert.ok(rows.filter((r) => r.event_type === 'view').every((r) => r.reason === 'viewer_frequency'))
  assert.equal((await call(a, 'GET', `/v1/campaigns/${id}`, undefined, auth)).body.impressions_served, 5)
})

test('rotation: an instance on OFFER_KEYS seals under its new key and still opens ids sealed under the stored key', { skip }, async () => {
  const auth = await advertiser()
  const created = await call(a, 'POST', '/v1/campaigns', campaignBody({ target_countries: ['QV'], impressions: 1000 }), auth)
  const id = created.body.campaign_id
  const stored = await a.service.store.db.selectFrom('settings').select('value').where('key', '=', 'offer_key').executeTakeFirstOrThrow()
  assert.equal(typeof stored.value, 'string')
  // The documented switch from the stored key: a new key first, the stored one (id 0) kept for an hour.
  const c = await startService({ DATABASE_URL: a.databaseUrl!, OFFER_KEYS: `5:${'7e'.repeat(32)},0:${String(stored.value)}` })
  try {
    const decideOn = async (svc: TestService, viewer: string) =>
      (await call(svc, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id: viewer, country: 'QV' })).body.impression_id as string
    const before = await decideOn(a, 'rotate-1')
    const after = await decideOn(c, 'rotate-2')
    assert.equal(Buffer.from(after.slice(4), 'base64url')[0], 5, 'the new key seals')
    for (const svc of [a, c]) assert.equal((await call(svc, 'POST', '/admin/v1/clock', { advance_seconds: 10 }, admin)).status, 200)
    const viewOn = async (svc: TestService, impressionId: string) =>
      (await call(svc, 'POST', `/serve/v1/impressions/${impressionId}/view`, { dwell_ms: 10_000 })).status
    assert.equal(await viewOn(c, before), 204, 'sealed under the stored key before the switch')
    assert.equal(await viewOn(a, after), 404, 'an instance without the new key: roll a key out as a second entry first')
    assert.equal(await viewOn(c, after), 204)
    assert.equal((await call(a, 'GET', `/v1/campaigns/${id}`, undefined, auth)).body.impressions_served, 2)
  } finally {
    await c.close()
    // The third instance's clock moved alone: bring B level with A again.
    await call(b, 'POST', '/admin/v1/clock', { advance_seconds: 10 }, admin)
  }
})

test('click campaigns through both instances: each click billed once, one per viewer per day, never more than bought', { skip }, async () => {
  const auth = await advertiser()
  const created = await call(a, 'POST', '/v1/campaigns', campaignBody({ target_countries: ['QC'], kind: 'click', cpm_usd: 3.123457, impressions: 1000 }), auth)
  assert.equal(created.status, 201, created.text)
  const id = created.body.campaign_id
  await a.service.store.db.updateTable('campaigns').set({ impressions_billed: 990, impressions_leased: 990 }).where('campaign_id', '=', id).execute()
  await advanceBoth(2)
  const instances = [a, b]
  const decide = (i: number, viewer: string) => call(instances[i % 2]!, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id: viewer, country: 'QC' })
  const offers = await Promise.all([
    ...Array.from({ length: 24 }, (_, i) => decide(i, `click-two-${i}`)),
    ...Array.from({ length: 4 }, (_, i) => decide(i, 'click-two-same')),
  ])
  for (const o of offers) assert.equal(o.status, 200, o.text)
  // Every click goes to the instance that did not make the offer, each one twice (a double click).
  const clicks = offers.flatMap((o, i) => [instances[(i + 1) % 2]!, instances[(i + 1) % 2]!].map((svc) => fetch(svc.baseUrl + new URL(o.body.click_url).pathname, { redirect: 'manual' })))
  for (const res of await Promise.all(clicks)) assert.equal(res.status, 302)

  const rows = await a.service.store.db
    .selectFrom('ledger_events')
    .select(['impression_key', 'billable', 'debit_micros', 'reason', 'viewer_key'])
    .where('campaign_id', '=', id)
    .where('event_type', '=', 'click')
    .execute()
  assert.equal(rows.length, offers.length, 'one click row per impression')
  const billable = rows.filter((r) => r.billable)
  assert.equal(billable.length, 10, 'exactly the ten clicks left')
  const sameViewer = offers.slice(24).map((o) => impressionKey(o.body.impression_id))
  assert.ok(billable.filter((r) => sameViewer.some((k) => k.equals(r.impression_key))).length <= 1, 'one billable click per viewer per day')
  const priced = Array.from({ length: 10 }, (_, i) => impressionDebitMicros(3_123_457, 991 + i))
  assert.deepEqual(billable.map((r) => r.debit_micros).sort(), priced.sort(), 'numbers 991-1000, each billed once')
  // Each instance bills from its own lease: the one holding number 1000 may bill it before the other has
  // billed its earlier numbers, and completion then follows the other's next settlement (every second).
  let campaign = await call(b, 'GET', `/v1/campaigns/${id}`, undefined, auth)
  for (let i = 0; i < 50 && campaign.body.status !== 'completed'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    campaign = await call(b, 'GET', `/v1/campaigns/${id}`, undefined, auth)
  }
  assert.equal(campaign.body.impressions_served, 1000)
  assert.equal(campaign.body.status, 'completed')
  assert.equal(campaign.body.lifetime_spent_micros, priced.reduce((s, x) => s + x, 0))
})
