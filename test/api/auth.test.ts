import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, Client, useService, type Advertiser, type Reply } from '../helpers/api.ts'
import { ADMIN_TOKEN } from '../helpers/service.ts'

const h = useService()

/** The one 401 body every credential problem gets, byte for byte (advertiser spec section 5, rule 2). */
const INVALID_CREDENTIALS_BODY = '{"detail":"invalid credentials"}'
const LOCKOUT_THRESHOLD = 10
const LOCKOUT_SECONDS = 15 * 60
const LIVE_KEY = /^sk_live_[0-9A-Za-z]{40,}$/

const credentials = (userId: string, apiKey: string) => ({ 'x-service-user-id': userId, 'x-service-api-key': apiKey })

/** A client that sends `auth` from the same source address as `from`. */
const sameAddress = (from: Client, auth: Record<string, string> = {}) => new Client(h, { ...auth, 'x-forwarded-for': from.ip })

function assertInvalidCredentials(res: Reply, what: string): void {
  assert.equal(res.status, 401, `${what}: ${res.text}`)
  assert.equal(res.text, INVALID_CREDENTIALS_BODY, what)
}

async function rotate(adv: Advertiser): Promise<string> {
  const res = await h.admin.post(`/admin/v1/accounts/${adv.userId}/rotate-key`)
  assert.equal(res.status, 200, res.text)
  return res.body.api_key
}

/** Sends `count` failed authentication attempts from `attacker`'s address, each a 401. */
async function failLogins(attacker: Client, count: number): Promise<void> {
  for (let i = 0; i < count; i++) assertInvalidCredentials(await attacker.get('/v1/account'), `failed attempt ${i + 1}`)
}

/** Every authenticated /v1 operation, with ids that only need to fit the path templates. */
const AUTHENTICATED_ENDPOINTS: [method: string, path: string][] = [
  ['GET', '/v1/account'],
  ['GET', '/v1/campaigns'],
  ['POST', '/v1/campaigns'],
  ['GET', '/v1/campaigns/cmp_unknown'],
  ['PATCH', '/v1/campaigns/cmp_unknown'],
  ['DELETE', '/v1/campaigns/cmp_unknown'],
  ['POST', '/v1/campaigns/cmp_unknown/pause'],
  ['POST', '/v1/campaigns/cmp_unknown/resume'],
  ['POST', '/v1/campaigns/cmp_unknown/preview'],
  ['GET', '/v1/creatives'],
  ['GET', '/v1/creatives/crv_unknown'],
  ['POST', '/v1/preview'],
  ['DELETE', '/v1/previews/unknown-token'],
]

const bodyFor = (method: string, path: string): unknown =>
  method === 'PATCH' ? { name: 'renamed' } : path === '/v1/preview' ? { ad_line: 'Try Acme CI', destination_url: 'https://acme.dev' } : undefined

// ---------------------------------------------------------------------------
// Uniform 401

test('every credential problem is the identical 401 {"detail":"invalid credentials"}', async () => {
  const adv = await h.advertiser()
  const other = await h.advertiser()
  const oldKey = adv.apiKey
  const newKey = await rotate(adv)

  const cases: [string, Record<string, string>][] = [
    ['no credentials at all', {}],
    ['missing user header', { 'x-service-api-key': newKey }],
    ['missing key header', { 'x-service-user-id': adv.userId }],
    ['wrong key', credentials(adv.userId, `sk_live_${'x'.repeat(43)}`)],
    ['key without the live prefix', credentials(adv.userId, newKey.slice('sk_live_'.length))],
    ['unknown user id', credentials('usr_doesnotexist0000000000', newKey)],
    ["another account's key", credentials(adv.userId, other.apiKey)],
    ['revoked (rotated) key', credentials(adv.userId, oldKey)],
    ['empty header values', credentials('', '')],
    ['oversized key', credentials(adv.userId, newKey + 'x'.repeat(200))],
  ]
  for (const [what, auth] of cases) {
    assertInvalidCredentials(await new Client(h, auth).get('/v1/account'), what)
  }
  // The same credentials with the right pairing do work.
  assert.equal((await new Client(h, credentials(adv.userId, newKey)).get('/v1/account')).status, 200)
  assert.equal((await other.get('/v1/account')).status, 200)
})

test('the 401 is the same on every authenticated endpoint', async () => {
  for (const [method, path] of AUTHENTICATED_ENDPOINTS) {
    const anonymous = new Client(h)
    assertInvalidCredentials(await anonymous.call(method, path, { body: bodyFor(method, path) }), `${method} ${path}`)
  }
})

// ---------------------------------------------------------------------------
// Keys and rotation

test('live keys carry the sk_live_ prefix, at least 40 random characters, and are never shared', async () => {
  const advertisers = await Promise.all([1, 2, 3, 4, 5].map(() => h.advertiser({ approved: false, terms: false, billing: 'none' })))
  const keys = advertisers.map((a) => a.apiKey)
  for (const key of keys) assert.match(key, LIVE_KEY)
  assert.equal(new Set(keys).size, keys.length, 'two accounts share a key')
  assert.equal(new Set(keys.map((k) => k.slice(8, 20))).size, keys.length, 'keys share a leading run of characters')
  assert.equal(new Set(advertisers.map((a) => a.userId)).size, advertisers.length)
})

test('rotation returns a new key that works at once; the old key is 401 immediately', async () => {
  const adv = await h.advertiser()
  const before = await adv.get('/v1/account')
  assert.equal(before.status, 200)

  const newKey = await rotate(adv)
  assert.match(newKey, LIVE_KEY)
  assert.notEqual(newKey, adv.apiKey)

  assertInvalidCredentials(await adv.get('/v1/account'), 'old key after rotation')
  const rotated = new Client(h, credentials(adv.userId, newKey))
  const after = await rotated.get('/v1/account')
  assert.equal(after.status, 200, after.text)
  assert.equal(after.body.user_id, adv.userId)
  assert.notEqual(after.body.key_prefix, before.body.key_prefix)
  assert.ok(newKey.startsWith(after.body.key_prefix), 'key_prefix is the leading part of the new key')
  assert.match(after.body.key_prefix, /^sk_live_/)
})

test('rotating twice revokes both earlier keys', async () => {
  const adv = await h.advertiser()
  const second = await rotate(adv)
  const third = await rotate(adv)
  assert.notEqual(second, third)
  assertInvalidCredentials(await new Client(h, credentials(adv.userId, adv.apiKey)).get('/v1/account'), 'first key')
  assertInvalidCredentials(await new Client(h, credentials(adv.userId, second)).get('/v1/account'), 'second key')
  assert.equal((await new Client(h, credentials(adv.userId, third)).get('/v1/account')).status, 200)
})

test('rotating the key of an unknown account is 404', async () => {
  const res = await h.admin.post('/admin/v1/accounts/usr_doesnotexist0000000000/rotate-key')
  assert.equal(res.status, 404, res.text)
  assert.equal(typeof res.body.detail, 'string')
})

// ---------------------------------------------------------------------------
// Lockout (operations.md section 6, "Rate limits")

test(`${LOCKOUT_THRESHOLD - 1} failures do not lock; the ${LOCKOUT_THRESHOLD}th does, even against valid credentials`, async () => {
  const adv = await h.advertiser()
  const attacker = new Client(h, credentials(adv.userId, 'sk_live_wrong'))
  const victimFromAttackerAddress = sameAddress(attacker, adv.auth)

  await failLogins(attacker, LOCKOUT_THRESHOLD - 1)
  assert.equal((await victimFromAttackerAddress.get('/v1/account')).status, 200, 'not yet locked')

  await failLogins(attacker, 1)
  const locked = await victimFromAttackerAddress.get('/v1/account')
  assert.equal(locked.status, 429, locked.text)
  assert.equal(locked.headers.get('retry-after'), String(LOCKOUT_SECONDS))
  assert.equal(typeof locked.body.detail, 'string')

  // Wrong credentials from the locked address are also 429 (not 401).
  assert.equal((await attacker.get('/v1/account')).status, 429)
})

test('a locked address gets 429 with Retry-After from every authenticated /v1 endpoint', async () => {
  const adv = await h.advertiser()
  const attacker = new Client(h)
  await failLogins(attacker, LOCKOUT_THRESHOLD)

  const victim = sameAddress(attacker, adv.auth)
  for (const [method, path] of AUTHENTICATED_ENDPOINTS) {
    const res = await victim.call(method, path, { body: bodyFor(method, path) })
    assert.equal(res.status, 429, `${method} ${path}: ${res.text}`)
    assert.match(res.headers.get('retry-after') ?? '', /^[1-9]\d*$/, `${method} ${path}: Retry-After`)
  }
})

test('the lockout is per address: the same credentials from another address still work', async () => {
  const adv = await h.advertiser()
  const attacker = new Client(h)
  await failLogins(attacker, LOCKOUT_THRESHOLD)
  assert.equal((await sameAddress(attacker, adv.auth).get('/v1/account')).status, 429)

  assert.equal((await adv.get('/v1/account')).status, 200)
  const created = await new Client(h, adv.auth).post('/v1/campaigns', campaignBody())
  assert.equal(created.status, 201, created.text)
})

test('a lockout never locks GET /v1/status, /v1/openapi.json, /healthz or the operator API', async () => {
  const attacker = new Client(h)
  await failLogins(attacker, LOCKOUT_THRESHOLD)
  assert.equal((await attacker.get('/v1/account')).status, 429, 'the address is locked')

  assert.equal((await attacker.get('/v1/status')).status, 200)
  assert.equal((await attacker.get('/healthz')).status, 200)
  assert.equal((await attacker.get('/v1/openapi.json')).status, 200)
  const operator = sameAddress(attacker, { authorization: `Bearer ${ADMIN_TOKEN}` })
  assert.equal((await operator.get('/admin/v1/config')).status, 200)
  const created = await operator.post('/admin/v1/accounts', { email: 'locked-address@example.dev' })
  assert.equal(created.status, 201, created.text)
})

test('the lockout lasts 15 minutes of service time, then the address works again', async () => {
  const adv = await h.advertiser()
  const attacker = new Client(h)
  await failLogins(attacker, LOCKOUT_THRESHOLD)
  const victim = sameAddress(attacker, adv.auth)
  assert.equal((await victim.get('/v1/account')).headers.get('retry-after'), String(LOCKOUT_SECONDS))

  await advanceClock(LOCKOUT_SECONDS - 1)
  const almost = await victim.get('/v1/account')
  assert.equal(almost.status, 429, 'still locked one second before the end')
  assert.equal(almost.headers.get('retry-after'), '1')

  await advanceClock(1)
  assert.equal((await victim.get('/v1/account')).status, 200, 'unlocked after 15 minutes')
  // The failure count starts over: one more failure is a plain 401, not a new lockout.
  assertInvalidCredentials(await attacker.get('/v1/account'), 'first failure after the lockout')
  assert.equal((await victim.get('/v1/account')).status, 200)
})

test(
  'ten failures within 15 minutes lock the address even when they straddle a window boundary',
  async () => {
    // Move to one minute before the next 15-minute boundary of service time.
    const nowMs = h.svc.clock.nowMs()
    const toBoundary = 15 * 60_000 - (nowMs % (15 * 60_000))
    await advanceClock(toBoundary / 1000 - 60)
    const attacker = new Client(h)
    await failLogins(attacker, LOCKOUT_THRESHOLD - 1)
    await advanceClock(120) // two minutes later: 10 failures within 15 minutes
    await failLogins(attacker, 1)
    assert.equal((await attacker.get('/v1/account')).status, 429)
  },
)

async function advanceClock(seconds: number): Promise<void> {
  const res = await h.admin.post('/admin/v1/clock', { advance_seconds: seconds })
  assert.equal(res.status, 200, res.text)
}

// ---------------------------------------------------------------------------
// Operator API authentication (operations.md section 3)

test('the operator API answers 401 with detail to a missing or wrong bearer token', async () => {
  const cases: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['wrong token', { authorization: 'Bearer not-the-admin-token' }],
    ['token with a suffix', { authorization: `Bearer ${ADMIN_TOKEN}x` }],
    ['token prefix only', { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}` }],
    ['not a bearer scheme', { authorization: `Basic ${ADMIN_TOKEN}` }],
    ['bare token', { authorization: ADMIN_TOKEN }],
    ['empty bearer', { authorization: 'Bearer ' }],
    ['advertiser credentials', (await h.advertiser()).auth],
  ]
  for (const [what, headers] of cases) {
    const client = new Client(h, headers)
    for (const [method, path, body] of [
      ['GET', '/admin/v1/config', undefined],
      ['POST', '/admin/v1/accounts', { email: 'intruder@example.dev' }],
      ['POST', '/admin/v1/clock', { advance_seconds: 3600 }],
    ] as const) {
      const res = await client.call(method, path, { body })
      assert.equal(res.status, 401, `${what}, ${method} ${path}: ${res.text}`)
      assert.equal(typeof res.body.detail, 'string', what)
    }
  }
  assert.equal((await h.admin.get('/admin/v1/config')).status, 200)
})
