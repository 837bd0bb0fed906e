/**
 * The operator API's own OpenAPI document (/admin/v1/openapi.json): served
 * behind the token, it lists every operator route, and real answers of every
 * operation match it (the harness checks each /admin/v1 call through a Client
 * against it; this file makes sure every operation is called).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, Client, useService, type Advertiser, type Reply } from '../helpers/api.ts'
import { deliver, privateCountry } from '../helpers/serving.ts'
import { ADMIN_TOKEN, startService } from '../helpers/service.ts'

const h = useService({}, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })

const DOC = '/admin/v1/openapi.json'
const PREFIX = '/admin/v1'

interface Operation {
  method: string
  template: string
  op: any
}

function operations(doc: any): Operation[] {
  return Object.entries<any>(doc.paths).flatMap(([template, item]) =>
    Object.entries<any>(item).map(([method, op]) => ({ method: method.toUpperCase(), template, op })),
  )
}

/** The operator routes as registered (method and OpenAPI path template), this document excepted. */
function catalogue(): string[] {
  return h.svc.service.app.routeCatalogue
    .filter((r) => r.url.startsWith(`${PREFIX}/`) && r.url !== DOC && r.method !== 'HEAD')
    .map((r) => `${r.method} ${r.url.slice(PREFIX.length).replace(/:(\w+)/g, '{$1}')}`)
    .sort()
}

const templateOf = (doc: any, path: string) =>
  Object.keys(doc.paths).find((t) => new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path.split('?')[0]!))

test('GET /admin/v1/openapi.json answers 200 with the token and 401 without or with a wrong one', async () => {
  const res = await h.admin.get(DOC)
  assert.equal(res.status, 200, res.text)
  assert.match(res.headers.get('content-type') ?? '', /application\/json/)
  for (const client of [h.anonymous, new Client(h, { authorization: 'Bearer not-the-token' }), new Client(h, { authorization: ADMIN_TOKEN })]) {
    const refused = await client.get(DOC)
    assert.equal(refused.status, 401, refused.text)
    assert.equal(typeof refused.body.detail, 'string')
  }
})

test('the operator document is OpenAPI 3.1 with a Bearer scheme, relative to the /admin/v1 server URL', async () => {
  const doc = (await h.admin.get(DOC)).body
  assert.ok(doc.openapi.startsWith('3.1'), doc.openapi)
  assert.match(doc.info.version, /^\d+\.\d+\.\d+$/)
  assert.ok(doc.servers.some((s: { url: string }) => s.url.endsWith('/admin/v1')), 'the server URL carries /admin/v1')
  const schemes = Object.values<any>(doc.components.securitySchemes)
  assert.deepEqual(schemes.map((s) => `${s.type}:${s.scheme}`), ['http:bearer'])
  assert.equal(doc.security.length, 1)
  for (const path of Object.keys(doc.paths)) {
    assert.ok(!path.startsWith('/admin') && !path.startsWith('/v1/'), `${path}: paths are relative to the server URL`)
    assert.doesNotMatch(path, /openapi/, 'the documents do not describe themselves')
  }
})

test('the operator document lists every operator route, and the advertiser document none of them', async () => {
  const doc = (await h.admin.get(DOC)).body
  const documented = operations(doc).map((o) => `${o.method} ${o.template}`).sort()
  assert.deepEqual(documented, catalogue())
  assert.ok(documented.length >= 19, `only ${documented.length} operations`)
  // The advertiser document keeps to /v1: none of the operator operations appears in it. Both are
  // relative to their own server URL, so a template may be shared (GET /invoices is both the
  // advertiser's own invoices and the operator's list): the operation itself must differ.
  const advertiser = (await h.anonymous.get('/v1/openapi.json')).body
  const advertiserOps = new Map(operations(advertiser).map((o) => [`${o.method} ${o.template}`, o.op]))
  const operatorOps = new Map(operations(doc).map((o) => [`${o.method} ${o.template}`, o.op]))
  for (const op of documented) {
    const same = advertiserOps.get(op)
    assert.ok(same === undefined || same.summary !== operatorOps.get(op).summary, `${op} is in the advertiser document`)
  }
  assert.ok(!JSON.stringify(advertiser.components.securitySchemes).includes('bearer'), 'the advertiser document has no operator Bearer scheme')
})

test('every operator operation declares its request and a schema for each answer, 401 included', async () => {
  const doc = (await h.admin.get(DOC)).body
  const routes = new Map(h.svc.service.app.routeCatalogue.map((r) => [`${r.method} ${r.url}`, r]))
  for (const { method, template, op } of operations(doc)) {
    const name = `${method} ${template}`
    const route = routes.get(`${method} ${PREFIX}${template.replace(/\{(\w+)\}/g, ':$1')}`)!
    assert.ok(op.summary, `${name}: summary`)
    assert.ok(op.tags?.length, `${name}: tags`)
    const pathParams = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()
    assert.deepEqual((op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name).sort(), pathParams, `${name}: path parameters`)
    assert.equal(op.requestBody !== undefined, route.schema.body !== undefined, `${name}: request body`)
    const statuses = Object.keys(op.responses)
    assert.ok(statuses.some((s) => /^2/.test(s)), `${name}: a success answer`)
    for (const s of ['400', '401', '500', '503']) assert.ok(statuses.includes(s), `${name}: ${s}`)
    for (const [status, response] of Object.entries<any>(op.responses)) {
      assert.ok(response.content?.['application/json']?.schema, `${name} ${status}: a body schema`)
    }
  }
})

test('every operator operation answers as its document says, success and errors alike', async () => {
  const doc = (await h.admin.get(DOC)).body
  const answered = new Set<string>()
  // h.admin checks each answer against the operator document; this records which operations answered 2xx.
  // Every operator action writes one audit entry (services/operator-actions.ts): each successful call that is not a
  // read is checked to have added exactly one, of its own.
  const newestEntry = async (): Promise<number> => (await h.admin.get('/admin/v1/audit?limit=1')).body.entries[0]?.entry_id ?? 0
  const call = async (method: string, path: string, body?: unknown): Promise<Reply> => {
    const lastEntry = method === 'GET' ? 0 : await newestEntry()
    const res = await h.admin.call(method, path, { body })
    if (res.status < 300) answered.add(`${method} ${templateOf(doc, path.slice(PREFIX.length))}`)
    if (method !== 'GET') {
      const newest = await newestEntry()
      assert.equal(newest - lastEntry, res.status < 300 ? 1 : 0, `${method} ${path}: ${res.status < 300 ? 'one audit entry' : 'no audit entry for a refusal'}`)
    }
    return res
  }
  const expect = async (status: number, method: string, path: string, body?: unknown) => {
    const res = await call(method, path, body)
    assert.equal(res.status, status, `${method} ${path}: ${res.text}`)
    return res.body
  }

  // Accounts
  const created = await expect(201, 'POST', '/admin/v1/accounts', { email: 'doc@example.dev', billing_email: 'ap@example.dev' })
  const user = `/admin/v1/accounts/${created.user_id}`
  assert.deepEqual(await expect(200, 'POST', `${user}/write-approval`, { approved: true }), { user_id: created.user_id, write_approved: true })
  assert.deepEqual(await expect(200, 'POST', `${user}/terms`, { accepted: true }), { user_id: created.user_id, terms_accepted: true })
  assert.deepEqual(await expect(200, 'POST', `${user}/writes`, { enabled: true }), { user_id: created.user_id, writes_enabled: true })
  assert.deepEqual(Object.keys(await expect(200, 'POST', `${user}/rotate-key`)), ['api_key'])
  await expect(404, 'POST', '/admin/v1/accounts/usr_unknown/rotate-key')
  await expect(400, 'POST', '/admin/v1/accounts', { email: 'not an email' })
  assert.deepEqual((await expect(200, 'GET', '/admin/v1/accounts?query=doc%40example')).accounts.map((a: any) => a.user_id), [created.user_id])
  assert.equal((await expect(200, 'GET', user)).access.write_approved, true)
  await expect(404, 'GET', '/admin/v1/accounts/usr_unknown')
  await expect(400, 'GET', '/admin/v1/accounts?cursor=nope')

  // Billing states and credits
  assert.equal((await expect(200, 'POST', `${user}/billing/net30-request`)).collection_status, 'setup_pending')
  await expect(409, 'POST', `${user}/billing/authenticate`)
  const net30 = await expect(200, 'POST', `${user}/billing`, { mode: 'net30_invoice', credit_limit_cents: 100_000, billing_country: 'DE' })
  assert.equal(net30.effective_billing_mode, 'net30_invoice')
  await expect(409, 'POST', `${user}/billing/net30-request`)
  assert.equal((await expect(200, 'POST', `${user}/billing/hold`, { hold: 'paused' })).collection_status, 'paused')
  assert.equal((await expect(200, 'POST', `${user}/billing/hold`, { hold: null })).collection_status, 'ready')
  const authCard = { mode: 'weekly_autopay', card_number: '4000002500003155' }
  assert.equal((await expect(200, 'POST', `${user}/billing`, authCard)).collection_status, 'setup_pending')
  assert.equal((await expect(200, 'POST', `${user}/billing/authenticate`)).collection_status, 'ready')
  const credit = await expect(201, 'POST', `${user}/credits`, { amount_cents: 100, memo: 'goodwill' })
  assert.deepEqual(Object.keys(credit).sort(), ['amount_cents', 'credit_id', 'memo', 'posted_at', 'user_id'])
  await expect(404, 'GET', '/admin/v1/accounts/usr_unknown/invoices')

  // Invoices: a paid one (working card) and a failed one (declined card), invoiced at Monday 06:00.
  const payer = await h.advertiser({ billing: 'card' })
  const decliner = await h.advertiser({ billing: 'failing_card' })
  const campaigns: string[] = []
  for (const adv of [payer, decliner] as Advertiser[]) {
    const country = privateCountry()
    const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], cpm_usd: 10, impressions: 1000 }))
    assert.equal(res.status, 201, res.text)
    campaigns.push(res.body.campaign_id)
    assert.equal(await deliver(h, country, 2), 2)
  }
  assert.equal((await expect(200, 'POST', '/admin/v1/clock', { now: '2026-11-09T06:00:00Z' })).now, '2026-11-09T06:00:00.000Z')
  const [paid] = (await expect(200, 'GET', `/admin/v1/accounts/${payer.userId}/invoices`)).invoices
  const [failed] = (await expect(200, 'GET', `/admin/v1/accounts/${decliner.userId}/invoices`)).invoices
  assert.deepEqual([paid.status, failed.status], ['paid', 'payment_failed'])
  assert.equal((await expect(200, 'POST', `/admin/v1/invoices/${paid.invoice_id}/mark-paid`)).status, 'paid')
  assert.equal((await expect(200, 'POST', `/admin/v1/invoices/${failed.invoice_id}/void`, { memo: 'disputed' })).status, 'void')
  await expect(409, 'POST', `/admin/v1/invoices/${failed.invoice_id}/mark-paid`)
  await expect(409, 'POST', `/admin/v1/invoices/${paid.invoice_id}/void`, { memo: 'too late' })
  await expect(404, 'POST', '/admin/v1/invoices/inv_unknown/mark-paid')

  // Config, components, moderation, clock, jobs
  const config = await expect(200, 'GET', '/admin/v1/config')
  const patched = await expect(200, 'PATCH', '/admin/v1/config', { export_schema_version: config.export_schema_version })
  assert.deepEqual(patched, config, 'the whole config, every field kept')
  assert.deepEqual(await expect(200, 'PUT', '/admin/v1/components/reporting', { state: 'operational' }), { component: 'reporting', state: 'operational' })
  await expect(400, 'PUT', '/admin/v1/components/nope', { state: 'degraded' })
  const decision = await expect(200, 'POST', `/admin/v1/campaigns/${campaigns[0]}/moderation`, { status: 'approved' })
  assert.deepEqual(decision, { campaign_id: campaigns[0], moderation_status: 'approved', moderation_reason: null })
  assert.ok(Array.isArray((await expect(200, 'GET', '/admin/v1/moderation?status=pending')).creatives))
  await expect(400, 'POST', `/admin/v1/campaigns/${campaigns[0]}/moderation`, { status: 'approved', reason: 'no' })
  await expect(404, 'POST', '/admin/v1/campaigns/cmp_unknown/moderation', { status: 'rejected' })
  await expect(200, 'POST', '/admin/v1/clock', { advance_seconds: 60 })
  await expect(400, 'POST', '/admin/v1/clock', { now: '2026-01-01T00:00:00Z' })
  for (const job of ['rollups', 'invoicing', 'exports', 'expiry', 'traffic-review', 'ledger-partitions']) {
    const run = await expect(200, 'POST', `/admin/v1/jobs/${job}/run`)
    assert.equal(run.job, job)
    assert.equal(typeof run.result, 'object')
  }
  await expect(404, 'POST', '/admin/v1/jobs/nope/run')
  assert.equal((await expect(200, 'GET', '/admin/v1/jobs')).jobs.length, 6)
  assert.ok((await expect(200, 'GET', '/admin/v1/invoices?status=void')).invoices.some((i: any) => i.invoice_id === failed.invoice_id))

  // Access and the audit log
  assert.deepEqual(await expect(200, 'POST', '/admin/v1/unlock', { address: '192.0.2.1' }), { address: '192.0.2.1', lifted: [] })
  await expect(400, 'POST', '/admin/v1/unlock', { address: 'nowhere' })
  const audit = await expect(200, 'GET', '/admin/v1/audit?action=address.unlock')
  assert.equal(audit.entries[0].target.id, '192.0.2.1')

  // Invalid traffic: a day's ranking and the block list
  assert.equal((await expect(200, 'GET', '/admin/v1/traffic?day=2026-11-02')).day, '2026-11-02')
  await expect(400, 'GET', '/admin/v1/traffic?day=2026-02-30')
  const block = await expect(201, 'POST', '/admin/v1/traffic/blocks', { kind: 'cidr', value: '192.0.2.0/24', note: 'documented' })
  assert.equal((await expect(200, 'POST', '/admin/v1/traffic/blocks', { kind: 'cidr', value: '192.0.2.0/24' })).block_id, block.block_id)
  await expect(400, 'POST', '/admin/v1/traffic/blocks', { kind: 'cidr', value: '192.0.2.1/24' })
  assert.ok((await expect(200, 'GET', '/admin/v1/traffic/blocks')).blocks.some((b: any) => b.block_id === block.block_id))
  assert.equal((await expect(200, 'DELETE', `/admin/v1/traffic/blocks/${block.block_id}`)).value, '192.0.2.0/24')
  await expect(404, 'DELETE', `/admin/v1/traffic/blocks/${block.block_id}`)

  // Outbox
  assert.ok(Array.isArray((await expect(200, 'GET', '/admin/v1/outbox?to=ap%40example.dev')).messages))
  await expect(400, 'GET', '/admin/v1/outbox')

  assert.deepEqual([...answered].sort(), operations(doc).map((o) => `${o.method} ${o.template}`).sort(), 'every operation answered once')
})

test('every operator operation answers 401 without the token, as documented', async () => {
  const doc = (await h.admin.get(DOC)).body
  for (const { method, template } of operations(doc)) {
    const path = PREFIX + template.replace(/\{\w+\}/g, 'x')
    // A client of its own each time: ten failures from one address lock it out of the operator API (429).
    const res = await new Client(h).call(method, path, method === 'GET' ? {} : { body: {} })
    assert.equal(res.status, 401, `${method} ${path}: ${res.text}`)
  }
})

test('wrong operator tokens lock the address out of the operator API (429, token not compared); unlock lifts it', async () => {
  const attacker = new Client(h, { authorization: 'Bearer not-the-token' })
  for (let i = 0; i < 10; i++) assert.equal((await attacker.get('/admin/v1/config')).status, 401, `failure ${i + 1}`)
  const locked = await attacker.get('/admin/v1/config')
  assert.equal(locked.status, 429, locked.text)
  assert.equal(locked.headers.get('retry-after'), '900')
  assert.match(locked.body.detail, /operator-token/)
  const right = new Client(h, { authorization: `Bearer ${ADMIN_TOKEN}` })
  const fromAttacker = (path: string) => right.call('GET', path, { headers: { 'x-forwarded-for': attacker.ip } })
  assert.equal((await fromAttacker('/admin/v1/config')).status, 429, 'while locked even the right token is refused')
  assert.equal((await h.admin.get('/admin/v1/config')).status, 200, 'another address is not locked')
  const unlocked = await h.admin.post('/admin/v1/unlock', { address: attacker.ip })
  assert.deepEqual(unlocked.body, { address: attacker.ip, lifted: ['admin'] })
  assert.equal((await fromAttacker('/admin/v1/config')).status, 200)
})

test('with ADMIN_TOKEN unset the operator document is 404 like every /admin path', async () => {
  const svc = await startService({ ADMIN_TOKEN: '' })
  try {
    for (const headers of [{}, { authorization: `Bearer ${ADMIN_TOKEN}` }] as Record<string, string>[]) {
      const res = await fetch(svc.baseUrl + DOC, { headers })
      assert.equal(res.status, 404)
      assert.deepEqual(((await res.json()) as { detail: unknown }).detail, { field: 'path', reason: 'not_found' })
    }
    assert.equal((await fetch(`${svc.baseUrl}/v1/openapi.json`)).status, 200)
  } finally {
    await svc.close()
  }
})
