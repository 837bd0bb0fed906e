import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { AuthorizationHeader, publicVerif, type TokenChallenge } from '@cloudflare/privacypass-ts'
import * as shared from '../helpers/attestation.ts'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey as JoseKey } from 'jose'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { advance, decide, privateCountry, type Decision } from '../helpers/serving.ts'
import { startService, STORE, type TestService } from '../helpers/service.ts'
import { BlindSigner, generateIssuerKey } from '../../src/platform/privacy-pass.ts'

// Attested views with a real attester's JWKS (ATTESTER_JWKS_FILE): which JWTs get tokens; the issuer's
// keys rotating every PRIVACY_PASS_KEY_DAYS (1 here) and redeeming one period more; a foreign key's
// token; and the per-subject daily allowance across two instances (PostgreSQL).

const ISSUER = 'https://sign-in.example'
const AUDIENCE = 'https://ads.example'
const dir = mkdtempSync(join(tmpdir(), 'attester-'))
const jwksFile = join(dir, 'jwks.json')
let signingKey: JoseKey
let strangerKey: JoseKey

const env = { ATTESTER_JWKS_FILE: jwksFile, ATTESTER_ISSUER: ISSUER, ATTESTER_AUDIENCE: AUDIENCE, PRIVACY_PASS_KEY_DAYS: '1' }
before(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true })
  signingKey = pair.privateKey
  ;({ privateKey: strangerKey } = await generateKeyPair('ES256', { extractable: true }))
  const pub = await exportJWK(pair.publicKey)
  writeFileSync(jwksFile, JSON.stringify({ keys: [{ ...pub, kid: 'k1', alg: 'ES256', use: 'sig' }] }))
})
const h = useService(env, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null })

/** A JWT as the attester writes it, with `overrides` of its claims or header. */
async function jwt(overrides: { iss?: string; aud?: string; expSeconds?: number; kid?: string; key?: JoseKey; sub?: string } = {}): Promise<string> {
  const nowS = Math.floor((await serviceNowMs()) / 1000)
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: overrides.kid ?? 'k1' })
    .setIssuer(overrides.iss ?? ISSUER)
    .setAudience(overrides.aud ?? AUDIENCE)
    .setSubject(overrides.sub ?? 'account-42')
    .setIssuedAt(nowS)
    .setExpirationTime(nowS + (overrides.expSeconds ?? 600))
    .sign(overrides.key ?? signingKey)
}

async function serviceNowMs(): Promise<number> {
  const res = await h.admin.post('/admin/v1/clock', { advance_seconds: 0 })
  assert.equal(res.status, 200, res.text)
  return Date.parse(res.body.now)
}

const challengeOf = (country: string) => shared.challengeOf(h.baseUrl, country, '198.51.100.201')
const tokenRequest = (baseUrl: string, bearer: string, challenge: TokenChallenge, tokenKey: Uint8Array) => shared.requestToken(baseUrl, bearer, { challenge, tokenKey })
const token = (bearer: string, challenge: TokenChallenge, tokenKey: Uint8Array) => shared.tokenHeader(h.baseUrl, bearer, { challenge, tokenKey })
async function viewWith(d: Decision, authorization: string, address: string): Promise<void> {
  assert.equal(await shared.viewWith(h.baseUrl, d.impression_id, authorization, address), 204)
}

async function totals(adv: Advertiser, campaignId: string) {
  const res = await adv.get(`/v1/stats?campaign_id=${campaignId}&start=2026-11-01T00:00:00Z&end=2026-11-30T00:00:00Z`)
  assert.equal(res.status, 200, res.text)
  return res.body.totals
}

test("a JWT from the attester's JWKS gets a token; expired, wrong audience, wrong issuer, alg none, unknown kid or a foreign key: 401", async () => {
  const country = privateCountry()
  await (await h.advertiser()).post('/v1/campaigns', campaignBody({ target_countries: [country] }))
  const { challenge, tokenKey } = await challengeOf(country)
  await token(await jwt(), challenge, tokenKey)
  const refused = async (bearer: string, pattern: RegExp) => {
    const { res } = await tokenRequest(h.baseUrl, bearer, challenge, tokenKey)
    assert.equal(res.status, 401)
    assert.match((await res.json()).detail, pattern)
  }
  await refused(await jwt({ expSeconds: -120 }), /expired/)
  await refused(await jwt({ aud: 'https://someone-else.example' }), /aud/)
  await refused(await jwt({ iss: 'https://evil.example' }), /iss/)
  await refused(await jwt({ kid: 'k2', key: strangerKey }), /key/)
  await refused(await jwt({ key: strangerKey }), /signature/)
  const [, payload] = (await jwt()).split('.')
  await refused(`${Buffer.from(JSON.stringify({ alg: 'none', kid: 'k1' })).toString('base64url')}.${payload}.`, /JWT/)
})

test("keys rotate every period and redeem one period more; a foreign key's token is invalid_token", async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const created = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 2000, cpm_usd: 5 }))
  assert.equal(created.status, 201, created.text)
  const id = created.body.campaign_id
  const first = await challengeOf(country)
  const early = [await token(await jwt(), first.challenge, first.tokenKey), await token(await jwt(), first.challenge, first.tokenKey)]

  // A day later (one period): a new key issues, and is first in the directory; the old one still redeems.
  await advance(h, 86_400)
  const second = await challengeOf(country)
  assert.notDeepEqual(Buffer.from(second.tokenKey), Buffer.from(first.tokenKey))
  const dir = await (await fetch(`${h.baseUrl}/.well-known/private-token-issuer-directory`)).json()
  assert.equal(dir['token-keys'].length, 2)
  assert.equal(String(dir['token-keys'][0]['token-key']).replace(/=+$/, ''), Buffer.from(second.tokenKey).toString('base64url'))
  const d1 = (await decide(h.anonymous, { country }))!
  await advance(h, 10)
  await viewWith(d1, early[0]!, '203.0.113.51')
  assert.equal((await totals(adv, id)).attested_billable_impressions, 1, "the previous period's token still bills")

  // Another day: the first key's redemption window is over.
  await advance(h, 86_400)
  const d2 = (await decide(h.anonymous, { country }))!
  // A token of a key this service never had, for the right challenge.
  const stranger = await generateIssuerKey()
  const client = new publicVerif.Client(publicVerif.BlindRSAMode.PSS)
  const request = await client.createTokenRequest(first.challenge, new Uint8Array(stranger.tokenKey))
  const signed = new BlindSigner(stranger).sign(Buffer.from(request.serialize()))
  assert.ok('response' in signed)
  const foreign = new AuthorizationHeader(await client.finalize(new publicVerif.TokenResponse(new Uint8Array(signed.response)))).toString(true)
  const d3 = (await decide(h.anonymous, { country }))!
  await advance(h, 10)
  await viewWith(d2, early[1]!, '203.0.113.52')
  await viewWith(d3, foreign, '203.0.113.53')
  const t = await totals(adv, id)
  assert.equal(t.attested_billable_impressions, 1)
  assert.equal(t.non_billable.invalid_token, 2)
  // The transparency log lists every key used, with its windows.
  const log = await (await fetch(`${h.baseUrl}/transparency.json`)).json()
  assert.ok(log.issuer_keys.length >= 2)
  assert.equal(typeof log.token_challenge, 'string')
})

let second: TestService | undefined
after(async () => {
  await second?.close()
})

test("the subject's daily allowance holds across two instances on one store", { skip: STORE !== 'postgres' ? 'two instances need a shared PostgreSQL' : false }, async () => {
  second = await startService({ DATABASE_URL: h.svc.databaseUrl!, ...env })
  const country = privateCountry()
  await (await h.advertiser()).post('/v1/campaigns', campaignBody({ target_countries: [country] }))
  const { challenge, tokenKey } = await challengeOf(country)
  await h.config({ attest_tokens_per_subject_per_day: 4 })
  try {
    const bearer = await jwt({ sub: 'two-instances' })
    const answers = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => (await tokenRequest(i % 2 === 0 ? h.baseUrl : second!.baseUrl, bearer, challenge, tokenKey)).res.status),
    )
    assert.equal(answers.filter((s) => s === 200).length, 4)
    assert.equal(answers.filter((s) => s === 429).length, 4)
  } finally {
    await h.config({ attest_tokens_per_subject_per_day: 1500 })
  }
})
