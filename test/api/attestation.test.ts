import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { TokenChallenge } from '@cloudflare/privacypass-ts'
import * as shared from '../helpers/attestation.ts'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { advance, decide, privateCountry, type Decision } from '../helpers/serving.ts'

// Attested views (issue 48; operations.md section 2, "Attested views"; docs/attestation.md): the issuer
// directory, token issuance to a development attester's subjects within their daily allowance, and
// redemption on view reports: an attested view bills once per token, exempt from the address bounds
// under `prefer`; `required` bills attested views only; a spent, altered or foreign token is invalid_token.

const h = useService({ ATTESTER: 'dev' }, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null })

async function campaign(adv: Advertiser, country: string): Promise<string> {
  const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 2000, cpm_usd: 5 }))
  assert.equal(res.status, 201, res.text)
  return res.body.campaign_id
}

async function jwtFor(subject: string): Promise<string> {
  const res = await h.anonymous.post('/dev/attest', { subject })
  assert.equal(res.status, 200, res.text)
  return res.body.jwt
}

const challengeOf = (country: string) => shared.challengeOf(h.baseUrl, country)
const requestToken = (jwt: string, challenge: TokenChallenge, tokenKey: Uint8Array) => shared.requestToken(h.baseUrl, jwt, { challenge, tokenKey })
const token = (jwt: string, challenge: TokenChallenge, tokenKey: Uint8Array) => shared.tokenHeader(h.baseUrl, jwt, { challenge, tokenKey })
const viewWith = (d: Decision, authorization: string | null, address = '203.0.113.9') => shared.viewWith(h.baseUrl, d.impression_id, authorization, address)

async function totals(adv: Advertiser, campaignId: string) {
  const res = await adv.get(`/v1/stats?campaign_id=${campaignId}&start=2026-11-02T00:00:00Z&end=2026-11-09T00:00:00Z`)
  assert.equal(res.status, 200, res.text)
  return res.body.totals
}

test('the issuer directory lists the issuing key; a dev JWT gets tokens; an attested view bills once per token', async () => {
  const dir = await fetch(`${h.baseUrl}/.well-known/private-token-issuer-directory`)
  assert.equal(dir.status, 200)
  assert.equal(dir.headers.get('content-type'), 'application/private-token-issuer-directory')
  const body = await dir.json()
  assert.match(body['issuer-request-uri'], /^http:\/\/127\.0\.0\.1:\d+\/serve\/v1\/token-requests$/)
  assert.equal(body['token-keys'][0]['token-type'], 2)
  assert.equal(typeof body['token-keys'][0]['not-before'], 'number')

  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await campaign(adv, country)
  const { challenge, tokenKey } = await challengeOf(country)
  assert.equal(Buffer.from(tokenKey).toString('base64url'), String(body['token-keys'][0]['token-key']).replace(/=+$/, ''))
  const jwt = await jwtFor('user-1')
  const spend = await token(jwt, challenge, tokenKey)

  const first = (await decide(h.anonymous, { country }))!
  const second = (await decide(h.anonymous, { country }))!
  const third = (await decide(h.anonymous, { country }))!
  const fourth = (await decide(h.anonymous, { country }))!
  await advance(h, 10)
  assert.equal(await viewWith(first, spend), 204)
  // The same token again: answered 204 like any view, not billable.
  assert.equal(await viewWith(second, spend), 204)
  // One flipped bit in the token's signature, and a header that is no token: invalid_token.
  const flipped = spend.replace(/token="([^"]+)"/, (_m, t: string) => {
    const bytes = Buffer.from(t, 'base64url')
    bytes[300]! ^= 1
    return `token="${bytes.toString('base64url')}"`
  })
  assert.equal(await viewWith(third, flipped), 204)
  assert.equal(await viewWith(fourth, 'PrivateToken token="AAAA"'), 204)
  const t = await totals(adv, id)
  assert.equal(t.billable_impressions, 1)
  assert.equal(t.attested_billable_impressions, 1)
  assert.equal(t.non_billable.invalid_token, 3)
  // An unattested view still bills under `prefer`.
  const plain = (await decide(h.anonymous, { country }))!
  await advance(h, 10)
  assert.equal(await viewWith(plain, null, '203.0.113.10'), 204)
  const after = await totals(adv, id)
  assert.equal(after.billable_impressions, 2)
  assert.equal(after.attested_billable_impressions, 1)
})

test('token requests: no or bad JWT 401, bad body 400 or 415, past the daily allowance 429 with Retry-After', async () => {
  const country = privateCountry()
  await campaign(await h.advertiser(), country)
  const { challenge, tokenKey } = await challengeOf(country)
  assert.equal((await requestToken('not.a.jwt', challenge, tokenKey)).res.status, 401)
  const jwt = await jwtFor('user-limit')
  // alg none: refused whatever it claims.
  const [, payload] = jwt.split('.')
  const none = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${payload}.`
  const refused = (await requestToken(none, challenge, tokenKey)).res
  assert.equal(refused.status, 401)
  assert.match((await refused.json()).detail, /JWT/)
  const noAuth = await fetch(`${h.baseUrl}/serve/v1/token-requests`, { method: 'POST', headers: { 'content-type': 'application/private-token-request' }, body: new Uint8Array(259) })
  assert.equal(noAuth.status, 401)
  const short = await fetch(`${h.baseUrl}/serve/v1/token-requests`, { method: 'POST', headers: { 'content-type': 'application/private-token-request', authorization: `Bearer ${jwt}` }, body: new Uint8Array(10) })
  assert.equal(short.status, 400)
  const json = await fetch(`${h.baseUrl}/serve/v1/token-requests`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${jwt}` }, body: '{}' })
  assert.equal(json.status, 415)

  await h.config({ attest_tokens_per_subject_per_day: 2 })
  try {
    await token(jwt, challenge, tokenKey)
    await token(jwt, challenge, tokenKey)
    const over = (await requestToken(jwt, challenge, tokenKey)).res
    assert.equal(over.status, 429)
    assert.ok(Number(over.headers.get('retry-after')) > 0)
    // Another subject has its own allowance.
    await token(await jwtFor('user-other'), challenge, tokenKey)
    // An expired JWT (the dev attester's live an hour) is 401.
    await advance(h, 3700)
    assert.equal((await requestToken(jwt, challenge, tokenKey)).res.status, 401)
  } finally {
    await h.config({ attest_tokens_per_subject_per_day: 1500 })
  }
})

test('required: 500 invented viewers from 20 /64s without tokens bill nothing (unattested); one subject bills at most its allowance, whatever its addresses', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await campaign(adv, country)
  const { challenge, tokenKey } = await challengeOf(country)
  await h.config({ attestation: 'required', attest_tokens_per_subject_per_day: 3 })
  try {
    const bots = []
    for (let batch = 0; batch < 5; batch++) {
      bots.push(...(await Promise.all(Array.from({ length: 100 }, (_, i) => decide(h.anonymous, { country, viewer_id: `bot-${batch}-${i}` }, `2001:db8:${(batch * 100 + i) % 20}::${i + 1}`)))))
    }
    await advance(h, 10)
    await Promise.all(bots.map((d, i) => viewWith(d!, null, `2001:db8:${i % 20}::99`).then((s) => assert.equal(s, 204))))
    const t = await totals(adv, id)
    assert.equal(t.billable_impressions, 0)
    assert.equal(t.non_billable.unattested, 500)
    // One account: three tokens, the fourth refused; spent from three networks, exactly three bill.
    const jwt = await jwtFor('one-account')
    const tokens = [await token(jwt, challenge, tokenKey), await token(jwt, challenge, tokenKey), await token(jwt, challenge, tokenKey)]
    assert.equal((await requestToken(jwt, challenge, tokenKey)).res.status, 429)
    const decisions = await Promise.all(['198.51.100.1', '2001:db8:aaaa::1', '192.0.2.1'].map((a, i) => decide(h.anonymous, { country, viewer_id: `acct-${i}` }, a)))
    await advance(h, 10)
    for (let i = 0; i < 3; i++) assert.equal(await viewWith(decisions[i]!, tokens[i]!, ['198.51.100.1', '2001:db8:aaaa::1', '192.0.2.1'][i]), 204)
    const after = await totals(adv, id)
    assert.equal(after.billable_impressions, 3)
    assert.equal(after.attested_billable_impressions, 3)
  } finally {
    await h.config({ attestation: 'prefer', attest_tokens_per_subject_per_day: 1500 })
  }
})

test('prefer: attested viewers behind one address all bill past the source bounds; unattested ones stay bounded', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await campaign(adv, country)
  const { challenge, tokenKey } = await challengeOf(country)
  // The source bound lowered to 3 viewers a day: 8 attested viewers behind one address all bill; 8 unattested stop at 3.
  await h.config({ ivt_max_viewers_per_source_per_day: 3 })
  try {
    const jwt = await jwtFor('office')
    const office = '192.0.2.80'
    const attested = await Promise.all(Array.from({ length: 8 }, (_, i) => decide(h.anonymous, { country, viewer_id: `office-${i}` }, office)))
    const plain = await Promise.all(Array.from({ length: 8 }, (_, i) => decide(h.anonymous, { country, viewer_id: `plain-${i}` }, office)))
    const tokens = []
    for (let i = 0; i < 8; i++) tokens.push(await token(jwt, challenge, tokenKey))
    await advance(h, 10)
    for (let i = 0; i < 8; i++) assert.equal(await viewWith(attested[i]!, tokens[i]!, office), 204)
    for (const d of plain) assert.equal(await viewWith(d!, null, office), 204)
    const t = await totals(adv, id)
    assert.equal(t.attested_billable_impressions, 8)
    assert.equal(t.billable_impressions, 8 + 3)
    assert.equal(t.non_billable.invalid_traffic, 5)
  } finally {
    await h.config({ ivt_max_viewers_per_source_per_day: 50 })
  }
})

test('prefer: attested viewers spread over one /48 all bill past the /48 bounds; unattested ones stay bounded and alone count', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await campaign(adv, country)
  const { challenge, tokenKey } = await challengeOf(country)
  // The /48 bound lowered to 3 viewers a day: 8 attested viewers in 8 /64s of one /48 all bill; 8 unattested stop at 3.
  await h.config({ ivt_max_viewers_per_ipv6_48_per_day: 3 })
  try {
    const jwt = await jwtFor('site-48')
    const at = (i: number) => `2001:db8:a48:${i}::1`
    const attested = await Promise.all(Array.from({ length: 8 }, (_, i) => decide(h.anonymous, { country, viewer_id: `site-${i}` }, at(i))))
    const plain = await Promise.all(Array.from({ length: 8 }, (_, i) => decide(h.anonymous, { country, viewer_id: `site-plain-${i}` }, at(i))))
    const tokens = []
    for (let i = 0; i < 8; i++) tokens.push(await token(jwt, challenge, tokenKey))
    await advance(h, 10)
    for (let i = 0; i < 8; i++) assert.equal(await viewWith(attested[i]!, tokens[i]!, at(i)), 204)
    for (let i = 0; i < 8; i++) assert.equal(await viewWith(plain[i]!, null, at(i)), 204)
    const t = await totals(adv, id)
    assert.equal(t.attested_billable_impressions, 8)
    assert.equal(t.billable_impressions, 8 + 3)
    assert.equal(t.non_billable.invalid_traffic, 5)
    const counts = await h.svc.service.store.db.selectFrom('source_counts').select(['viewers', 'hour_billable']).where('source', '=', '2001:db8:a48::/48').executeTakeFirstOrThrow()
    assert.deepEqual(counts, { viewers: 3, hour_billable: 3 })
  } finally {
    await h.config({ ivt_max_viewers_per_ipv6_48_per_day: 100 })
  }
})
