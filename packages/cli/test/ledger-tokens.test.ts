/**
 * The real `adctl ledger verify --tokens` on ledger-export-v4 files whose tokens a real issuer signed
 * (@cloudflare/privacypass-ts): the keys from a saved /transparency.json (--keys) or fetched from the
 * service's (here a stand-in serving only that public document); exit 0 with a one-line summary, exit 4
 * naming the first bad row.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { b64url, challengeFor, makeIssuer, mintToken, v4Csv, type TestIssuer } from '../../../test/helpers/attest-fixtures.ts'
import { adctl, freshConfigHome } from './run.ts'

const HOST = 'ads.test:8080'
const challenge = challengeFor(HOST)
const dir = mkdtempSync(join(tmpdir(), 'adctl-tokens-'))
let issuer: TestIssuer
let tokens: string[]
let keysFile: string
let transparency: Record<string, unknown>

/** A file of the test's directory. */
const file = (name: string, text: string) => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}
/** No credentials at all: the keys are public, the file is local. */
const env = () => ({ XDG_CONFIG_HOME: freshConfigHome(), ADCTL_API_URL: 'http://127.0.0.1:9' })

before(async () => {
  issuer = await makeIssuer(HOST)
  tokens = (await Promise.all([0, 1, 2].map(() => mintToken(issuer, challenge)))).map(b64url)
  transparency = { heads: [], issuer_keys: [issuer.published()], token_challenge: b64url(challenge.serialize()) }
  keysFile = file('transparency.json', JSON.stringify(transparency))
})

test('every token good: exit 0 and one line naming how many were checked and the key that signed them', async () => {
  const run = await adctl(['ledger', 'verify', '--tokens', file('good.csv', v4Csv([tokens[0]!, '', tokens[1]!, tokens[2]!])), '--keys', keysFile], env())
  assert.equal(run.code, 0, run.stderr)
  const lines = run.stdout.trimEnd().split('\n')
  assert.equal(lines.length, 1, run.stdout)
  assert.match(lines[0]!, /^Verified 3 attestation tokens of 5 rows in .*good\.csv: .*keys used: [0-9a-f]{12}… \(3\)\.$/)
  assert.ok(lines[0]!.includes(issuer.tokenKeyId.slice(0, 12)))

  const json = await adctl(['ledger', 'verify', '--tokens', join(dir, 'good.csv'), '--keys', keysFile, '--json'], env())
  assert.equal(json.code, 0, json.stderr)
  assert.deepEqual(JSON.parse(json.stdout), { verified: true, figures: { rows: 5, tokens_checked: 3, keys_used: [{ token_key_id: issuer.tokenKeyId, tokens: 3 }] } })
})

test('no attested rows: nothing verified, exit 1 unless --allow-empty (exit 0), and it says so', async () => {
  const none = file('none.csv', v4Csv(['', '']))
  const run = await adctl(['ledger', 'verify', '--tokens', none, '--keys', keysFile], env())
  assert.equal(run.code, 1, run.stderr)
  assert.match(run.stderr, /^adctl: error: Nothing verified: no attestation tokens in .*none\.csv \(3 rows\).* Pass --allow-empty/)
  const allowed = await adctl(['ledger', 'verify', '--tokens', none, '--keys', keysFile, '--allow-empty'], env())
  assert.equal(allowed.code, 0, allowed.stderr)
  assert.match(allowed.stdout, /Nothing verified: no attestation tokens in .*none\.csv \(3 rows\): no attested rows, nothing to check\./)
})

test('one changed byte in a token: exit 4 naming that row and the check that failed', async () => {
  const bytes = Buffer.from(tokens[1]!, 'base64url')
  bytes[250] = bytes[250]! ^ 0x80
  const run = await adctl(['ledger', 'verify', '--tokens', file('changed.csv', v4Csv([tokens[0]!, b64url(bytes), tokens[2]!])), '--keys', keysFile], env())
  assert.equal(run.code, 4, run.stderr)
  assert.equal(run.stdout, '')
  assert.match(run.stderr, /NOT verified: row 2 \(line 3: 2026-11-02T09:00:01\.000Z, campaign cmp_a\): bad signature: /)
})

test('a repeated nonce, or a key the service never published: exit 4 naming the row', async () => {
  const twice = await adctl(['ledger', 'verify', '--tokens', file('twice.csv', v4Csv([tokens[0]!, tokens[1]!, tokens[0]!])), '--keys', keysFile], env())
  assert.equal(twice.code, 4, twice.stderr)
  assert.match(twice.stderr, /row 3 \(line 4: .*\): repeated nonce: the token's nonce is line 2's/)

  const stranger = await makeIssuer(HOST)
  const foreign = b64url(await mintToken(stranger, challenge))
  const unknown = await adctl(['ledger', 'verify', '--tokens', file('foreign.csv', v4Csv([tokens[0]!, foreign])), '--keys', keysFile, '--json'], env())
  assert.equal(unknown.code, 4, unknown.stderr)
  const answer = JSON.parse(unknown.stdout)
  assert.equal(answer.verified, false)
  assert.equal(answer.discrepancy.kind, 'unknown_key')
  assert.equal(answer.discrepancy.row.line, 3)
  assert.match(unknown.stderr, /row 2 \(line 3: .*\): unknown key: token_key_id [0-9a-f]{64} is none of the 1 published issuer keys/)
})

test('without --keys the keys come from the service\'s /transparency.json (no credentials needed)', async () => {
  const paths: string[] = []
  const server = createServer((req, res) => {
    paths.push(req.url ?? '')
    if (req.url !== '/transparency.json') return res.writeHead(404).end()
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(transparency))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  after(() => server.close())
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const run = await adctl(['ledger', 'verify', '--tokens', join(dir, 'good.csv'), '--api-url', `${url}/v1`], env())
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stdout, /^Verified 3 attestation tokens/)
  assert.deepEqual(paths, ['/transparency.json'])
})

test('usage: --tokens with a range, --keys alone, neither, a missing file', async () => {
  const cases: [string[], RegExp][] = [
    [['--tokens', join(dir, 'good.csv'), '--from', '2026-11-01', '--to', '2026-11-02'], /takes no --from\/--to/],
    [['--keys', keysFile, '--from', '2026-11-01', '--to', '2026-11-02'], /--keys goes with --tokens/],
    [[], /Give --from and --to .* or --tokens FILE/],
    [['--tokens', join(dir, 'missing.csv'), '--keys', keysFile], /Cannot read .*missing\.csv/],
    [['--tokens', join(dir, 'good.csv'), '--keys', join(dir, 'good.csv')], /is not a \/transparency\.json/],
  ]
  for (const [args, message] of cases) {
    const run = await adctl(['ledger', 'verify', ...args], env())
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`)
    assert.match(run.stderr, message)
  }
})
