import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { after, before, test } from 'node:test'
import { ADMIN_TOKEN, startService, type TestService } from '../helpers/service.ts'

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
