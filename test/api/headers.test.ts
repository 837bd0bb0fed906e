import assert from 'node:assert/strict'
import { test } from 'node:test'
import { useService } from '../helpers/api.ts'

/** Headers every answer carries: nosniff everywhere, no-store on an account's (authenticated) answers. */
const h = useService()

test('every answer is nosniff; authenticated /v1 answers, errors included, are no-store', async () => {
  const adv = await h.advertiser()
  const account = await adv.get('/v1/account')
  assert.equal(account.headers.get('x-content-type-options'), 'nosniff')
  assert.equal(account.headers.get('cache-control'), 'no-store')
  const missing = await adv.get('/v1/campaigns/cmp_doesnotexist')
  assert.equal(missing.status, 404)
  assert.equal(missing.headers.get('cache-control'), 'no-store')
  for (const path of ['/healthz', '/v1/status', '/v1/openapi.json', '/nope', '/portal/login', '/serve/v1/decisions']) {
    const res = await fetch(h.baseUrl + path)
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path)
  }
  const unauthenticated = await fetch(`${h.baseUrl}/v1/account`)
  assert.equal(unauthenticated.status, 401)
  assert.equal(unauthenticated.headers.get('cache-control'), 'no-store')
})
