import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, Client, useService } from '../helpers/api.ts'
import { ADMIN_TOKEN, startService, type TestService } from '../helpers/service.ts'
import { loadSettings } from '../../src/platform/env.ts'

const h = useService()

const COMPONENTS = ['api', 'authentication', 'campaign_creation', 'exports', 'invoicing', 'reporting', 'site_proxy']
const STATES = ['operational', 'degraded', 'disabled', 'unknown']
const STATUS_LIMIT_PER_MIN = 120

async function setComponent(component: string, state: string): Promise<void> {
  const res = await h.admin.put(`/admin/v1/components/${component}`, { state })
  assert.equal(res.status, 200, res.text)
  assert.deepEqual(res.body, { component, state })
}

/** Runs `fn` with `component` in `state`, then puts it back to operational. */
async function withComponent(component: string, state: string, fn: () => Promise<void>): Promise<void> {
  await setComponent(component, state)
  try {
    await fn()
  } finally {
    await setComponent(component, 'operational')
  }
}

async function components(): Promise<Record<string, string>> {
  const res = await h.anonymous.get('/v1/status')
  assert.equal(res.status, 200, res.text)
  return res.body.components
}

const clockPost = (body: unknown) => h.admin.post('/admin/v1/clock', body)

// ---------------------------------------------------------------------------
// GET /v1/status

test('GET /v1/status needs no credentials and lists exactly the seven components and the write requirements', async () => {
  const res = await h.anonymous.get('/v1/status')
  assert.equal(res.status, 200, res.text)
  assert.deepEqual(Object.keys(res.body).sort(), ['components', 'write_requirements'])
  assert.deepEqual(Object.keys(res.body.components).sort(), COMPONENTS)
  for (const [name, state] of Object.entries(res.body.components)) assert.ok(STATES.includes(state as string), `${name}: ${state}`)
  assert.deepEqual(res.body.write_requirements, ['write_approval', 'api_terms', 'billing_enrollment'])
})

test('GET /v1/status ignores credentials, even wrong ones', async () => {
  const wrong = new Client(h, { 'x-service-user-id': 'usr_nobody', 'x-service-api-key': 'sk_live_wrong' })
  const res = await wrong.get('/v1/status')
  assert.equal(res.status, 200, res.text)
  const adv = await h.advertiser()
  assert.deepEqual((await adv.get('/v1/status')).body, res.body)
})

test(`GET /v1/status is limited to ${STATUS_LIMIT_PER_MIN} requests per minute per address`, async () => {
  const client = new Client(h)
  for (let i = 0; i < STATUS_LIMIT_PER_MIN; i++) assert.equal((await client.get('/v1/status')).status, 200, `request ${i + 1}`)
  const limited = await client.get('/v1/status')
  assert.equal(limited.status, 429, limited.text)
  assert.match(limited.headers.get('retry-after') ?? '', /^[1-9]\d*$/)
  assert.equal((await new Client(h).get('/v1/status')).status, 200, 'another address is unaffected')
})

test('every component state set by the operator shows in /v1/status, one at a time', async () => {
  for (const component of COMPONENTS) {
    await withComponent(component, 'degraded', async () => {
      const now = await components()
      for (const c of COMPONENTS) assert.equal(now[c], c === component ? 'degraded' : 'operational', `${component} degraded: ${c}`)
    })
  }
  for (const c of COMPONENTS) assert.equal((await components())[c], 'operational', `${c} restored`)
})

test('reporting degraded shows in /v1/status and in GET /v1/account access.reporting', async () => {
  const adv = await h.advertiser()
  assert.equal((await adv.get('/v1/account')).body.access.reporting, 'operational')
  await withComponent('reporting', 'degraded', async () => {
    assert.equal((await components()).reporting, 'degraded')
    assert.equal((await adv.get('/v1/account')).body.access.reporting, 'degraded')
  })
  assert.equal((await components()).reporting, 'operational')
  assert.equal((await adv.get('/v1/account')).body.access.reporting, 'operational')
})

test(
  'reporting disabled does not read as operational in GET /v1/account access.reporting',
  async () => {
    const adv = await h.advertiser()
    await withComponent('reporting', 'disabled', async () => {
      assert.equal((await components()).reporting, 'disabled')
      assert.notEqual((await adv.get('/v1/account')).body.access.reporting, 'operational')
    })
  },
)

test('campaign_creation disabled: POST /v1/campaigns is 503 "not accepting orders"; reads still work', async () => {
  const adv = await h.advertiser()
  await withComponent('campaign_creation', 'disabled', async () => {
    assert.equal((await components()).campaign_creation, 'disabled')
    const res = await adv.post('/v1/campaigns', campaignBody())
    assert.equal(res.status, 503, res.text)
    assert.equal(typeof res.body.detail, 'string')
    assert.match(res.body.detail, /not accepting orders/)
    const list = await adv.get('/v1/campaigns')
    assert.equal(list.status, 200)
    assert.deepEqual(list.body.campaigns, [], 'the refused order created nothing')
  })
  const res = await adv.post('/v1/campaigns', campaignBody())
  assert.equal(res.status, 201, `creation works again once restored: ${res.text}`)
})

test('campaign_creation degraded still accepts orders', async () => {
  const adv = await h.advertiser()
  await withComponent('campaign_creation', 'degraded', async () => {
    const res = await adv.post('/v1/campaigns', campaignBody())
    assert.equal(res.status, 201, res.text)
  })
})

test('PUT /admin/v1/components refuses unknown components and states with 400', async () => {
  const cases: [string, unknown, string][] = [
    ['/admin/v1/components/nope', { state: 'degraded' }, 'component'],
    ['/admin/v1/components/Reporting', { state: 'degraded' }, 'component'],
    ['/admin/v1/components/reporting', { state: 'broken' }, 'state'],
    ['/admin/v1/components/reporting', { state: 'unknown' }, 'state'],
    ['/admin/v1/components/reporting', { state: 'degraded', extra: 1 }, 'extra'],
    ['/admin/v1/components/reporting', {}, 'state'],
  ]
  for (const [path, body, field] of cases) {
    const res = await h.admin.put(path, body)
    assert.equal(res.status, 400, `${path} ${JSON.stringify(body)}: ${res.text}`)
    assert.equal(res.body.detail.field, field, `${path} ${JSON.stringify(body)}`)
  }
  assert.equal((await components()).reporting, 'operational', 'a refused PUT changed nothing')
})

// ---------------------------------------------------------------------------
// The operator clock

test('POST /admin/v1/clock {advance_seconds} moves service time and returns the new now', async () => {
  const before = h.svc.clock.nowMs()
  const res = await clockPost({ advance_seconds: 3600 })
  assert.equal(res.status, 200, res.text)
  assert.deepEqual(Object.keys(res.body), ['now'])
  assert.equal(res.body.now, new Date(before + 3_600_000).toISOString())

  // Service timestamps follow: a first key use is stamped with the new time.
  const adv = await h.advertiser()
  assert.equal((await adv.get('/v1/account')).body.key_last_used_at, res.body.now)
})

test('POST /admin/v1/clock {now} moves forward only', async () => {
  const current = h.svc.clock.now()
  const earlier = new Date(current.getTime() - 1000).toISOString()
  const backwards = await clockPost({ now: earlier })
  assert.equal(backwards.status, 400, backwards.text)
  assert.equal(backwards.body.detail.field, 'now')
  assert.equal(h.svc.clock.nowMs(), current.getTime(), 'a refused move changed the clock')

  const same = await clockPost({ now: current.toISOString() })
  assert.equal(same.status, 200, 'moving to the current instant is allowed')
  assert.equal(same.body.now, current.toISOString())

  const later = new Date(current.getTime() + 86_400_000).toISOString()
  const forward = await clockPost({ now: later })
  assert.equal(forward.status, 200, forward.text)
  assert.equal(forward.body.now, later)
})

test('POST /admin/v1/clock refuses malformed bodies with 400', async () => {
  const before = h.svc.clock.nowMs()
  for (const body of [{}, { advance_seconds: -1 }, { advance_seconds: '60' }, { now: 'tomorrow' }, { advance_seconds: 1, now: new Date(before).toISOString() }]) {
    const res = await clockPost(body)
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`)
  }
  assert.equal(h.svc.clock.nowMs(), before)
})

test(
  'POST /admin/v1/clock refuses an instant beyond the representable range with 400, not 500',
  async () => {
  const before = h.svc.clock.nowMs()
  for (const body of [{ advance_seconds: 1e13 }, { advance_seconds: 1e308 }]) {
    const res = await clockPost(body)
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`)
  }
  assert.equal(h.svc.clock.nowMs(), before)
  assert.equal((await clockPost({ advance_seconds: 60 })).status, 200, 'the clock still moves afterwards')
  },
)

test('POST /admin/v1/clock is 409 when the service runs on the system clock', async () => {
  const svc = await startService({ CLOCK: 'system' })
  try {
    const res = await fetch(`${svc.baseUrl}/admin/v1/clock`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ advance_seconds: 60 }),
    })
    assert.equal(res.status, 409)
    assert.equal(typeof ((await res.json()) as { detail: unknown }).detail, 'string')
  } finally {
    await svc.close()
  }
})

// ---------------------------------------------------------------------------
// The OpenAPI document and health endpoints

test('GET /v1/openapi.json is served without auth: OpenAPI 3.1, version 1.7.0, the /v1 paths only', async () => {
  const res = await h.anonymous.get('/v1/openapi.json')
  assert.equal(res.status, 200, res.text)
  const doc = res.body
  assert.ok(doc.openapi.startsWith('3.1'), doc.openapi)
  assert.equal(doc.info.version, '1.7.0')
  const paths = Object.keys(doc.paths)
  for (const p of [
    '/account',
    '/status',
    '/campaigns',
    '/campaigns/{campaign_id}',
    '/campaigns/{campaign_id}/pause',
    '/campaigns/{campaign_id}/resume',
    '/creatives',
    '/creatives/{creative_id}',
    '/preview',
    '/campaigns/{campaign_id}/preview',
    '/previews/{preview_token}',
  ]) {
    assert.ok(paths.includes(p), `missing path ${p}`)
  }
  for (const p of paths) {
    assert.doesNotMatch(p, /admin|serve|healthz|readyz|openapi/, `undocumented-surface path ${p} is published`)
    assert.ok(!p.startsWith('/v1/'), `${p}: paths are relative to the /v1 server URL`)
  }
  assert.ok(doc.servers.some((s: { url: string }) => s.url.endsWith('/v1')), 'the server URL carries the /v1 segment')
})

test('the OpenAPI document marks /status public and everything else as needing both credential headers', async () => {
  const doc = (await h.anonymous.get('/v1/openapi.json')).body
  const headers = Object.values(doc.components.securitySchemes).map((s: any) => `${s.in}:${s.name.toLowerCase()}`)
  assert.deepEqual(headers.sort(), ['header:x-service-api-key', 'header:x-service-user-id'])
  assert.deepEqual(doc.paths['/status'].get.security, [])
  assert.equal(doc.security.length, 1)
  assert.equal(Object.keys(doc.security[0]).length, 2, 'both headers are required together')
})

test('/healthz and /readyz answer 200', async () => {
  for (const path of ['/healthz', '/readyz']) {
    const res = await h.anonymous.get(path)
    assert.equal(res.status, 200, `${path}: ${res.text}`)
  }
})

// ---------------------------------------------------------------------------
// ADMIN_TOKEN unset

test('an empty or blank ADMIN_TOKEN counts as unset', () => {
  assert.equal(loadSettings({ ADMIN_TOKEN: '' }).adminToken, null)
  assert.equal(loadSettings({ ADMIN_TOKEN: '   ' }).adminToken, null)
  assert.equal(loadSettings({}).adminToken, null)
  assert.equal(loadSettings({ ADMIN_TOKEN }).adminToken, ADMIN_TOKEN)
})

test('with ADMIN_TOKEN unset every /admin path answers 404, with or without a bearer token', async () => {
  let svc: TestService | undefined
  try {
    svc = await startService({ ADMIN_TOKEN: '' })
    const paths: [string, string, unknown?][] = [
      ['POST', '/admin/v1/accounts', { email: 'a@example.dev' }],
      ['GET', '/admin/v1/config'],
      ['PATCH', '/admin/v1/config', { read_rate_limit_per_min: 1 }],
      ['PUT', '/admin/v1/components/reporting', { state: 'disabled' }],
      ['POST', '/admin/v1/clock', { advance_seconds: 60 }],
      ['POST', '/admin/v1/accounts/usr_x/rotate-key'],
      ['POST', '/admin/v1/jobs/expiry/run'],
      ['GET', '/admin/v1'],
      ['GET', '/admin/'],
      ['GET', '/admin'],
    ]
    for (const [method, path, body] of paths) {
      for (const authorization of [undefined, `Bearer ${ADMIN_TOKEN}`, 'Bearer ']) {
        const res = await fetchJson(svc, method, path, body, authorization ? { authorization } : {})
        assert.equal(res.status, 404, `${method} ${path} (${authorization ?? 'no token'}): ${res.text}`)
        assert.deepEqual(JSON.parse(res.text).detail, { field: 'path', reason: 'not_found' })
      }
    }
    // The rest of the service runs normally.
    const status = await fetch(`${svc.baseUrl}/v1/status`)
    assert.equal(status.status, 200)
    assert.equal(((await status.json()) as { components: Record<string, string> }).components.reporting, 'operational')
  } finally {
    await svc?.close()
  }
})

test(
  'with ADMIN_TOKEN unset, /admin paths answer 404 even to an empty or malformed JSON body',
  async () => {
    const svc = await startService({ ADMIN_TOKEN: '' })
    try {
      for (const raw of ['', '{']) {
        const res = await fetchJson(svc, 'POST', '/admin/v1/accounts/usr_x/rotate-key', raw, { authorization: `Bearer ${ADMIN_TOKEN}` })
        assert.equal(res.status, 404, `${JSON.stringify(raw)}: ${res.text}`)
      }
    } finally {
      await svc.close()
    }
  },
)

/** Plain fetch against a second service; a string body is sent verbatim with a JSON content type. */
async function fetchJson(svc: TestService, method: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const init: RequestInit = { method, headers: { ...headers } }
  if (body !== undefined) {
    init.headers = { ...headers, 'content-type': 'application/json' }
    init.body = typeof body === 'string' ? body : JSON.stringify(body)
  }
  const res = await fetch(svc.baseUrl + path, init)
  return { status: res.status, text: await res.text() }
}
