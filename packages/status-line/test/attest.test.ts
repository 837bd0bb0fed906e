/**
 * Attested views from the client's side (issue 48): the refresher against an in-test server that plays
 * the service with a real Privacy Pass issuer (@cloudflare/privacypass-ts): decisions carry the
 * challenge in WWW-Authenticate, token requests are blind-signed when the Bearer JWT is the expected
 * one, view reports are recorded with their Authorization header.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { AuthorizationHeader, publicVerif, Token, TOKEN_TYPES } from '@cloudflare/privacypass-ts'
import { challengeFor, makeIssuer, sha256Hex, wwwAuthenticate, type TestIssuer } from '../../../test/helpers/attest-fixtures.ts'
import { refresh } from '../src/refresher.js'
import { paths, pendingReports, queueReport } from '../src/state.js'
import { readWallet, TOKENS_PER_RUN, WALLET_MAX } from '../src/wallet.js'

const HOST = '127.0.0.1:8080'
const challenge = challengeFor(HOST)
const JWT = 'eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJ1c2VyLTEifQ.c2lnbmF0dXJl'

let issuer: TestIssuer
/** What the stand-in service does and saw. */
const seen = { tokenRequests: [] as { authorization: string; contentType: string }[], views: [] as { path: string; authorization: string | null; dwell_ms: number }[], decisions: 0 }
let tokenAnswer: () => { status: number; headers?: Record<string, string> } = () => ({ status: 200 })
let viewStatus = 204
let n = 0

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => void answer(req, Buffer.concat(chunks), res))
})

async function answer(req: IncomingMessage, body: Buffer, res: ServerResponse) {
  const url = req.url ?? ''
  if (url === '/serve/v1/decisions') {
    seen.decisions++
    const id = `imp_${n++}`
    res.writeHead(200, { 'content-type': 'application/json', 'www-authenticate': wwwAuthenticate(challenge, issuer.spki) })
    return res.end(JSON.stringify({ impression_id: id, ad_line: 'Line', brand: 'B', icon_url: null, view_url: `/v/${id}`, click_url: `/c/${id}` }))
  }
  if (url === '/serve/v1/token-requests') {
    seen.tokenRequests.push({ authorization: req.headers.authorization ?? '', contentType: req.headers['content-type'] ?? '' })
    const a = tokenAnswer()
    if (a.status !== 200) return res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers }).end(JSON.stringify({ detail: 'no' }))
    if (req.headers.authorization !== `Bearer ${JWT}`) return res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'bad JWT' }))
    const request = publicVerif.TokenRequest.deserialize(TOKEN_TYPES.BLIND_RSA, new Uint8Array(body))
    if (request.truncatedTokenKeyId !== Buffer.from(issuer.tokenKeyId, 'hex').at(-1)) return res.writeHead(400).end(JSON.stringify({ detail: 'not the issuing key' }))
    return res.writeHead(200, { 'content-type': 'application/private-token-response' }).end(issuer.sign(body))
  }
  const view = /^\/serve\/v1\/impressions\/([^/]+)\/view$/.exec(url)
  if (view) {
    seen.views.push({ path: url, authorization: req.headers.authorization ?? null, dwell_ms: JSON.parse(body.toString()).dwell_ms })
    return res.writeHead(viewStatus).end()
  }
  res.writeHead(404).end()
}

let url = ''
before(async () => {
  issuer = await makeIssuer(HOST)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
after(() => new Promise((resolve) => server.close(resolve)))

const fresh = () => mkdtempSync(join(tmpdir(), 'thinking-line-attest-'))
const clock = () => Date.now()
const reset = () => {
  seen.tokenRequests.length = 0
  seen.views.length = 0
  seen.decisions = 0
  tokenAnswer = () => ({ status: 200 })
  viewStatus = 204
}
const attestedEnv = () => ({ THINKING_LINE_URL: url, THINKING_LINE_ATTEST_TOKEN: JWT })

/** The token a view report carried (parsed by the library, as the service parses it), and whether the issuer's key signed it. */
async function spent(authorization: string) {
  const [header] = AuthorizationHeader.parse(TOKEN_TYPES.BLIND_RSA, authorization)
  const token = header!.token
  return { token, nonce: Buffer.from(token.authInput.nonce).toString('hex'), valid: await issuer.issuer.verify(token) }
}

/** Reports one view of `dwell_ms` (one per pass: billable views leave 10.5 s apart, so the last one's time is forgotten). */
async function reportOne(dir: string, id: string, dwell_ms: number, env: Record<string, string>) {
  rmSync(paths(dir).lastBillable, { force: true })
  queueReport(dir, { impression_id: id, dwell_ms, queued_at: Date.now() })
  return refresh(dir, env, clock)
}

test('an attester set: tokens fetched in batches with the Bearer JWT, for the decision\'s challenge and key, into a wallet of mode 0600', async () => {
  reset()
  const dir = fresh()
  const result = await refresh(dir, attestedEnv(), clock)
  assert.deepEqual(result, { sent: 0, fetched: 2, failed: false, noFill: false })
  assert.equal(seen.tokenRequests.length, TOKENS_PER_RUN)
  for (const r of seen.tokenRequests) assert.deepEqual(r, { authorization: `Bearer ${JWT}`, contentType: 'application/private-token-request' })
  assert.equal(statSync(paths(dir).wallet).mode & 0o777, 0o600)
  const wallet = readWallet(dir)
  assert.equal(wallet.tokens.length, TOKENS_PER_RUN)
  assert.equal(wallet.token_key, issuer.tokenKey)
  assert.equal(wallet.challenge, Buffer.from(challenge.serialize()).toString('base64url'))
  for (const t of wallet.tokens) {
    const token = Token.deserialize(TOKEN_TYPES.BLIND_RSA, new Uint8Array(Buffer.from(t, 'base64url')))
    assert.equal(await issuer.issuer.verify(token), true)
    assert.equal(Buffer.from(token.authInput.tokenKeyId).toString('hex'), issuer.tokenKeyId)
    assert.equal(Buffer.from(token.authInput.challengeDigest).toString('hex'), sha256Hex(challenge.serialize()))
  }
  // The batch goes on over the next runs until the wallet is full, then stops asking.
  for (let i = 0; i < 5; i++) await refresh(dir, attestedEnv(), clock)
  assert.equal(readWallet(dir).tokens.length, WALLET_MAX)
  assert.equal(seen.tokenRequests.length, WALLET_MAX)
  assert.equal(new Set(readWallet(dir).tokens).size, WALLET_MAX)
  assert.equal(readWallet(dir).filling, false)
})

test('each billable view spends one token that verifies; two reports never carry the same one; a retry resends its own; short views spend none', async () => {
  reset()
  const dir = fresh()
  await refresh(dir, attestedEnv(), clock)
  const before = readWallet(dir).tokens.length

  // The service does not acknowledge: the report stays queued with the token it was sent with.
  viewStatus = 503
  await reportOne(dir, 'imp_a', 10_000, attestedEnv())
  assert.equal(seen.views.length, 1)
  const first = await spent(seen.views[0]!.authorization!)
  assert.equal(first.valid, true)
  assert.equal(readWallet(dir).tokens.length, before - 1, 'the token left the wallet before the report was sent')
  const queued = JSON.parse(readFileSync(join(paths(dir).reports, pendingReports(dir)[0]!), 'utf8'))
  assert.equal(queued.impression_id, 'imp_a')
  assert.equal(statSync(join(paths(dir).reports, pendingReports(dir)[0]!)).mode & 0o777, 0o600)
  rmSync(paths(dir).backoff, { force: true })

  viewStatus = 204
  await reportOne(dir, 'imp_b', 10_000, attestedEnv())
  await reportOne(dir, 'imp_c', 3_000, attestedEnv())
  const byId = (id: string) => seen.views.filter((v) => v.path.includes(`/${id}/`))
  // imp_a again with the same token (now acknowledged), imp_b with its own, imp_c (too short to bill) with none.
  assert.deepEqual(byId('imp_a').map((v) => v.authorization), [seen.views[0]!.authorization, seen.views[0]!.authorization])
  const second = await spent(byId('imp_b')[0]!.authorization!)
  assert.equal(second.valid, true)
  assert.notEqual(second.nonce, first.nonce)
  assert.deepEqual(byId('imp_c').map((v) => v.authorization), [null])
  assert.deepEqual(pendingReports(dir), [])
  // Every token the service saw, across all reports: no nonce twice but the one retry.
  const nonces = await Promise.all(seen.views.filter((v) => v.authorization).map(async (v) => (await spent(v.authorization!)).nonce))
  assert.deepEqual(nonces, [first.nonce, first.nonce, second.nonce])
  assert.ok(!readWallet(dir).tokens.some((t) => seen.views.some((v) => v.authorization?.includes(t))), 'a spent token is no longer in the wallet')
})

test('no attester: no token request, no wallet, views reported without Authorization', async () => {
  reset()
  const dir = fresh()
  await refresh(dir, { THINKING_LINE_URL: url }, clock)
  await reportOne(dir, 'imp_plain', 10_000, { THINKING_LINE_URL: url })
  assert.equal(seen.decisions, 2)
  assert.equal(seen.tokenRequests.length, 0)
  assert.equal(existsSync(paths(dir).wallet), false)
  assert.deepEqual(seen.views.map((v) => v.authorization), [null])
})

test('401 from the issuer: a back-off in the wallet, no token request while it runs, views still reported', async () => {
  reset()
  const dir = fresh()
  const refused = { THINKING_LINE_URL: url, THINKING_LINE_ATTEST_TOKEN: 'expired.jwt.value' }
  const result = await refresh(dir, refused, clock)
  assert.equal(result.failed, false, 'the refresher itself did not fail')
  assert.equal(seen.tokenRequests.length, 1, 'the first 401 ends the batch')
  const wallet = readWallet(dir)
  assert.equal(wallet.backoff?.reason, 'unauthorized')
  assert.ok(wallet.backoff!.until - Date.now() > 60_000)
  assert.equal(wallet.tokens.length, 0)

  await reportOne(dir, 'imp_x', 10_000, refused)
  assert.equal(seen.tokenRequests.length, 1, 'no request during the back-off')
  assert.deepEqual(seen.views.map((v) => [v.path, v.authorization]), [['/serve/v1/impressions/imp_x/view', null]])
  assert.deepEqual(pendingReports(dir), [])
})

test('429 with Retry-After: the wallet waits that long', async () => {
  reset()
  const dir = fresh()
  tokenAnswer = () => ({ status: 429, headers: { 'retry-after': '7200' } })
  await refresh(dir, attestedEnv(), clock)
  const backoff = readWallet(dir).backoff!
  assert.equal(backoff.reason, 'rate_limited')
  assert.ok(Math.abs(backoff.until - (Date.now() + 7_200_000)) < 5_000, `${backoff.until - Date.now()}`)
})

test('a new issuer key in WWW-Authenticate drops the old key\'s tokens; the new ones are for the new key', async () => {
  reset()
  const dir = fresh()
  await refresh(dir, attestedEnv(), clock)
  const old = readWallet(dir).tokens
  assert.equal(old.length, TOKENS_PER_RUN)
  const previous = issuer
  issuer = await makeIssuer(HOST)
  try {
    // A decision is wanted (the current offer is shown and done): state.json emptied so the refresher asks.
    rmSync(paths(dir).state)
    await refresh(dir, attestedEnv(), clock)
    const wallet = readWallet(dir)
    assert.equal(wallet.token_key, issuer.tokenKey)
    assert.equal(wallet.tokens.length, TOKENS_PER_RUN)
    assert.ok(wallet.tokens.every((t) => !old.includes(t)))
    for (const t of wallet.tokens) assert.equal(Buffer.from(t, 'base64url').subarray(66, 98).toString('hex'), issuer.tokenKeyId)
  } finally {
    issuer = previous
  }
})

test('THINKING_LINE_ATTEST_COMMAND: its trimmed output is the Bearer JWT; a failing command backs off', async () => {
  reset()
  const dir = fresh()
  await refresh(dir, { THINKING_LINE_URL: url, THINKING_LINE_ATTEST_COMMAND: `printf '  %s\\n' '${JWT}'` }, clock)
  assert.equal(seen.tokenRequests.length, TOKENS_PER_RUN)
  assert.ok(seen.tokenRequests.every((r) => r.authorization === `Bearer ${JWT}`))
  assert.equal(readWallet(dir).tokens.length, TOKENS_PER_RUN)

  reset()
  const failing = fresh()
  await refresh(failing, { THINKING_LINE_URL: url, THINKING_LINE_ATTEST_COMMAND: 'exit 3' }, clock)
  assert.equal(seen.tokenRequests.length, 0)
  assert.equal(readWallet(failing).backoff?.reason, 'attester')
})

const BIN = new URL('../bin/thinking-line.js', import.meta.url).pathname

test('the real bin: the detached refresher it starts fills the wallet (the invocation itself never waits for it)', async () => {
  reset()
  const dir = fresh()
  const started = Date.now()
  const out = await new Promise<string>((resolve) => {
    const child = spawn(process.execPath, [BIN, '--no-links'], { env: { PATH: process.env.PATH ?? '', THINKING_LINE_STATE_DIR: dir, THINKING_LINE_TOPICS: 'off', ...attestedEnv() }, stdio: ['ignore', 'pipe', 'ignore'] })
    let text = ''
    child.stdout.on('data', (c: Buffer) => (text += c.toString()))
    child.on('close', () => resolve(text))
  })
  assert.equal(out, '\n')
  for (let i = 0; i < 500 && (seen.tokenRequests.length < TOKENS_PER_RUN || existsSync(paths(dir).refreshLock)); i++) await new Promise((resolve) => setTimeout(resolve, 20))
  assert.equal(readWallet(dir).tokens.length, TOKENS_PER_RUN, `after ${Date.now() - started} ms: ${readdirSync(dir).join(', ')}`)
  assert.equal(statSync(paths(dir).wallet).mode & 0o777, 0o600)
})
