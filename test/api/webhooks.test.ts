import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { advance, deliver, privateCountry } from '../helpers/serving.ts'
import { WebhookReceiver } from '../helpers/webhook-receiver.ts'
import { Scrape } from '../helpers/metrics.ts'
import { ADMIN_TOKEN } from '../helpers/service.ts'

// Webhooks over real HTTP to a real receiver on 127.0.0.1 (WEBHOOKS_ALLOW_LOOPBACK=true), on both
// stores. The clock is manual: retries wait on the service clock, which the tests move.
// Reads are polled while the sender works in real time: the read limit must not be what a test meets.
const h = useService({ WEBHOOKS_ALLOW_LOOPBACK: 'true' }, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null })

let receiver: WebhookReceiver
before(async () => {
  receiver = await WebhookReceiver.start()
})
after(async () => {
  await receiver.close()
})

/** A fresh receiver per test (its own secret and log), closed with the file. */
const receivers: WebhookReceiver[] = []
after(async () => {
  for (const r of receivers) await r.close()
})
async function endpoint(adv: Advertiser, events: string[]): Promise<{ receiver: WebhookReceiver; id: string; secret: string }> {
  const r = await WebhookReceiver.start()
  receivers.push(r)
  const res = await adv.post('/v1/webhook-endpoints', { url: r.url, events })
  assert.equal(res.status, 201, res.text)
  r.secret = res.body.secret
  return { receiver: r, id: res.body.id, secret: res.body.secret }
}

async function scrape(): Promise<Scrape> {
  const res = await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  assert.equal(res.status, 200)
  return new Scrape(await res.text())
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = performance.now() + ms
  for (;;) {
    const v = await read()
    if (ok(v)) return v
    if (performance.now() > end) throw new Error(`condition not met within ${ms} ms: ${JSON.stringify(v).slice(0, 400)}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

test('register, list, read, delete: the secret is shown once, foreign ids are 404', async () => {
  const adv = await h.advertiser()
  const created = await adv.post('/v1/webhook-endpoints', { url: receiver.url, events: ['invoice.finalized', 'campaign.exhausted', 'invoice.finalized'] })
  assert.equal(created.status, 201, created.text)
  assert.match(created.body.id, /^whe_/)
  assert.match(created.body.secret, /^whsec_[A-Za-z0-9+/]+={0,2}$/)
  const bytes = Buffer.from(created.body.secret.slice(6), 'base64').length
  assert.ok(bytes >= 24 && bytes <= 32, `${bytes} secret bytes`)
  assert.deepEqual(created.body.events, ['campaign.exhausted', 'invoice.finalized'], 'de-duplicated, in catalogue order')
  assert.equal(created.body.url, receiver.url)
  assert.equal(created.body.created_at, h.svc.clock.now().toISOString())

  const list = await adv.get('/v1/webhook-endpoints')
  assert.equal(list.status, 200)
  assert.deepEqual(list.body.endpoints, [{ id: created.body.id, url: receiver.url, events: created.body.events, created_at: created.body.created_at }])
  const one = await adv.get(`/v1/webhook-endpoints/${created.body.id}`)
  assert.equal(one.status, 200)
  assert.deepEqual([one.body.deliveries, one.body.attempts], [[], []])
  assert.ok(!list.text.includes(created.body.secret) && !one.text.includes(created.body.secret), 'never shown again')
  const sealed = await h.svc.service.store.db.selectFrom('webhook_endpoints').select('secret_sealed').where('endpoint_id', '=', created.body.id).executeTakeFirstOrThrow()
  assert.ok(!sealed.secret_sealed.toString('latin1').includes(created.body.secret.slice(6)), 'stored sealed, not in plain text')

  const other = await h.advertiser()
  assert.equal((await other.get(`/v1/webhook-endpoints/${created.body.id}`)).status, 404)
  assert.equal((await other.delete(`/v1/webhook-endpoints/${created.body.id}`)).status, 404)
  assert.deepEqual((await other.get('/v1/webhook-endpoints')).body.endpoints, [])
  assert.equal((await other.post(`/v1/webhook-endpoints/${created.body.id}/deliveries/msg_x/resend`)).status, 404)

  const deleted = await adv.delete(`/v1/webhook-endpoints/${created.body.id}`)
  assert.deepEqual([deleted.status, deleted.body], [200, { id: created.body.id, deleted: true }])
  assert.equal((await adv.get(`/v1/webhook-endpoints/${created.body.id}`)).status, 404)
  assert.equal((await adv.delete(`/v1/webhook-endpoints/${created.body.id}`)).status, 404)
  assert.equal((await h.anonymous.get('/v1/webhook-endpoints')).status, 401)
})

test('an account whose writes are blocked may still register endpoints (authentication only)', async () => {
  const adv = await h.advertiser({ approved: false, terms: false, billing: 'none' })
  assert.equal((await adv.post('/v1/webhook-endpoints', { url: receiver.url, events: ['invoice.payment_failed'] })).status, 201)
})

test('bad input is 400 with the field and reason; at most 10 endpoints (409)', async () => {
  const adv = await h.advertiser()
  const refused = async (body: unknown) => {
    const res = await adv.post('/v1/webhook-endpoints', body)
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`)
    return res.body.detail
  }
  assert.deepEqual(await refused({ url: receiver.url, events: ['campaign.exhausted', 'campaign.paused'] }), { field: 'events', reason: 'unknown_event', event: 'campaign.paused' })
  assert.equal((await refused({ url: receiver.url, events: [] })).field, 'events')
  assert.equal((await refused({ url: receiver.url })).field, 'events')
  assert.equal((await refused({ events: ['export.ready'] })).field, 'url')
  for (const [url, reason] of [
    ['not a url', 'invalid_url'],
    ['http://example.com/hook', 'https_required'],
    ['ftp://example.com/hook', 'https_required'],
    ['http://vm/hook', 'https_required'],
    ['https://user:pw@example.com/hook', 'credentials_not_allowed'],
    [`https://example.com/${'a'.repeat(490)}`, 'too_long'],
    ['https://10.1.2.3/hook', 'forbidden_address'],
    ['https://172.16.0.1/hook', 'forbidden_address'],
    ['https://192.168.1.1/hook', 'forbidden_address'],
    ['https://169.254.169.254/latest/meta-data', 'forbidden_address'],
    ['https://100.64.0.1/hook', 'forbidden_address'],
    ['https://0.0.0.0/hook', 'forbidden_address'],
    ['https://224.0.0.1/hook', 'forbidden_address'],
    ['https://[fd00::1]/hook', 'forbidden_address'],
    ['https://[fe80::1]/hook', 'forbidden_address'],
    ['https://[::ffff:10.0.0.1]/hook', 'forbidden_address'],
    ['https://[::]/hook', 'forbidden_address'],
    ['https://0x0a.1/hook', 'forbidden_address'],
    ['https://no-such-host.invalid/hook', 'unresolvable_host'],
  ] as const) {
    assert.deepEqual(await refused({ url, events: ['export.ready'] }), { field: 'url', reason }, url)
  }
  for (let i = 0; i < 10; i++) assert.equal((await adv.post('/v1/webhook-endpoints', { url: receiver.url, events: ['export.ready'] })).status, 201)
  const over = await adv.post('/v1/webhook-endpoints', { url: receiver.url, events: ['export.ready'] })
  assert.deepEqual([over.status, over.body.detail], [409, { field: 'url', reason: 'endpoint_limit_reached', limit: 10 }])
})

test('issue 34: IPv4-mapped, local-use NAT64 and Teredo addresses are refused at registration, in every spelling', async () => {
  const adv = await h.advertiser()
  const port = new URL(receiver.url).port
  // The attack: the receiver on 127.0.0.1, reached through its IPv4-mapped form. The loopback setting
  // of this service used to let the mapped form through as loopback; it is no IPv6 destination at all.
  for (const host of ['[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[0:0:0:0:0:ffff:7f00:1]', '[::ffff:8.8.8.8]', '[::ffff:a9fe:a9fe]']) {
    const res = await adv.post('/v1/webhook-endpoints', { url: `https://${host}:${port}/hook`, events: ['export.ready'] })
    assert.deepEqual([res.status, res.body.detail], [400, { field: 'url', reason: 'forbidden_address' }], host)
  }
  for (const host of ['[64:ff9b:1::a00:1]', '[64:ff9b:1::808:808]', '[2001:0:4136:e378:8000:63bf:3fff:fdd2]', '[2001::1]', '[64:ff9b::a9fe:a9fe]', '[2001:db8::1]']) {
    const res = await adv.post('/v1/webhook-endpoints', { url: `https://${host}/hook`, events: ['export.ready'] })
    assert.deepEqual([res.status, res.body.detail], [400, { field: 'url', reason: 'forbidden_address' }], host)
  }
  assert.deepEqual((await adv.get('/v1/webhook-endpoints')).body.endpoints, [], 'nothing was registered')
})

test('export.ready: signed per Standard Webhooks, body {type, timestamp, data}, logged per attempt', async () => {
  const adv = await h.advertiser()
  const ep = await endpoint(adv, ['export.ready'])
  const queued = await adv.post('/v1/exports', { start: '2026-11-01T00:00:00Z', end: '2026-11-02T00:00:00Z' })
  assert.equal(queued.status, 202, queued.text)
  const [got] = await ep.receiver.waitFor(1, 'export.ready')
  assert.ok(got!.verified, 'the signature verifies with the secret')
  assert.match(got!.id, /^msg_/)
  assert.equal(got!.timestamp, Math.floor(h.svc.clock.nowMs() / 1000), 'webhook-timestamp: unix seconds of the service clock')
  const job = (await adv.get(`/v1/exports/${queued.body.id}`)).body
  assert.equal(job.status, 'ready')
  assert.deepEqual(got!.json, {
    type: 'export.ready',
    timestamp: job.finished_at,
    data: {
      export_id: job.id,
      status_url: job.status_url,
      schema_version: job.schema_version,
      row_count: job.row_count,
      size_bytes: job.size_bytes,
      sha256: job.sha256,
      expires_at: job.expires_at,
    },
  })
  const log = await until(() => adv.get(`/v1/webhook-endpoints/${ep.id}`), (r) => r.body.deliveries[0]?.status === 'delivered')
  assert.deepEqual(log.body.deliveries.map((d: { id: string; attempts: number }) => [d.id, d.attempts]), [[got!.id, 1]])
  const [attempt] = log.body.attempts
  assert.deepEqual([attempt.delivery_id, attempt.status_code, attempt.error, attempt.succeeded], [got!.id, 200, null, true])
  assert.ok(Number.isInteger(attempt.duration_ms) && attempt.duration_ms >= 0)
  assert.ok(!log.text.includes(ep.secret))
})

test('campaign.moderation_decided from an operator decision; another account hears nothing', async () => {
  const adv = await h.advertiser()
  const ep = await endpoint(adv, ['campaign.moderation_decided'])
  const other = await h.advertiser()
  const otherEp = await endpoint(other, ['campaign.moderation_decided'])
  const created = await adv.post('/v1/campaigns', campaignBody({ target_countries: [privateCountry()] }))
  assert.equal(created.status, 201)
  const id = created.body.campaign_id
  assert.equal((await h.admin.post(`/admin/v1/campaigns/${id}/moderation`, { status: 'rejected', reason: 'Misleading claim' })).status, 200)
  const [got] = await ep.receiver.waitFor(1)
  assert.ok(got!.verified)
  assert.deepEqual(got!.json.data, { campaign_id: id, moderation_status: 'rejected', moderation_reason: 'Misleading claim', decided_at: got!.json.timestamp })
  assert.equal(got!.json.type, 'campaign.moderation_decided')
  // Events fan out into the outbox when they happen: the other account's endpoint has no message, so nothing can ever be sent to it.
  assert.deepEqual((await other.get(`/v1/webhook-endpoints/${otherEp.id}`)).body.deliveries, [])
  assert.equal(otherEp.receiver.received.length, 0)
})

test('a 500 is retried with backoff on the service clock, with the same webhook-id; resend sends it again', async () => {
  const adv = await h.advertiser()
  const ep = await endpoint(adv, ['campaign.moderation_decided'])
  let answers = 0
  ep.receiver.answer = (_req, res) => void res.writeHead(answers++ === 0 ? 500 : 200).end()
  const before = await scrape()
  const created = await adv.post('/v1/campaigns', campaignBody({ target_countries: [privateCountry()] }))
  await h.admin.post(`/admin/v1/campaigns/${created.body.campaign_id}/moderation`, { status: 'approved' })
  const [first] = await ep.receiver.waitFor(1)
  const pending = await until(() => adv.get(`/v1/webhook-endpoints/${ep.id}`), (r) => r.body.attempts.length === 1)
  const delivery = pending.body.deliveries[0]
  assert.deepEqual([delivery.status, delivery.attempts, pending.body.attempts[0].status_code, pending.body.attempts[0].error], ['pending', 1, 500, 'http_500'])
  // The first retry waits 5 s ± 25 % of service time: nothing more arrives until the clock moves.
  const waitMs = Date.parse(delivery.next_attempt_at) - h.svc.clock.nowMs()
  assert.ok(waitMs >= 3_750 && waitMs <= 6_250, `first retry after ${waitMs} ms`)
  await new Promise((r) => setTimeout(r, 1500))
  assert.equal(ep.receiver.received.length, 1)
  await advance(h, 7)
  const [, second] = await ep.receiver.waitFor(2)
  assert.equal(second!.id, first!.id, 'the same webhook-id on the retry')
  assert.equal(second!.body, first!.body, 'the same body')
  assert.ok(second!.verified && second!.timestamp > first!.timestamp)
  const done = await until(() => adv.get(`/v1/webhook-endpoints/${ep.id}`), (r) => r.body.deliveries[0].status === 'delivered')
  assert.deepEqual(done.body.attempts.map((a: { status_code: number }) => a.status_code), [200, 500])

  const resent = await adv.post(`/v1/webhook-endpoints/${ep.id}/deliveries/${first!.id}/resend`)
  assert.deepEqual([resent.status, resent.body.id, resent.body.status], [202, first!.id, 'pending'])
  const [, , third] = await ep.receiver.waitFor(3)
  assert.equal(third!.id, first!.id)
  // Each recorded attempt is counted in /metrics by what it left the message as: one retrying (the 500), two delivered.
  await until(() => adv.get(`/v1/webhook-endpoints/${ep.id}`), (r) => r.body.attempts.length === 3)
  const after = await scrape()
  const delta = (outcome: string) => after.value('adapi_webhook_attempts_total', { outcome }) - before.value('adapi_webhook_attempts_total', { outcome })
  assert.deepEqual([delta('retrying'), delta('delivered'), delta('failed')], [1, 2, 0])
  assert.equal(after.count('adapi_webhook_attempt_duration_seconds') - before.count('adapi_webhook_attempt_duration_seconds'), 3)
  assert.equal((await adv.post(`/v1/webhook-endpoints/${ep.id}/deliveries/msg_unknown/resend`)).status, 404)
})

test('a receiver that never answers 2xx: retried for 24 hours from the event, then failed', async () => {
  const adv = await h.advertiser()
  const ep = await endpoint(adv, ['campaign.moderation_decided'])
  ep.receiver.answer = (_req, res) => void res.writeHead(503).end()
  const created = await adv.post('/v1/campaigns', campaignBody({ target_countries: [privateCountry()] }))
  await h.admin.post(`/admin/v1/campaigns/${created.body.campaign_id}/moderation`, { status: 'approved' })
  await ep.receiver.waitFor(1)
  const eventAt = h.svc.clock.nowMs()
  const read = () => adv.get(`/v1/webhook-endpoints/${ep.id}`)
  let state = await until(read, (r) => r.body.attempts.length === 1)
  while (state.body.deliveries[0].status === 'pending') {
    const attempts = state.body.attempts.length
    const due = Date.parse(state.body.deliveries[0].next_attempt_at)
    assert.ok(due - eventAt <= 24 * 3600_000, 'never scheduled past 24 hours')
    // The read is one snapshot (the message's next attempt agrees with the log), so `due` is ahead of the clock.
    assert.ok(due > h.svc.clock.nowMs(), `next attempt ${new Date(due).toISOString()} is after the service clock`)
    await advance(h, Math.ceil((due - h.svc.clock.nowMs()) / 1000) + 1)
    state = await until(read, (r) => r.body.attempts.length > attempts)
  }
  assert.equal(state.body.deliveries[0].status, 'failed')
  const attempts = state.body.attempts.length
  assert.ok(attempts >= 8 && attempts <= 16, `${attempts} attempts`)
  assert.equal(new Set(ep.receiver.received.map((r) => r.id)).size, 1)
  // The gaps grow (exponential backoff, jitter within ±25 %).
  const times = state.body.attempts.map((a: { attempted_at: string }) => Date.parse(a.attempted_at)).reverse()
  const gaps = times.slice(1).map((t: number, i: number) => t - times[i])
  assert.ok(gaps[3] > gaps[0] && gaps[6] > gaps[3], `gaps ${gaps.join(',')}`)
})

test('campaign.exhausted when the last bought impression is billed', async () => {
  const adv = await h.advertiser()
  const ep = await endpoint(adv, ['campaign.exhausted'])
  const country = privateCountry()
  const created = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 1000, cpm_usd: 2 }))
  assert.equal(created.status, 201, created.text)
  for (let round = 0; round < 6; round++) await deliver(h, country, 200)
  const campaign = await until(() => adv.get(`/v1/campaigns/${created.body.campaign_id}`), (r) => r.body.status === 'completed')
  const [got] = await ep.receiver.waitFor(1)
  assert.ok(got!.verified)
  assert.deepEqual(got!.json.data, {
    campaign_id: created.body.campaign_id,
    impressions: 1000,
    impressions_delivered: 1000,
    spend_micros: 2_000_000,
    completed_at: got!.json.timestamp,
  })
  assert.equal(campaign.body.impressions_served, 1000)
  // One message for the event, delivered: a delivered message is never claimed again.
  const log = await until(() => adv.get(`/v1/webhook-endpoints/${ep.id}`), (r) => r.body.deliveries[0]?.status === 'delivered')
  assert.deepEqual(log.body.deliveries.map((d: { id: string }) => d.id), [got!.id], 'once')
  assert.equal(ep.receiver.received.length, 1, 'once')
})

test('invoice.finalized and invoice.payment_failed from the Monday invoicing run', async () => {
  const adv = await h.advertiser({ billing: 'failing_card' })
  const ep = await endpoint(adv, ['invoice.finalized', 'invoice.payment_failed'])
  const country = privateCountry()
  assert.equal((await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], cpm_usd: 10 }))).status, 201)
  await deliver(h, country, 5)
  const next = new Date(h.svc.clock.nowMs())
  next.setUTCDate(next.getUTCDate() + ((8 - next.getUTCDay()) % 7 || 7))
  next.setUTCHours(6, 0, 0, 0)
  assert.equal((await h.admin.post('/admin/v1/clock', { now: next.toISOString() })).status, 200)
  const [finalized] = await ep.receiver.waitFor(1, 'invoice.finalized')
  const [failed] = await ep.receiver.waitFor(1, 'invoice.payment_failed')
  const [invoice] = (await h.admin.get(`/admin/v1/accounts/${adv.userId}/invoices`)).body.invoices
  assert.ok(finalized!.verified && failed!.verified)
  assert.deepEqual(finalized!.json.data, {
    invoice_id: invoice.invoice_id,
    billing_mode: 'weekly_autopay',
    period_start: invoice.period.start,
    period_end: invoice.period.end,
    amount_cents: invoice.amount_cents,
    credits_applied_cents: invoice.credits_applied_cents,
    total_cents: invoice.total_cents,
    status: 'open',
    due_at: invoice.due_at,
  })
  assert.deepEqual(failed!.json.data, { invoice_id: invoice.invoice_id, total_cents: invoice.total_cents, charge_attempts: 1, failure_code: failed!.json.data.failure_code, due_at: invoice.due_at })
  assert.equal(typeof failed!.json.data.failure_code, 'string')
  assert.notEqual(finalized!.id, failed!.id)
})

test('an endpoint deleted before its delivery is not sent to', async () => {
  const adv = await h.advertiser()
  const ep = await endpoint(adv, ['campaign.moderation_decided'])
  ep.receiver.answer = (_req, res) => void res.writeHead(500).end()
  const created = await adv.post('/v1/campaigns', campaignBody({ target_countries: [privateCountry()] }))
  await h.admin.post(`/admin/v1/campaigns/${created.body.campaign_id}/moderation`, { status: 'approved' })
  await ep.receiver.waitFor(1)
  await until(() => adv.get(`/v1/webhook-endpoints/${ep.id}`), (r) => r.body.attempts.length === 1)
  assert.equal((await adv.delete(`/v1/webhook-endpoints/${ep.id}`)).status, 200)
  await advance(h, 60)
  await new Promise((r) => setTimeout(r, 2000))
  assert.equal(ep.receiver.received.length, 1)
})

test('delivered messages and their log are deleted 30 days after the event by the expiry job', async () => {
  const adv = await h.advertiser()
  const ep = await endpoint(adv, ['export.ready'])
  assert.equal((await adv.post('/v1/exports', { start: '2026-11-01T00:00:00Z', end: '2026-11-02T00:00:00Z' })).status, 202)
  await ep.receiver.waitFor(1)
  await until(() => adv.get(`/v1/webhook-endpoints/${ep.id}`), (r) => r.body.deliveries[0]?.status === 'delivered')
  await advance(h, 29 * 24 * 3600)
  assert.equal((await adv.get(`/v1/webhook-endpoints/${ep.id}`)).body.deliveries.length, 1, 'kept for 30 days')
  await advance(h, 2 * 24 * 3600)
  const after = await adv.get(`/v1/webhook-endpoints/${ep.id}`)
  assert.deepEqual([after.body.deliveries, after.body.attempts], [[], []])
})

test('the address is checked again at delivery: an endpoint that now points inside is refused and logged, never connected', async () => {
  const adv = await h.advertiser()
  const ep = await endpoint(adv, ['campaign.moderation_decided'])
  // As if the name had been re-pointed after registration: the stored URL now names a private address.
  await h.svc.service.store.db.updateTable('webhook_endpoints').set({ url: 'https://10.0.0.1/hook' }).where('endpoint_id', '=', ep.id).execute()
  const created = await adv.post('/v1/campaigns', campaignBody({ target_countries: [privateCountry()] }))
  await h.admin.post(`/admin/v1/campaigns/${created.body.campaign_id}/moderation`, { status: 'approved' })
  const log = await until(() => adv.get(`/v1/webhook-endpoints/${ep.id}`), (r) => r.body.attempts.length === 1)
  const [attempt] = log.body.attempts
  assert.deepEqual([attempt.status_code, attempt.error, attempt.succeeded], [null, 'forbidden_address', false])
  assert.equal(log.body.deliveries[0].status, 'pending', 'retried: the name may point outside again')
  assert.equal(ep.receiver.received.length, 0)
})

test('issue 34: at delivery, an endpoint now naming a mapped, local-use NAT64 or Teredo address is refused and never connected', async () => {
  const adv = await h.advertiser()
  const hosts = ['[::ffff:7f00:1]', '[64:ff9b:1::a00:1]', '[2001:0:4136:e378:8000:63bf:3fff:fdd2]']
  const eps = []
  for (const host of hosts) {
    const ep = await endpoint(adv, ['campaign.moderation_decided'])
    const port = new URL(ep.receiver.url).port
    await h.svc.service.store.db.updateTable('webhook_endpoints').set({ url: `https://${host}:${port}/hook` }).where('endpoint_id', '=', ep.id).execute()
    eps.push(ep)
  }
  const created = await adv.post('/v1/campaigns', campaignBody({ target_countries: [privateCountry()] }))
  await h.admin.post(`/admin/v1/campaigns/${created.body.campaign_id}/moderation`, { status: 'approved' })
  for (const ep of eps) {
    const log = await until(() => adv.get(`/v1/webhook-endpoints/${ep.id}`), (r) => r.body.attempts.length === 1)
    const [attempt] = log.body.attempts
    assert.deepEqual([attempt.status_code, attempt.error, attempt.succeeded], [null, 'forbidden_address', false])
    assert.equal(ep.receiver.received.length, 0)
  }
})

test('a receiver that holds its request open does not hold up deliveries to others', async () => {
  const slow = await h.advertiser()
  const slowEp = await endpoint(slow, ['campaign.moderation_decided'])
  slowEp.receiver.answer = () => {} // never answers: the attempt times out after 10 s
  const fast = await h.advertiser()
  const fastEp = await endpoint(fast, ['campaign.moderation_decided'])
  const decide = async (adv: Advertiser) => {
    const created = await adv.post('/v1/campaigns', campaignBody({ target_countries: [privateCountry()] }))
    assert.equal((await h.admin.post(`/admin/v1/campaigns/${created.body.campaign_id}/moderation`, { status: 'approved' })).status, 200)
  }
  await decide(slow)
  await slowEp.receiver.waitFor(1)
  const started = performance.now()
  await decide(fast)
  await fastEp.receiver.waitFor(1, undefined, 5_000)
  assert.ok(performance.now() - started < 5_000)
  // The held attempt ends at the 10 s timeout (polled slowly: reads count against the rate limit).
  await new Promise((r) => setTimeout(r, 9_500))
  const timedOut = await until(() => slow.get(`/v1/webhook-endpoints/${slowEp.id}`), (r) => r.body.attempts?.length === 1, 10_000)
  assert.equal(timedOut.body.attempts[0].error, 'timeout')
  assert.ok(timedOut.body.attempts[0].duration_ms >= 9_000)
})
