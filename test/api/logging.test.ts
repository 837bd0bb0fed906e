import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { after, before, test } from 'node:test'
import { ADMIN_TOKEN, startService, type TestService } from '../helpers/service.ts'
import { PortalClient } from '../helpers/portal.ts'

let svc: TestService
let logs = ''

before(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs += chunk.toString()
      done()
    },
  })
  svc = await startService({ LOG_LEVEL: 'debug' }, { logStream: sink })
})
after(() => svc.close())

async function call(method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  const res = await fetch(svc.baseUrl + path, {
    method,
    headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  })
  return { status: res.status, body: await res.json().catch(() => null), requestId: res.headers.get('x-request-id') }
}

test('no API key, operator token or preview token ever reaches the logs; requests carry an id', async () => {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
  const created = await call('POST', '/admin/v1/accounts', admin, { email: 'log@example.dev' })
  const { user_id, api_key } = created.body
  const auth = { 'x-service-user-id': user_id, 'x-service-api-key': api_key }
  const account = await call('GET', '/v1/account', auth)
  assert.equal(account.status, 200)
  await call('GET', '/v1/account', { ...auth, 'x-service-api-key': `${api_key}x` })
  const rotated = await call('POST', `/admin/v1/accounts/${user_id}/rotate-key`, admin)
  const preview = await call('POST', '/v1/preview', { ...auth, 'x-service-api-key': rotated.body.api_key }, {
    ad_line: 'Logs stay clean',
    destination_url: 'https://acme.dev/',
  })
  assert.equal(preview.status, 201)
  await fetch(preview.body.preview_url.replace(/^https?:\/\/[^/]+/, svc.baseUrl))

  for (const secret of [api_key, rotated.body.api_key, ADMIN_TOKEN, preview.body.preview_token]) {
    assert.ok(!logs.includes(secret), `a secret reached the logs: ${secret.slice(0, 10)}…`)
  }
  assert.ok(account.requestId, 'x-request-id header')
  assert.ok(logs.includes(account.requestId!), 'the request id is in the log lines')
})

interface LogLine {
  level: number
  msg: string
  reqId?: string
  [field: string]: unknown
}

const lines = (): LogLine[] =>
  logs
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as LogLine)
const completions = (reqId: string) => lines().filter((l) => l.reqId === reqId && l.msg === 'request completed')

test('one completion line per request: method, route pattern, status, duration, account id; never the query string', async () => {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
  const { user_id, api_key } = (await call('POST', '/admin/v1/accounts', admin, { email: 'line@example.dev' })).body
  const auth = { 'x-service-user-id': user_id, 'x-service-api-key': api_key }
  const res = await call('GET', '/v1/campaigns/cmp_nosuch?secret_param=query-value-123', { ...auth, 'x-request-id': 'log-trace-1' })
  assert.equal(res.status, 400, 'an unknown query parameter')
  assert.equal(res.requestId, 'log-trace-1', 'the safe incoming id is echoed')

  const mine = lines().filter((l) => l.reqId === 'log-trace-1')
  assert.ok(mine.length >= 1)
  assert.ok(!mine.some((l) => l.msg === 'incoming request'), "Fastify's own request lines are replaced")
  const done = completions('log-trace-1')
  assert.equal(done.length, 1, 'exactly one completion line')
  const line = done[0]!
  assert.equal(line.level, 30, 'info')
  assert.equal(line.method, 'GET')
  assert.equal(line.route, '/v1/campaigns/:campaign_id')
  assert.equal(line.status, 400)
  assert.equal(typeof line.duration_ms, 'number')
  assert.ok((line.duration_ms as number) >= 0)
  assert.equal(line.account_id, user_id)
  assert.ok(!logs.includes('query-value-123'), 'no query string in the logs')
  assert.ok(!logs.includes(api_key), 'no API key')

  const anonymous = await call('GET', '/v1/account', { 'x-request-id': 'log-trace-anon' })
  assert.equal(anonymous.status, 401)
  const anon = completions('log-trace-anon')
  assert.equal(anon.length, 1)
  assert.equal(anon[0]!.account_id, undefined, 'no account before authentication')
  assert.equal(anon[0]!.status, 401)

  const unmatched = await call('GET', '/no/such/path?token=unmatched-secret', { 'x-request-id': 'log-trace-404' })
  assert.equal(unmatched.status, 404)
  assert.equal(completions('log-trace-404')[0]?.route, 'unmatched', 'an unknown path is never logged as a route')
  assert.ok(!logs.includes('unmatched-secret'))
})

test('an unsafe incoming x-request-id is replaced, and the replacement is what the lines carry', async () => {
  const res = await call('GET', '/healthz', { 'x-request-id': 'bad id with spaces' })
  assert.match(res.requestId ?? '', /^[0-9a-f-]{36}$/)
  assert.equal(completions(res.requestId!).length, 1)
  assert.ok(!logs.includes('bad id with spaces'))
})

test('serving requests complete at debug; a client error there at warn', async () => {
  const decision = await call('POST', '/serve/v1/decisions', { 'x-request-id': 'log-serve-1' }, { surface: 'extension', viewer_id: 'log-viewer' })
  assert.ok(decision.status === 200 || decision.status === 204)
  const done = completions('log-serve-1')
  assert.equal(done.length, 1)
  assert.equal(done[0]!.level, 20, 'debug')
  assert.equal(done[0]!.route, '/serve/v1/decisions')
  assert.ok(!('account_id' in done[0]!))

  const unknown = await call('POST', '/serve/v1/impressions/nonsense/view', { 'x-request-id': 'log-serve-2' }, { dwell_ms: 10_000 })
  assert.equal(unknown.status, 404)
  assert.equal(completions('log-serve-2')[0]?.level, 40, 'warn')
  assert.equal(completions('log-serve-2')[0]?.route, '/serve/v1/impressions/:impression_id/view')
})

test('a portal session logs its account id; no cookie or password reaches the logs', async () => {
  const portal = new PortalClient(svc.baseUrl)
  const password = 'portal password never logged 42'
  const userId = await portal.signUp('portal-log@example.dev', password)
  const page = await fetch(`${svc.baseUrl}/portal`, {
    headers: { cookie: [...portal.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'x-request-id': 'log-portal-1', 'x-forwarded-for': portal.ip },
    redirect: 'manual',
  })
  assert.equal(page.status, 200)
  const done = completions('log-portal-1')
  assert.equal(done.length, 1)
  assert.equal(done[0]!.account_id, userId)
  assert.ok(!logs.includes(password), 'the password is not logged')
  for (const value of portal.cookies.values()) assert.ok(!logs.includes(value), 'no cookie value is logged')
})
