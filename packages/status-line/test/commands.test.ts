/**
 * The bin's other commands (issue 51): `--help`, `--version`, `--check` against a real service and
 * against a port nobody listens on, and the refusal of arguments that are not its own. The line
 * itself is unchanged by all of this: one line on stdout, nothing on stderr, exit 0.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { startService, type TestService } from '../../../test/helpers/service.ts'
import { paths, queueReport } from '../src/state.js'
import { readRecord } from '../src/record.js'

const BIN = new URL('../bin/thinking-line.js', import.meta.url).pathname
const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version

interface Run {
  code: number | null
  out: string
  err: string
}

/** The bin with `args` and only `env` (and PATH): stdout, stderr, exit code. stdin is empty. */
function run(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    child.stderr.on('data', (c: Buffer) => (err += c.toString()))
    child.on('close', (code) => resolve({ code, out, err }))
  })
}

const stateDir = () => mkdtempSync(join(tmpdir(), 'thinking-line-commands-'))

/** A loopback port nobody listens on (taken, then closed). */
async function deadPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no address')
  await new Promise((resolve) => server.close(resolve))
  return address.port
}

/** Polls until the refresher an invocation started has written its record and let go of its lock. */
async function refresherDone(dir: string, ms = 10_000) {
  const until = performance.now() + ms
  while (performance.now() < until) {
    if (readRecord(dir) && !existsSync(paths(dir).refreshLock)) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  assert.fail('the refresher did not finish')
}

/** `--check`'s rows by label. */
function rows(out: string): Map<string, string> {
  const map = new Map<string, string>()
  for (const line of out.split('\n').slice(1)) {
    const m = /^(\S+(?: \S+)?)\s{2,}(.*)$/.exec(line)
    if (m) map.set(m[1]!, m[2]!)
  }
  return map
}

let svc: TestService
before(async () => {
  svc = await startService({ CLOCK: 'system' })
})
after(() => svc.close())

test('--help and -h: usage, options and settings on stdout, exit 0; --version: the version', async () => {
  for (const flag of ['--help', '-h']) {
    const r = await run([flag], { THINKING_LINE_STATE_DIR: stateDir() })
    assert.equal(r.code, 0)
    assert.equal(r.err, '')
    assert.match(r.out, new RegExp(`^thinking-line ${VERSION.replace(/\./g, '\\.')}: `))
    for (const text of ['Usage:', '--prefix TEXT', '--tmux', '--no-links', '--check', '--version', 'THINKING_LINE_URL', 'THINKING_LINE_STATE_DIR', 'THINKING_LINE_MAX_COLUMNS', "tmux run-shell 'thinking-line --check'"]) assert.ok(r.out.includes(text), `${flag} mentions ${text}`)
  }
  const v = await run(['--version'], {})
  assert.deepEqual(v, { code: 0, out: `${VERSION}\n`, err: '' })
})

test('an argument that is not ours is refused on stderr with exit 2, with the nearest option; nothing on stdout', async () => {
  const cases: [string[], string][] = [
    [['--chek'], 'thinking-line: unknown option --chek (did you mean --check?); thinking-line --help lists the options\n'],
    [['--tmux=yes'], 'thinking-line: unknown option --tmux=yes (did you mean --tmux?); thinking-line --help lists the options\n'],
    [['--frobnicate'], 'thinking-line: unknown option --frobnicate; thinking-line --help lists the options\n'],
    [['status'], 'thinking-line: unexpected argument status; thinking-line --help lists the options\n'],
    // An unknown argument wins over everything else asked for.
    [['--help', '-x'], 'thinking-line: unknown option -x; thinking-line --help lists the options\n'],
    [['--tmux', '--prefix', 'P', '--no-link'], 'thinking-line: unknown option --no-link (did you mean --no-links?); thinking-line --help lists the options\n'],
  ]
  for (const [args, err] of cases) {
    const dir = stateDir()
    const r = await run(args, { THINKING_LINE_STATE_DIR: dir, THINKING_LINE_URL: svc.baseUrl })
    assert.deepEqual(r, { code: 2, out: '', err }, args.join(' '))
    assert.ok(!existsSync(paths(dir).state), 'a refused invocation changes no state')
  }
})

test('the line is unchanged: its flags print one line, nothing on stderr, exit 0', async () => {
  const r = await run(['--tmux', '--prefix', 'PR #7', '--no-links'], { THINKING_LINE_STATE_DIR: stateDir(), THINKING_LINE_URL: svc.baseUrl })
  assert.deepEqual(r, { code: 0, out: 'PR ##7\n', err: '' })
})

test('--check against a running service: the URL and where it came from, the answer, then what the refresher met', async () => {
  const dir = stateDir()
  const env = { THINKING_LINE_STATE_DIR: dir, THINKING_LINE_URL: `${svc.baseUrl}/`, THINKING_LINE_COUNTRY: 'de', THINKING_LINE_ATTEST_TOKEN: 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln' }
  const first = await run(['--check'], env)
  assert.equal(first.code, 0, first.out)
  assert.equal(first.err, '')
  assert.equal(first.out.split('\n')[0], `thinking-line ${VERSION}`)
  const before = rows(first.out)
  assert.equal(before.get('URL'), `${svc.baseUrl} (THINKING_LINE_URL)`)
  assert.match(before.get('service') ?? '', /^answered in \d+ ms \(GET \/serve\/v1\/topics, at most 3 s: HTTP 200, \d+ topics\)$/)
  assert.equal(before.get('state directory'), dir)
  assert.equal(before.get('refresher'), 'has not run')
  assert.equal(before.get('last error'), 'none recorded')
  assert.equal(before.get('back-off'), 'none')
  assert.equal(before.get('ads ready'), 'none')
  assert.equal(before.get('views waiting'), '0')
  assert.equal(before.get('attester'), 'THINKING_LINE_ATTEST_TOKEN')
  assert.equal(before.get('tokens'), '0 left')
  assert.equal(before.get('max columns'), 'none')
  assert.equal(before.get('topics'), 'on')
  assert.equal(before.get('country'), 'DE')
  assert.ok(!first.out.includes('eyJ'), 'the attester JWT is never printed')
  assert.ok(!existsSync(paths(dir).state), '--check changes no state and starts no refresher')

  // A line: the refresher asks for ads; no campaign is running, so the service has none (204).
  const line = await run([], env)
  assert.deepEqual(line, { code: 0, out: '\n', err: '' })
  await refresherDone(dir)
  const after = rows((await run(['--check'], env)).out)
  assert.match(after.get('refresher') ?? '', /^last pass (under 1 s|\d+ s) ago, \d{4}-\d\d-\d\dT[\d:.]+Z: the service had no ad to show$/)
  assert.equal(after.get('last error'), 'none recorded')
  assert.match(after.get('back-off') ?? '', /^\d+ s left \(no ad to show\)$/)
})

test('--check against a port nobody listens on: exit 1, the refused connection, the error the refresher recorded, its back-off and the views waiting', async () => {
  const port = await deadPort()
  const dir = stateDir()
  const env = { THINKING_LINE_STATE_DIR: dir, THINKING_LINE_URL: `http://127.0.0.1:${port}` }
  const line = await run([], env)
  assert.deepEqual(line, { code: 0, out: '\n', err: '' })
  await refresherDone(dir)
  // Views left from earlier (one claimed by a refresher now sending it) and a longer back-off.
  queueReport(dir, { impression_id: 'imp_a', dwell_ms: 10_000, queued_at: Date.now() })
  queueReport(dir, { impression_id: 'imp_b', dwell_ms: 10_000, queued_at: Date.now() })
  mkdirSync(paths(dir).reports, { recursive: true })
  writeFileSync(join(paths(dir).reports, `imp_c.json.claimed.${Date.now()}.1.x`), '{}')
  writeFileSync(paths(dir).backoff, JSON.stringify({ failures: 3, until: Date.now() + 60_000 }))

  const r = await run(['--check'], env)
  assert.equal(r.code, 1, r.out)
  assert.equal(r.err, '')
  const shown = rows(r.out)
  assert.equal(shown.get('service'), `no answer: connect ECONNREFUSED 127.0.0.1:${port} (GET /serve/v1/topics, at most 3 s)`)
  assert.match(shown.get('refresher') ?? '', / ago, .*Z: failed$/)
  assert.match(shown.get('last error') ?? '', new RegExp(`^decision request: connect ECONNREFUSED 127\\.0\\.0\\.1:${port} \\((under 1 s|\\d+ s) ago, .*Z\\)$`))
  assert.match(shown.get('back-off') ?? '', /^(1 min|60 s|59 s) left \(3 failed passes in a row\)$/)
  assert.equal(shown.get('views waiting'), '2 (and 1 being sent)')
  assert.equal(shown.get('attester'), 'none (views are not attested)')
  assert.equal(shown.get('tokens'), undefined)
})

test('--check names a URL that is not one, a URL that is not the service, and the default when none is set', async () => {
  const notUrl = await run(['--check'], { THINKING_LINE_STATE_DIR: stateDir(), THINKING_LINE_URL: 'ads.example.com' })
  assert.equal(notUrl.code, 1)
  assert.equal(rows(notUrl.out).get('service'), 'THINKING_LINE_URL is not a URL (it needs http:// or https://)')

  const wrongPath = await run(['--check'], { THINKING_LINE_STATE_DIR: stateDir(), THINKING_LINE_URL: `${svc.baseUrl}/v1` })
  assert.equal(wrongPath.code, 1)
  assert.equal(rows(wrongPath.out).get('service'), "answered HTTP 404, not as the ad service does (GET /serve/v1/topics, at most 3 s); is THINKING_LINE_URL the service's base URL?")

  const missing = join(stateDir(), 'not-yet')
  const unset = await run(['--check'], { THINKING_LINE_STATE_DIR: missing, THINKING_LINE_TOPICS: 'off', THINKING_LINE_MAX_COLUMNS: 'wide' })
  assert.equal(rows(unset.out).get('URL'), 'http://127.0.0.1:8080 (the default: THINKING_LINE_URL is not set in this environment)')
  assert.equal(rows(unset.out).get('state directory'), `${missing} (not made yet: no line has been printed with this setting)`)
  assert.equal(rows(unset.out).get('topics'), 'off')
  assert.equal(rows(unset.out).get('max columns'), 'none (THINKING_LINE_MAX_COLUMNS=wide is not a positive whole number)')
  assert.ok(!existsSync(missing), '--check makes no directory')
})
