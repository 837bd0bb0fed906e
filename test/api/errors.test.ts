import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService, type Advertiser, type Reply } from '../helpers/api.ts'

const h = useService()

const UNKNOWN_CAMPAIGN_ID = `cmp_${'0'.repeat(22)}`
const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

async function createCampaign(adv: Advertiser, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await adv.post('/v1/campaigns', campaignBody(overrides))
  assert.equal(res.status, 201, res.text)
  return res.body.campaign_id
}

/** POSTs a raw (possibly malformed) body to /v1/campaigns. */
const postRaw = (adv: Advertiser, raw: string, contentType = 'application/json') =>
  adv.call('POST', '/v1/campaigns', { raw, headers: { 'content-type': contentType } })

/** Plain fetch for paths outside the OpenAPI document (the harness client validates every /v1 path). */
async function fetchRaw(method: string, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(h.baseUrl + path, { method, headers })
  const text = await res.text()
  return { status: res.status, headers: res.headers, text, body: text === '' ? text : JSON.parse(text) }
}

/** Many refused POSTs from one account would hit the create rate limit; lift it for the test (restored after). */
async function withManyCreates(fn: () => Promise<void>): Promise<void> {
  await h.config({ create_rate_limit_per_min: 100 })
  try {
    await fn()
  } finally {
    await h.config({ create_rate_limit_per_min: 5 })
  }
}

function assertFieldError(res: Reply, field: string, reason: string, what = `${field} ${reason}`): void {
  assert.equal(res.status, 400, `${what}: ${res.text}`)
  assert.equal(res.body.detail.field, field, what)
  assert.equal(res.body.detail.reason, reason, what)
}

async function assertNoCampaigns(adv: Advertiser): Promise<void> {
  const list = await adv.get('/v1/campaigns')
  assert.equal(list.status, 200)
  assert.deepEqual(list.body.campaigns, [], 'a refused request created a campaign')
}

// ---------------------------------------------------------------------------
// Malformed bodies: 400 with a string detail, never 500

test('malformed JSON on POST /v1/campaigns is 400 with a string detail', async () => {
  const adv = await h.advertiser()
  await withManyCreates(async () => {
    for (const raw of ['{"ad_line": ', 'not json', '{ad_line: "x"}', "{'a': 1}", '{"a":1}}', '\u0000']) {
      const res = await postRaw(adv, raw)
      assert.equal(res.status, 400, `${JSON.stringify(raw)}: ${res.text}`)
      assert.equal(typeof res.body.detail, 'string', JSON.stringify(raw))
    }
  })
  await assertNoCampaigns(adv)
})

test('an empty JSON body is 400 (a string detail, or one naming the body)', async () => {
  const adv = await h.advertiser()
  const res = await postRaw(adv, '')
  assert.equal(res.status, 400, res.text)
  if (typeof res.body.detail !== 'string') assert.equal(res.body.detail.field, 'body')
  await assertNoCampaigns(adv)
})

test('a JSON body that is not an object is 400 naming the body', async () => {
  const adv = await h.advertiser()
  await withManyCreates(async () => {
    for (const raw of ['[]', '[1, 2]', '"a string"', '42', 'null', 'true']) {
      assertFieldError(await postRaw(adv, raw), 'body', 'invalid_type', raw)
    }
  })
})

test('a prototype-poisoning body is refused with 400, not 500', async () => {
  const adv = await h.advertiser()
  const body = JSON.stringify(campaignBody()).replace(/^\{/, '{"__proto__":{"admin":true},')
  const res = await postRaw(adv, body)
  assert.equal(res.status, 400, res.text)
  await assertNoCampaigns(adv)
})

test(
  'a non-JSON content type is refused with a documented status',
  async () => {
    const adv = await h.advertiser()
    const res = await postRaw(adv, 'ad_line=x', 'application/x-www-form-urlencoded')
    assert.ok(res.status === 400 || res.status === 415, res.text)
  },
)

test(
  'an oversized body is refused with a documented status',
  async () => {
    const adv = await h.advertiser()
    const res = await adv.post('/v1/campaigns', campaignBody({ brand: 'x'.repeat(70_000) }))
    assert.ok(res.status === 400 || res.status === 413, res.text)
  },
)

// ---------------------------------------------------------------------------
// Wrong types: 400 {field, reason}, never coerced

const WRONG_TYPES: [field: string, value: unknown][] = [
  ['cpm_usd', '2.5'],
  ['cpm_usd', null],
  ['impressions', 1500.5],
  ['impressions', '3000'],
  ['ad_line', 42],
  ['destination_url', ['https://acme.dev']],
  ['start_paused', 'true'],
  ['pace_minutes', '60'],
  ['target_countries', 'US'],
]

for (const [field, value] of WRONG_TYPES) {
  test(`POST /v1/campaigns with ${field} = ${JSON.stringify(value)} is 400 invalid_type, not coerced`, async () => {
    const adv = await h.advertiser()
    assertFieldError(await adv.post('/v1/campaigns', campaignBody({ [field]: value })), field, 'invalid_type')
    await assertNoCampaigns(adv)
  })
}

test('a missing required field is 400 naming it', async () => {
  const adv = await h.advertiser()
  await withManyCreates(async () => {
    for (const field of ['ad_line', 'destination_url', 'cpm_usd', 'impressions', 'idempotency_key']) {
      const body: Record<string, unknown> = campaignBody()
      delete body[field]
      assertFieldError(await adv.post('/v1/campaigns', body), field, 'required')
    }
  })
  await assertNoCampaigns(adv)
})

test('an unknown body field is 400 reason unknown_field', async () => {
  const adv = await h.advertiser()
  assertFieldError(await adv.post('/v1/campaigns', campaignBody({ colour: 'red' })), 'colour', 'unknown_field')
  assertFieldError(await adv.post('/v1/campaigns', campaignBody({ CPM_USD: 3 })), 'CPM_USD', 'unknown_field')
  await assertNoCampaigns(adv)
})

// ---------------------------------------------------------------------------
// PATCH

test('PATCH naming a non-editable field is 400 not_editable and changes nothing', async () => {
  const adv = await h.advertiser()
  const id = await createCampaign(adv)
  const before = (await adv.get(`/v1/campaigns/${id}`)).body

  const edits: [string, Record<string, unknown>][] = [
    ['cpm_usd', { cpm_usd: 9 }],
    ['destination_url', { name: 'new name', destination_url: 'https://evil.example' }],
    ['impressions', { impressions: 5000 }],
    ['target_surface', { target_surface: 'terminal' }],
    ['status', { status: 'paused' }],
  ]
  for (const [field, edit] of edits) {
    assertFieldError(await adv.patch(`/v1/campaigns/${id}`, edit), field, 'not_editable')
  }
  assert.deepEqual((await adv.get(`/v1/campaigns/${id}`)).body, before, 'a refused PATCH changed the campaign')
})

test('PATCH {} is 400', async () => {
  const adv = await h.advertiser()
  const id = await createCampaign(adv)
  const res = await adv.patch(`/v1/campaigns/${id}`, {})
  assert.equal(res.status, 400, res.text)
  assert.equal(res.body.detail.reason, 'empty_body')
})

test('PATCH with a wrong type is 400 naming the field', async () => {
  const adv = await h.advertiser()
  const id = await createCampaign(adv)
  assertFieldError(await adv.patch(`/v1/campaigns/${id}`, { name: 7 }), 'name', 'invalid_type')
  assertFieldError(await adv.patch(`/v1/campaigns/${id}`, { ad_line: null }), 'ad_line', 'invalid_type')
})

// ---------------------------------------------------------------------------
// 404

test('an unknown route is 404 with a detail', async () => {
  const adv = await h.advertiser()
  for (const [method, path, headers] of [
    ['GET', '/nope', {}],
    ['GET', '/v1/nope', {}],
    ['GET', '/v1/nope', adv.auth],
    ['GET', '/v2/account', adv.auth],
    ['PUT', '/v1/campaigns', adv.auth],
    ['GET', '/v1/campaigns/x/y/z', adv.auth],
  ] as const) {
    const res = await fetchRaw(method, path, headers)
    assert.equal(res.status, 404, `${method} ${path}: ${res.text}`)
    assert.equal(typeof res.body.detail, 'string', `${method} ${path}`)
  }
})

test(
  'an unknown route is 404 even when the request carries an empty or malformed JSON body',
  async () => {
    for (const raw of ['', '{']) {
      const res = await fetch(`${h.baseUrl}/nope`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw })
      assert.equal(res.status, 404, `${JSON.stringify(raw)}: ${await res.text()}`)
    }
  },
)

test("unknown and another account's campaign ids are the same 404 on every campaign operation", async () => {
  const owner = await h.advertiser()
  const intruder = await h.advertiser()
  const foreignId = await createCampaign(owner, { name: 'owned' })
  const ownerView = (await owner.get(`/v1/campaigns/${foreignId}`)).body

  const operations: [string, string, unknown?][] = [
    ['GET', ''],
    ['PATCH', '', { name: 'hijacked' }],
    ['POST', '/pause'],
    ['POST', '/resume'],
    ['POST', '/preview'],
    ['DELETE', ''],
  ]
  for (const [method, suffix, body] of operations) {
    const unknown = await intruder.call(method, `/v1/campaigns/${UNKNOWN_CAMPAIGN_ID}${suffix}`, { body })
    const foreign = await intruder.call(method, `/v1/campaigns/${foreignId}${suffix}`, { body })
    assert.equal(unknown.status, 404, `${method} unknown${suffix}: ${unknown.text}`)
    assert.equal(foreign.status, 404, `${method} foreign${suffix}: ${foreign.text}`)
    assert.equal(foreign.text, unknown.text, `${method} ${suffix}: the foreign 404 differs from the unknown 404`)
  }

  assert.deepEqual((await owner.get(`/v1/campaigns/${foreignId}`)).body, ownerView, "another account's attempts changed the campaign")
  assert.deepEqual((await intruder.get('/v1/campaigns')).body.campaigns, [])
})

test("unknown and another account's creative ids are the same 404", async () => {
  const owner = await h.advertiser()
  const intruder = await h.advertiser()
  const campaignId = await createCampaign(owner)
  const creativeId = (await owner.get(`/v1/campaigns/${campaignId}`)).body.creatives[0].creative_id
  assert.equal((await owner.get(`/v1/creatives/${creativeId}`)).status, 200)

  const foreign = await intruder.get(`/v1/creatives/${creativeId}`)
  const unknown = await intruder.get(`/v1/creatives/crv_${'0'.repeat(22)}`)
  assert.equal(foreign.status, 404)
  assert.equal(foreign.text, unknown.text)
})

test(
  'operations without a body accept an empty body sent as application/json',
  async () => {
    const adv = await h.advertiser()
    const id = await createCampaign(adv)
    const empty = { raw: '', headers: { 'content-type': 'application/json' } }
    for (const [method, path] of [
      ['POST', `/v1/campaigns/${id}/pause`],
      ['POST', `/v1/campaigns/${id}/resume`],
      ['POST', `/v1/campaigns/${id}/preview`],
      ['DELETE', `/v1/campaigns/${id}`],
    ] as const) {
      const res = await adv.call(method, path, empty)
      assert.ok(res.status === 200 || res.status === 201, `${method} ${path}: ${res.text}`)
    }
  },
)

// ---------------------------------------------------------------------------
// x-request-id

test('every response carries a distinct x-request-id', async () => {
  const adv = await h.advertiser()
  const id = await createCampaign(adv)
  const replies: [string, Reply][] = [
    ['200 read', await adv.get('/v1/account')],
    ['201 create', await adv.post('/v1/campaigns', campaignBody())],
    ['200 write', await adv.post(`/v1/campaigns/${id}/pause`)],
    ['400 validation', await adv.post('/v1/campaigns', campaignBody({ cpm_usd: '1' }))],
    ['400 malformed JSON', await postRaw(adv, '{')],
    ['401', await h.anonymous.get('/v1/account')],
    ['404 campaign', await adv.get(`/v1/campaigns/${UNKNOWN_CAMPAIGN_ID}`)],
    ['404 route', await fetchRaw('GET', '/v1/nope')],
    ['status', await h.anonymous.get('/v1/status')],
    ['openapi', await h.anonymous.get('/v1/openapi.json')],
    ['healthz', await h.anonymous.get('/healthz')],
    ['readyz', await h.anonymous.get('/readyz')],
    ['admin 200', await h.admin.get('/admin/v1/config')],
    ['admin 401', await h.anonymous.get('/admin/v1/config')],
  ]
  const seen = new Set<string>()
  for (const [what, res] of replies) {
    const requestId = res.headers.get('x-request-id')
    assert.match(requestId ?? '', REQUEST_ID, `${what} (${res.status}) has no x-request-id`)
    assert.ok(!seen.has(requestId!), `${what}: x-request-id repeated`)
    seen.add(requestId!)
  }
})

test('a client-sent x-request-id is not echoed (the service generates its own)', async () => {
  const adv = await h.advertiser()
  const res = await adv.get('/v1/account', { headers: { 'x-request-id': 'attacker-chosen' } })
  assert.match(res.headers.get('x-request-id') ?? '', REQUEST_ID)
})
