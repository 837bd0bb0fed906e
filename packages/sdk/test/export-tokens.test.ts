/**
 * verifyExportTokens on ledger-export-v4 text whose tokens a real issuer signed (@cloudflare/privacypass-ts):
 * every check of docs/ledger-verification.md, "Attestation tokens", refuses the row it is about.
 */
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import { b64url, challengeFor, makeIssuer, mintToken, v4Csv, type TestIssuer } from '../../../test/helpers/attest-fixtures.ts'
import { fromBase64url, verifyExportTokens, type TokenVerifyOptions, type TokenVerifyResult } from '../src/export-tokens.ts'
import { AdvertiserClient } from '../src/client.ts'
import { ApiError } from '../src/errors.ts'
import { fetchTokenKeys, publishedTokenKeys } from '../src/token-keys.ts'

const HOST = 'ads.test:8080'
const challenge = challengeFor(HOST)
let current: TestIssuer
let previous: TestIssuer
let tokens: string[]
let options: TokenVerifyOptions

before(async () => {
  ;[current, previous] = await Promise.all([makeIssuer(HOST), makeIssuer(HOST)])
  tokens = await Promise.all([mintToken(current, challenge), mintToken(current, challenge), mintToken(previous, challenge)]).then((t) => t.map(b64url))
  options = { issuerKeys: [current.published(), previous.published()], tokenChallenge: b64url(challenge.serialize()) }
})

function refused(result: TokenVerifyResult) {
  assert.ok(!result.verified, 'expected a discrepancy')
  return result.discrepancy
}

test('every token signed by a published key for the challenge, no nonce twice: verified, with the keys used', async () => {
  const result = await verifyExportTokens(v4Csv([tokens[0]!, '', tokens[1]!, tokens[2]!]), options)
  assert.ok(result.verified, JSON.stringify(result))
  assert.deepEqual(result.figures, {
    rows: 5,
    tokens_checked: 3,
    keys_used: [
      { token_key_id: current.tokenKeyId, tokens: 2 },
      { token_key_id: previous.tokenKeyId, tokens: 1 },
    ],
  })
})

test('no attested rows: nothing to check, and that is said by the figures', async () => {
  const result = await verifyExportTokens(v4Csv(['', '']), options)
  assert.ok(result.verified)
  assert.equal(result.figures.tokens_checked, 0)
  assert.deepEqual(result.figures.keys_used, [])
})

test('one changed byte of a token: refused on that row, whichever part the byte is in', async () => {
  const bytes = fromBase64url(tokens[1]!)!
  for (const [at, kind] of [
    [5, 'bad_signature'], // the nonce
    [40, 'wrong_challenge'], // the challenge digest
    [70, 'unknown_key'], // the key id
    [200, 'bad_signature'], // the authenticator
    [1, 'malformed_token'], // the token type
  ] as const) {
    const changed = Uint8Array.from(bytes)
    changed[at] = changed[at]! ^ 0x01
    const d = refused(await verifyExportTokens(v4Csv([tokens[0]!, b64url(changed), tokens[2]!]), options))
    assert.equal(d.kind, kind, `byte ${at}: ${d.message}`)
    assert.equal(d.row?.line, 3, 'the header is line 1, the changed token is on line 3')
    assert.equal(d.row?.timestamp, '2026-11-02T09:00:01.000Z')
  }
  // A changed character of the text, as someone editing the file would.
  const text = tokens[1]!
  const edited = text.slice(0, 300) + (text[300] === 'A' ? 'B' : 'A') + text.slice(301)
  assert.equal(refused(await verifyExportTokens(v4Csv([tokens[0]!, edited]), options)).row?.line, 3)
  assert.equal(refused(await verifyExportTokens(v4Csv([tokens[0]!, `${text}AAAA`]), options)).kind, 'malformed_token')
  assert.equal(refused(await verifyExportTokens(v4Csv([tokens[0]!, 'not a token!']), options)).kind, 'malformed_token')
})

test('a nonce twice (one token on two rows): refused on the second, naming the first', async () => {
  const d = refused(await verifyExportTokens(v4Csv([tokens[0]!, tokens[1]!, tokens[0]!]), options))
  assert.equal(d.kind, 'repeated_nonce')
  assert.equal(d.row?.line, 4)
  assert.match(d.message, /line 2/)
})

test('a key the service does not publish, another challenge, a key past its redemption window', async () => {
  const stranger = await makeIssuer(HOST)
  const foreign = b64url(await mintToken(stranger, challenge))
  const d = refused(await verifyExportTokens(v4Csv([tokens[0]!, foreign]), options))
  assert.equal(d.kind, 'unknown_key')
  assert.equal(d.row?.line, 3)
  assert.match(d.message, new RegExp(stranger.tokenKeyId))

  const elsewhere = b64url(await mintToken(current, challengeFor('other.example')))
  assert.equal(refused(await verifyExportTokens(v4Csv([elsewhere]), options)).kind, 'wrong_challenge')

  const expired = { ...options, issuerKeys: [current.published(), previous.published({ redeem_until: '2026-11-01T00:00:00.000Z' })] }
  const e = refused(await verifyExportTokens(v4Csv([tokens[0]!, tokens[2]!]), expired))
  assert.equal(e.kind, 'key_expired')
  assert.equal(e.row?.line, 3)
})

test('published keys that are not what they claim, and files that are not v4', async () => {
  const lying = { ...options, issuerKeys: [{ ...current.published(), token_key: previous.tokenKey }] }
  assert.equal(refused(await verifyExportTokens(v4Csv([tokens[0]!]), lying)).kind, 'bad_keys')
  assert.equal(refused(await verifyExportTokens(v4Csv([tokens[0]!]), { ...options, tokenChallenge: 'AAEA' })).kind, 'bad_keys')

  const v3 = v4Csv([tokens[0]!]).replace(',attestation_token\r\n', '\r\n')
  assert.equal(refused(await verifyExportTokens(v3, options)).kind, 'bad_export')
  assert.equal(refused(await verifyExportTokens(v4Csv([tokens[0]!]).slice(0, -2), options)).kind, 'bad_export')
})

test('the keys of a /transparency.json document are read field by field', () => {
  const doc = { heads: [], issuer_keys: [current.published()], token_challenge: 'AAIA' }
  assert.deepEqual(publishedTokenKeys(doc), { issuer_keys: [current.published()], token_challenge: 'AAIA' })
  assert.throws(() => publishedTokenKeys({ heads: [] }), /no issuer_keys/)
  assert.throws(() => publishedTokenKeys({ ...doc, issuer_keys: [{ token_key_id: 'ab' }] }), /malformed issuer key/)
})

test('client.tokenKeys() and fetchTokenKeys(origin) read the keys from /transparency.json at the service\'s root', async () => {
  let body: unknown = { heads: [], issuer_keys: [current.published()], token_challenge: options.tokenChallenge }
  const seen: string[] = []
  const server = createServer((req, res) => {
    seen.push(`${req.url} ${req.headers['x-service-user-id'] ?? '-'}`)
    res.writeHead(req.url === '/transparency.json' ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  after(() => server.close())
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const client = new AdvertiserClient({ baseUrl: `${origin}/v1`, userId: 'usr_1', apiKey: 'sk_test' })
  const expected = { issuer_keys: [current.published()], token_challenge: options.tokenChallenge }
  assert.deepEqual(await client.tokenKeys(), expected)
  assert.deepEqual(await fetchTokenKeys(`${origin}/v1/`), expected)
  assert.deepEqual(seen, ['/transparency.json -', '/transparency.json -'], 'the public document is read without credentials')
  // The keys verify an export end to end.
  const keys = await fetchTokenKeys(origin)
  assert.ok((await verifyExportTokens(v4Csv([tokens[0]!]), { issuerKeys: keys.issuer_keys, tokenChallenge: keys.token_challenge })).verified)
  body = { heads: [] }
  await assert.rejects(fetchTokenKeys(origin), (e: unknown) => e instanceof ApiError && e.reason === 'bad_transparency_log')
  await assert.rejects(fetchTokenKeys('http://127.0.0.1:9'), (e: unknown) => e instanceof ApiError && e.status === 0)
})
