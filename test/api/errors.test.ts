import assert from 'node:assert/strict'
import { connect } from 'node:net'
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
// Malformed bodies: 400 naming the body, never 500

test('malformed JSON on POST /v1/campaigns is 400 invalid_json naming the body', async () => {
  const adv = await h.advertiser()
  await withManyCreates(async () => {
    for (const raw of ['{"ad_line": ', 'not json', '{ad_line: "x"}', "{'a': 1}", '{"a":1}}', '\u0000']) {
      assertFieldError(await postRaw(adv, raw), 'body', 'invalid_json', JSON.stringify(raw))
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

test('an unknown route is 404 {field: path, reason: not_found}', async () => {
  const adv = await h.advertiser()
  for (const [method, path, headers] of [
    ['GET', '/nope', {}],
    ['GET', '/v1/nope', {}],
    ['GET', '/v1/nope', adv.auth],
    ['GET', '/v2/account', adv.auth],
    ['GET', '/v1/campaigns/x/y/z', adv.auth],
  ] as const) {
    const res = await fetchRaw(method, path, headers)
    assert.equal(res.status, 404, `${method} ${path}: ${res.text}`)
    assert.deepEqual(res.body.detail, { field: 'path', reason: 'not_found' }, `${method} ${path}`)
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

test('a safe client-sent x-request-id is honoured and echoed; an unsafe one is replaced by a fresh UUID', async () => {
  const adv = await h.advertiser()
  for (const id of ['trace-1234', 'lb:7f3a.2_x-9', 'a'.repeat(128)]) {
    const res = await adv.get('/v1/account', { headers: { 'x-request-id': id } })
    assert.equal(res.headers.get('x-request-id'), id, `${id} is echoed`)
  }
  const error = await h.anonymous.get('/v1/account', { headers: { 'x-request-id': 'client-401' } })
  assert.equal(error.status, 401)
  assert.equal(error.headers.get('x-request-id'), 'client-401', 'an error answer echoes it too')
  for (const id of ['has space', 'quote"d', 'a'.repeat(129), 'new\\nline', 'semi;colon', 'ünïcode']) {
    const res = await adv.get('/v1/account', { headers: { 'x-request-id': id } })
    assert.match(res.headers.get('x-request-id') ?? '', REQUEST_ID, `${JSON.stringify(id)} is replaced`)
  }
})

// ---------------------------------------------------------------------------
// Issue 19: every error in the envelope, never a 500. One test per known cause.

/** Sends bytes as they are (fetch would re-encode a string as UTF-8). */
async function sendBytes(adv: Advertiser, method: string, path: string, body: Buffer): Promise<Reply> {
  const res = await fetch(h.baseUrl + path, { method, headers: { ...adv.auth, 'content-type': 'application/json' }, body: new Uint8Array(body) })
  const text = await res.text()
  return { status: res.status, headers: res.headers, text, body: JSON.parse(text) }
}

/** Writes a raw request on a socket and returns the raw answer (for what Node's parser refuses). */
function rawExchange(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(h.baseUrl).port), '127.0.0.1', () => socket.write(request))
    let answer = ''
    socket.on('data', (chunk) => (answer += chunk))
    socket.on('close', () => resolve(answer))
    socket.on('error', reject)
  })
}

test('NUL in a path id is 400 naming the parameter, on /v1 and the operator API', async () => {
  const adv = await h.advertiser()
  assertFieldError(await adv.get('/v1/campaigns/cmp_%00'), 'campaign_id', 'control_characters')
  assertFieldError(await adv.get('/v1/exports/%00'), 'export_id', 'control_characters')
  assertFieldError(await adv.post('/v1/campaigns/%00/pause'), 'campaign_id', 'control_characters')
  assertFieldError(await h.admin.get('/admin/v1/accounts/%00/invoices'), 'user_id', 'control_characters')
})

test('NUL in a query value is 400 naming the parameter', async () => {
  const adv = await h.advertiser()
  assertFieldError(await adv.get('/v1/stats?campaign_id=cmp_%00'), 'campaign_id', 'control_characters')
  assertFieldError(await adv.get('/v1/stats?country=U%00'), 'country', 'control_characters')
})

test('NUL, other controls and lone surrogates in JSON strings are 400 naming the field; nothing is stored', async () => {
  const adv = await h.advertiser()
  await withManyCreates(async () => {
    assertFieldError(await adv.post('/v1/campaigns', campaignBody({ name: 'Q4\u0000launch' })), 'name', 'control_characters')
    assertFieldError(await adv.post('/v1/campaigns', campaignBody({ brand: 'Acme\u0085' })), 'brand', 'control_characters')
    // JSON.stringify writes a lone surrogate as the escape `\ud800`, which JSON.parse turns back into one.
    assertFieldError(await adv.post('/v1/campaigns', campaignBody({ name: 'Acme \ud800' })), 'name', 'invalid_unicode')
  })
  const window = { start: '2026-10-01T00:00:00Z', end: '2026-10-02T00:00:00Z' }
  assertFieldError(await adv.post('/v1/exports', { ...window, campaign_ids: ['cmp_a', 'cmp_\udfff'] }), 'campaign_ids.1', 'invalid_unicode')
  await assertNoCampaigns(adv)
})

test('a body that is not UTF-8 is 400 invalid_utf8, not read as U+FFFD', async () => {
  const adv = await h.advertiser()
  // CESU-8 bytes of a lone surrogate inside a JSON string.
  const body = Buffer.concat([Buffer.from('{"ad_line":"Ship '), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')])
  assertFieldError(await sendBytes(adv, 'POST', '/v1/preview', body), 'body', 'invalid_utf8')
})

test('a leap second or year 0000 in a stats or export window is 400 naming the bound', async () => {
  const adv = await h.advertiser()
  assertFieldError(await adv.get('/v1/stats?start=2026-06-30T23:59:60Z&end=2026-07-01T00:00:00Z'), 'start', 'invalid_format')
  assertFieldError(await adv.get('/v1/stats?start=2026-06-30T00:00:00Z&end=2026-06-30T23:59:60Z'), 'end', 'invalid_format')
  assertFieldError(await adv.get('/v1/stats?start=0000-01-01T00:00:00Z&end=0000-01-02T00:00:00Z'), 'start', 'invalid_format')
  assertFieldError(await adv.get('/v1/stats?start=2026-02-30T00:00:00Z'), 'start', 'invalid_format')
  assertFieldError(await adv.post('/v1/exports', { start: '2026-06-30T23:59:60Z', end: '2026-07-01T00:00:00Z' }), 'start', 'invalid_format')
  assertFieldError(await adv.post('/v1/exports', { start: '2026-10-01T00:00:00Z', end: '0000-01-01T00:00:00Z' }), 'end', 'invalid_format')
})

test('a credit memo with NUL or a lone surrogate is 400 naming memo and posts nothing', async () => {
  const adv = await h.advertiser()
  const memos = [['goodwill\u0000', 'control_characters'], ['goodwill \udc00', 'invalid_unicode'], ['\u200b ', 'blank']] as const
  for (const [memo, reason] of memos) {
    const res = await h.admin.post(`/admin/v1/accounts/${adv.userId}/credits`, { amount_cents: 500, memo })
    assertFieldError(res, 'memo', reason)
  }
  assert.equal((await adv.get('/v1/account')).body.balance.credits_cents, 0)
})

test('an operator config of 1e309 (Infinity) or beyond its range is 400 naming the key and changes nothing', async () => {
  const before = (await h.admin.get('/admin/v1/config')).body
  for (const key of ['min_cpm_usd', 'max_total_usd', 'outstanding_balance_cap_usd', 'read_rate_limit_per_min', 'stats_max_live_events']) {
    const res = await h.admin.call('PATCH', '/admin/v1/config', { raw: `{"${key}": 1e309}` })
    assert.equal(res.status, 400, `${key}: ${res.text}`)
    assert.equal(res.body.detail.field, key)
  }
  assertFieldError(await h.admin.patch('/admin/v1/config', { max_total_usd: 1e16 }), 'max_total_usd', 'above_maximum')
  assert.deepEqual((await h.admin.get('/admin/v1/config')).body, before)
  const adv = await h.advertiser()
  assert.equal((await adv.get('/v1/account')).status, 200, 'reads still work')
})

test('a zero-width-only or whitespace-only ad line is 400 blank, on create and on preview', async () => {
  const adv = await h.advertiser()
  for (const adLine of ['\u200b\u200b\u200b\u200b', '\u2060\ufeff\u200d', '\u3000\u00a0 ']) {
    assertFieldError(await adv.post('/v1/campaigns', campaignBody({ ad_line: adLine })), 'ad_line', 'blank', JSON.stringify(adLine))
    assertFieldError(await adv.post('/v1/preview', { ad_line: adLine, destination_url: 'https://acme.dev/' }), 'ad_line', 'blank')
  }
  // Zero-width characters do not count towards the minimum length.
  assertFieldError(await adv.post('/v1/preview', { ad_line: 'ab\u200b\u200b', destination_url: 'https://acme.dev/' }), 'ad_line', 'too_short')
  await assertNoCampaigns(adv)
})

test('Fastify and Node refusals carry detail with a reason: 413, 415, 431, bad percent-encoding', async () => {
  const adv = await h.advertiser()
  const big = await adv.post('/v1/preview', { ad_line: 'Ship faster', destination_url: 'https://acme.dev/', brand: 'x'.repeat(70_000) })
  assert.equal(big.status, 413, big.text)
  assert.deepEqual(big.body.detail, { field: 'body', reason: 'payload_too_large', limit_bytes: 65536 })
  const form = await adv.call('POST', '/v1/preview', { raw: 'ad_line=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  assert.equal(form.status, 415, form.text)
  assert.equal(form.body.detail.reason, 'unsupported_media_type')
  for (const path of ['/v1/campaigns/%E0%A4%A', '/v1/campaigns/%ED%A0%80', '/v1/campaigns/%zz']) {
    const res = await fetchRaw('GET', path, adv.auth)
    assert.equal(res.status, 400, `${path}: ${res.text}`)
    assert.deepEqual(res.body.detail, { field: 'path', reason: 'malformed_url' }, path)
  }
  assertFieldError(await adv.get('/v1/stats?campaign_id=%E0%A4%A'), 'query', 'malformed_url')
  const answer = await rawExchange(`GET /v1/status HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
  assert.match(answer, /^HTTP\/1\.1 431 /)
  assert.deepEqual(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), { detail: { field: 'headers', reason: 'header_too_large' } })
  const garbage = await rawExchange('NOT HTTP\r\n\r\n')
  assert.match(garbage, /^HTTP\/1\.1 400 /)
  assert.match(garbage, /"reason":"malformed_request"/)
})

test('a known path with a wrong method is 405 with Allow listing its methods', async () => {
  const adv = await h.advertiser()
  for (const [method, path, allowed] of [
    ['PUT', '/v1/campaigns', ['GET', 'HEAD', 'POST']],
    ['DELETE', '/v1/account', ['GET', 'HEAD']],
    ['GET', `/v1/campaigns/${UNKNOWN_CAMPAIGN_ID}/pause`, ['POST']],
    ['POST', '/admin/v1/config', ['GET', 'HEAD', 'PATCH']],
  ] as const) {
    const res = await fetchRaw(method, path, adv.auth)
    assert.equal(res.status, 405, `${method} ${path}: ${res.text}`)
    assert.equal(res.headers.get('allow'), allowed.join(', '))
    assert.deepEqual(res.body.detail, { field: 'method', reason: 'method_not_allowed', allowed })
  }
})

test('a trailing slash or an empty path segment is 404 not_found, not a 400 about an empty id', async () => {
  const adv = await h.advertiser()
  for (const path of ['/v1/campaigns/', '/v1/account/', '/v1/campaigns//pause', '/v1/campaigns/?x=1']) {
    const res = await fetchRaw('GET', path, adv.auth)
    assert.equal(res.status, 404, `${path}: ${res.text}`)
    assert.deepEqual(res.body.detail, { field: 'path', reason: 'not_found' })
  }
})

test('an unknown query parameter is 400 unknown_parameter on every operation, /campaigns as /stats', async () => {
  const adv = await h.advertiser()
  for (const path of ['/v1/campaigns?colour=red', '/v1/stats?colour=red', '/v1/account?colour=red', '/v1/status?colour=red']) {
    assertFieldError(await adv.get(path), 'colour', 'unknown_parameter', path)
  }
  assertFieldError(await h.admin.get('/admin/v1/config?colour=red'), 'colour', 'unknown_parameter')
})
