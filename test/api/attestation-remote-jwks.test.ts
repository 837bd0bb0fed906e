import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, test } from 'node:test'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey as JoseKey, type JWK } from 'jose'
import { campaignBody, useService } from '../helpers/api.ts'
import { privateCountry } from '../helpers/serving.ts'
import { challengeOf, requestToken, tokenHeader } from '../helpers/attestation.ts'
import { TIMEOUTS } from '../../src/platform/timeouts.ts'

// The attester's key set fetched over HTTP (ATTESTER_JWKS_URL; docs/attestation.md): cached, fetched
// again when a JWT names a key it does not hold (the attester rotated), and a key set that does not
// answer in time is 503 with Retry-After, not 401 and never a hang.

const ISSUER = 'https://sign-in.example'
const AUDIENCE = 'https://ads.example'

/** The attester's published keys, served by a local server that can be told to stall. */
const published: JWK[] = []
let stall = false
let fetches = 0
const jwksServer: Server = createServer((_req, res) => {
  fetches++
  if (stall) return // never answers: the service's 2 s timeout decides
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: published }))
})
await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve))
const jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`
after(() => {
  jwksServer.closeAllConnections()
  jwksServer.close()
})

async function attesterKey(kid: string): Promise<JoseKey> {
  const pair = await generateKeyPair('ES256', { extractable: true })
  published.push({ ...(await exportJWK(pair.publicKey)), kid, alg: 'ES256', use: 'sig' })
  return pair.privateKey
}

const h = useService({ ATTESTER_JWKS_URL: jwksUrl, ATTESTER_ISSUER: ISSUER, ATTESTER_AUDIENCE: AUDIENCE })

async function jwt(key: JoseKey, kid: string): Promise<string> {
  const now = await h.admin.post('/admin/v1/clock', { advance_seconds: 0 })
  const nowS = Math.floor(Date.parse(now.body.now) / 1000)
  return new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid }).setIssuer(ISSUER).setAudience(AUDIENCE).setSubject('account-7').setIssuedAt(nowS).setExpirationTime(nowS + 600).sign(key)
}

test("a JWT of the attester's remote key set gets a token; a rotated-in key is fetched; a stalled key set is 503 with Retry-After", async () => {
  const first = await attesterKey('k1')
  const country = privateCountry()
  assert.equal((await (await h.advertiser()).post('/v1/campaigns', campaignBody({ target_countries: [country] }))).status, 201)
  const challenge = await challengeOf(h.baseUrl, country)
  await tokenHeader(h.baseUrl, await jwt(first, 'k1'), challenge)
  const afterFirst = fetches
  // The attester adds a key: a JWT naming it makes the service fetch the set again (once the cooldown after a fetch has passed).
  const second = await attesterKey('k2')
  await new Promise((resolve) => setTimeout(resolve, TIMEOUTS.attesterJwksCooldownMs + 200))
  await tokenHeader(h.baseUrl, await jwt(second, 'k2'), challenge)
  assert.ok(fetches > afterFirst, 'the key set was fetched again for the unknown kid')
  // The key set stops answering: a JWT of a key the service does not hold yet waits at most the timeout, then 503.
  stall = true
  const third = await attesterKey('k3')
  await new Promise((resolve) => setTimeout(resolve, TIMEOUTS.attesterJwksCooldownMs + 200))
  const started = performance.now()
  const { res } = await requestToken(h.baseUrl, await jwt(third, 'k3'), challenge)
  assert.equal(res.status, 503, await res.clone().text())
  assert.ok(Number(res.headers.get('retry-after')) > 0)
  assert.ok(performance.now() - started < 10_000, 'bounded by the key set timeout')
})
