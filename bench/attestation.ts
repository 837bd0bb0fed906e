/**
 * Attested views, the service's added CPU (issue 48; docs/performance.md, "Attested views"): what a view
 * report with a Privacy Pass token costs at the edge beyond one without (the Authorization header
 * parsed, the token's parts and challenge digest checked, its RSA-PSS signature verified against a key
 * object held in memory), and what issuing one token costs (node:crypto's raw RSA against the client
 * library's Issuer). Medians of several windows of CPU time (process.cpuUsage) per operation.
 *
 *   npm run bench:attestation
 */
import { createHash } from 'node:crypto'
import { AuthorizationHeader, publicVerif, TokenChallenge, util } from '@cloudflare/privacypass-ts'
import { median } from '../tools/lib/stats.ts'
import { BlindSigner, generateIssuerKey, parseToken, signatureValid, tokenChallenge, tokenOfAuthorization, verifierKey } from '../src/platform/privacy-pass.ts'

const WINDOWS = 5
const VIEWS_PER_WINDOW = 4_000

const cpuUs = (f: () => void): number => {
  const start = process.cpuUsage()
  f()
  const used = process.cpuUsage(start)
  return used.user + used.system
}

const pair = await generateIssuerKey()
const challenge = tokenChallenge('ads.example')
const digest = createHash('sha256').update(challenge).digest()
const signer = new BlindSigner(pair)
const key = verifierKey(pair.tokenKey)

// A few real tokens, made the way clients make them.
const headers: string[] = []
for (let i = 0; i < 8; i++) {
  const client = new publicVerif.Client(publicVerif.BlindRSAMode.PSS)
  const request = await client.createTokenRequest(TokenChallenge.deserialize(new Uint8Array(challenge)), new Uint8Array(pair.tokenKey))
  const signed = signer.sign(Buffer.from(request.serialize()))
  if (!('response' in signed)) throw new Error('signing failed')
  headers.push(new AuthorizationHeader(await client.finalize(new publicVerif.TokenResponse(new Uint8Array(signed.response)))).toString(true))
}

/** What the view route adds for a token: parse, check the parts, verify the signature. */
function checkOne(header: string): boolean {
  const bytes = tokenOfAuthorization(header)
  if (!Buffer.isBuffer(bytes)) return false
  const token = parseToken(bytes)
  return token !== null && token.challengeDigest.equals(digest) && signatureValid(token, key)
}

const perView: number[] = []
for (let w = 0; w < WINDOWS; w++) {
  let ok = 0
  const us = cpuUs(() => {
    for (let i = 0; i < VIEWS_PER_WINDOW; i++) if (checkOne(headers[i % headers.length]!)) ok++
  })
  if (ok !== VIEWS_PER_WINDOW) throw new Error(`${VIEWS_PER_WINDOW - ok} tokens did not verify`)
  perView.push(us / VIEWS_PER_WINDOW)
}

const request = Buffer.from(
  (await new publicVerif.Client(publicVerif.BlindRSAMode.PSS).createTokenRequest(TokenChallenge.deserialize(new Uint8Array(challenge)), new Uint8Array(pair.tokenKey))).serialize(),
)
const perIssue: number[] = []
for (let w = 0; w < WINDOWS; w++) perIssue.push(cpuUs(() => {
  for (let i = 0; i < 200; i++) signer.sign(request)
}) / 200)

const params = { name: 'RSA-PSS', hash: 'SHA-384' }
const library = new publicVerif.Issuer(
  publicVerif.BlindRSAMode.PSS,
  'ads.example',
  await crypto.subtle.importKey('pkcs8', new Uint8Array(pair.privateKey), params, true, ['sign']),
  await crypto.subtle.importKey('spki', new Uint8Array(util.convertRSASSAPSSToEnc(new Uint8Array(pair.tokenKey))), params, true, ['verify']),
)
const parsedRequest = publicVerif.TokenRequest.deserialize(publicVerif.BLIND_RSA, new Uint8Array(request))
const libraryStart = process.cpuUsage()
for (let i = 0; i < 3; i++) await library.issue(parsedRequest)
const libraryUsed = process.cpuUsage(libraryStart)

const fmt = (n: number) => n.toFixed(1)
console.log('| What | CPU per operation (median of windows) |')
console.log('|---|---|')
console.log(`| an attested view's added work at the edge (parse, checks, RSA-PSS verify) | ${fmt(median(perView))} µs |`)
console.log(`| issuing one token, node:crypto (RSASP1 and its check) | ${fmt(median(perIssue) / 1000)} ms |`)
console.log(`| issuing one token, the client library's Issuer | ${fmt((libraryUsed.user + libraryUsed.system) / 3 / 1000)} ms |`)
