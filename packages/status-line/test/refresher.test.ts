import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { after, test } from 'node:test'
import { refresh } from '../src/refresher.js'
import { readRecord } from '../src/record.js'
import { paths, pendingReports, queueReport, readJson, readState } from '../src/state.js'
import { cachePath } from '../src/topics.js'
import { WORKSPACE_ENV } from '../src/workspace.js'

/** A stand-in serving endpoint: answers with `reply`, records every request. */
const requests: { path: string; body: unknown }[] = []
let reply: (path: string) => { status: number; body?: unknown } = () => ({ status: 204 })
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  let text = ''
  req.on('data', (c: Buffer) => (text += c.toString()))
  req.on('end', () => {
    requests.push({ path: req.url ?? '', body: JSON.parse(text) })
    const r = reply(req.url ?? '')
    res.writeHead(r.status, r.body ? { 'content-type': 'application/json' } : {})
    res.end(r.body ? JSON.stringify(r.body) : undefined)
  })
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
after(() => new Promise((resolve) => server.close(resolve)))

const fresh = () => mkdtempSync(join(tmpdir(), 'thinking-line-'))
const clock = () => Date.now()
const ad = (id: string) => ({ impression_id: id, ad_line: 'Line', brand: 'B', icon_url: null, view_url: `${url}/x`, click_url: `${url}/serve/v1/impressions/${id}/click` })

test('a decision request carries the surface, the random viewer id and the country, nothing else', async () => {
  const dir = fresh()
  requests.length = 0
  let n = 0
  reply = () => ({ status: 200, body: ad(`imp_${n++}`) })
  const result = await refresh(dir, { THINKING_LINE_URL: url, THINKING_LINE_COUNTRY: 'de' }, clock)
  assert.deepEqual(result, { sent: 0, fetched: 2, failed: false, noFill: false })
  const viewer = readFileSync(paths(dir).viewer, 'utf8').trim()
  assert.match(viewer, /^[0-9a-f-]{36}$/)
  assert.deepEqual(requests, [
    { path: '/serve/v1/decisions', body: { surface: 'terminal', viewer_id: viewer, country: 'DE' } },
    { path: '/serve/v1/decisions', body: { surface: 'terminal', viewer_id: viewer, country: 'DE' } },
  ])
  const state = readState(dir)
  assert.equal(state.current?.decision.impression_id, 'imp_0')
  assert.equal(state.next?.decision.impression_id, 'imp_1')
})

test('views: 204, 404 and 410 are done for good; a 5xx stays queued and the refresher backs off', async () => {
  const dir = fresh()
  for (const [id, dwell] of [['a', 1_000], ['b', 2_000], ['c', 3_000]] as const) queueReport(dir, { impression_id: id, dwell_ms: dwell, queued_at: 1 })
  reply = (path) => ({ status: path.includes('/a/') ? 204 : path.includes('/b/') ? 410 : 503 })
  requests.length = 0
  const result = await refresh(dir, { THINKING_LINE_URL: url }, clock)
  assert.equal(result.failed, true)
  assert.deepEqual(requests.map((r) => [r.path, r.body]), [
    ['/serve/v1/impressions/a/view', { dwell_ms: 1_000 }],
    ['/serve/v1/impressions/b/view', { dwell_ms: 2_000 }],
    ['/serve/v1/impressions/c/view', { dwell_ms: 3_000 }],
  ])
  assert.deepEqual(pendingReports(dir), ['c.json'])
  const backoff = readJson(paths(dir).backoff) as { failures: number; until: number }
  assert.equal(backoff.failures, 1)
  assert.ok(backoff.until > Date.now())
  // The service is back: c goes, the back-off is cleared, a and b are never sent again.
  reply = (path) => (path.endsWith('/view') ? { status: 204 } : { status: 204 })
  requests.length = 0
  await refresh(dir, { THINKING_LINE_URL: url }, clock)
  assert.deepEqual(requests.map((r) => r.path).filter((p) => p.endsWith('/view')), ['/serve/v1/impressions/c/view'])
  assert.deepEqual(pendingReports(dir), [])
})

test('nothing to show (204): a pause instead of a refresher per invocation', async () => {
  const dir = fresh()
  reply = () => ({ status: 204 })
  const result = await refresh(dir, { THINKING_LINE_URL: url }, clock)
  assert.equal(result.noFill, true)
  const backoff = readJson(paths(dir).backoff) as { until: number }
  assert.ok(backoff.until - Date.now() > 10_000)
})

test('the service unreachable: a failure with a back-off, the view kept', async () => {
  const dir = fresh()
  queueReport(dir, { impression_id: 'z', dwell_ms: 10_000, queued_at: 1 })
  const result = await refresh(dir, { THINKING_LINE_URL: 'http://127.0.0.1:9' }, clock)
  assert.equal(result.failed, true)
  assert.deepEqual(pendingReports(dir), ['z.json'])
})

/** A project whose manifests hold names, versions and paths that must never leave the client. */
function secretProject() {
  const dir = mkdtempSync(join(tmpdir(), 'thinking-line-acme-secret-'))
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: '@acme/secret-app', dependencies: { react: '18.3.1-acme', '@acme/secret-internal': '9.9.9' }, devDependencies: { vitest: '2.1.0' } }))
  writeFileSync(join(dir, 'Dockerfile'), 'FROM registry.acme.internal/base/node:20.11.1\n')
  return dir
}

/** Nothing of the project in what was sent: no path, no package or image name, no version, no file name. */
function assertNothingOf(dir: string, sent: unknown) {
  const text = JSON.stringify(sent)
  for (const secret of [dir, basename(dir), 'acme', 'secret', '18.3.1', '9.9.9', '2.1.0', '20.11.1', 'package.json', 'Dockerfile', 'registry']) assert.ok(!text.includes(secret), `${secret} in ${text}`)
}

test('topics on: a decision request carries only topic names derived from the workspace, nothing else of the project', async () => {
  const dir = fresh()
  const project = secretProject()
  requests.length = 0
  let n = 0
  reply = () => ({ status: 200, body: ad(`imp_${n++}`) })
  const result = await refresh(dir, { THINKING_LINE_URL: url, [WORKSPACE_ENV]: project }, clock)
  assert.equal(result.fetched, 2)
  assert.equal(requests.length, 2)
  for (const r of requests) {
    assert.deepEqual(Object.keys(r.body as object).sort(), ['surface', 'topics', 'viewer_id'])
    assert.deepEqual((r.body as { topics: string[] }).topics, ['react', 'docker', 'vitest', 'nodejs', 'javascript'])
  }
  assertNothingOf(project, requests)
  assertNothingOf(project, readFileSync(cachePath(dir), 'utf8'))
})

test('THINKING_LINE_TOPICS=off: no topics field and no manifest read (nothing derived, nothing cached)', async () => {
  const dir = fresh()
  requests.length = 0
  let n = 0
  reply = () => ({ status: 200, body: ad(`imp_${n++}`) })
  await refresh(dir, { THINKING_LINE_URL: url, THINKING_LINE_TOPICS: 'off', [WORKSPACE_ENV]: secretProject() }, clock)
  assert.equal(requests.length, 2)
  for (const r of requests) assert.deepEqual(Object.keys(r.body as object).sort(), ['surface', 'viewer_id'])
  assert.equal(existsSync(cachePath(dir)), false)
})

test('a service from before topics (400 to the field): asked again without topics, offers still fetched', async () => {
  const dir = fresh()
  requests.length = 0
  let n = 0
  reply = (path) => (path === '/serve/v1/decisions' && 'topics' in (requests.at(-1)?.body as object) ? { status: 400, body: { detail: 'unknown field topics' } } : { status: 200, body: ad(`imp_${n++}`) })
  const result = await refresh(dir, { THINKING_LINE_URL: url, [WORKSPACE_ENV]: secretProject() }, clock)
  assert.deepEqual(result, { sent: 0, fetched: 2, failed: false, noFill: false })
  assert.deepEqual(requests.map((r) => Object.keys(r.body as object).sort().join()), ['surface,topics,viewer_id', 'surface,viewer_id', 'surface,viewer_id'])
})

const BIN = new URL('../bin/thinking-line.js', import.meta.url).pathname

/** Runs the real bin once with the tool's stdin JSON and waits for the refresher it starts to ask for two offers. */
async function invokeBin(env: Record<string, string>, stdin: string) {
  requests.length = 0
  let n = 0
  reply = () => ({ status: 200, body: ad(`imp_${n++}`) })
  const out = await new Promise<string>((resolve) => {
    const child = spawn(process.execPath, [BIN], { env: { PATH: process.env.PATH ?? '', THINKING_LINE_URL: url, ...env }, stdio: ['pipe', 'pipe', 'ignore'] })
    let text = ''
    child.stdout.on('data', (c: Buffer) => (text += c.toString()))
    child.on('close', () => resolve(text))
    child.stdin.on('error', () => {})
    child.stdin.end(stdin)
  })
  for (let i = 0; i < 250 && requests.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 20))
  // The refresher removes its lock when done.
  for (let i = 0; i < 250 && existsSync(paths(env.THINKING_LINE_STATE_DIR ?? '').refreshLock); i++) await new Promise((resolve) => setTimeout(resolve, 20))
  return out
}

test('the real bin: the working directory from stdin reaches the refresher, only topic names reach the service', async () => {
  const project = secretProject()
  const stdin = JSON.stringify({ session_id: 'sess-acme-secret', transcript_path: `${project}/t.jsonl`, model: { display_name: 'Opus' }, workspace: { current_dir: project, project_dir: project } })
  const on = await invokeBin({ THINKING_LINE_STATE_DIR: fresh() }, stdin)
  assert.equal(on, '\n')
  assert.equal(requests.length, 2)
  for (const r of requests) assert.deepEqual(r.body, { surface: 'terminal', viewer_id: (r.body as { viewer_id: string }).viewer_id, topics: ['react', 'docker', 'vitest', 'nodejs', 'javascript'] })
  assertNothingOf(project, requests)

  const state = fresh()
  await invokeBin({ THINKING_LINE_STATE_DIR: state, THINKING_LINE_TOPICS: 'off' }, stdin)
  assert.equal(requests.length, 2)
  for (const r of requests) assert.deepEqual(Object.keys(r.body as object).sort(), ['surface', 'viewer_id'])
  assert.equal(existsSync(cachePath(state)), false)
})

test('each pass is recorded for --check: the last error in words, kept (with its time) after passes that succeed', async () => {
  const dir = fresh()
  queueReport(dir, { impression_id: 'r', dwell_ms: 1_000, queued_at: 1 })
  reply = (path) => ({ status: path.endsWith('/view') ? 503 : 204 })
  await refresh(dir, { THINKING_LINE_URL: url }, clock)
  const failed = readRecord(dir)
  assert.equal(failed?.outcome, 'failed')
  assert.equal(failed?.error?.detail, 'view report: HTTP 503')
  // A decision answered with something that is not one.
  unlinkSync(paths(dir).backoff)
  reply = (path) => (path.endsWith('/view') ? { status: 204 } : { status: 500, body: { detail: 'boom' } })
  await refresh(dir, { THINKING_LINE_URL: url }, clock)
  assert.equal(readRecord(dir)?.error?.detail, 'decision request: HTTP 500')
  const errorAt = readRecord(dir)?.error?.at
  // Back: the pass is ok, the last error stays as it was.
  let k = 0
  reply = (path) => (path.endsWith('/view') ? { status: 204 } : { status: 200, body: ad(`imp_rec_${k++}`) })
  await refresh(dir, { THINKING_LINE_URL: url }, clock)
  const ok = readRecord(dir)
  assert.equal(ok?.outcome, 'ok')
  assert.equal(ok?.fetched, 2)
  assert.deepEqual(ok?.error, { at: errorAt, detail: 'decision request: HTTP 500' })
  // No connection at all: the cause, as Node gives it.
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const port = (closed.address() as AddressInfo).port
  await new Promise((resolve) => closed.close(resolve))
  const refused = fresh()
  await refresh(refused, { THINKING_LINE_URL: `http://127.0.0.1:${port}` }, clock)
  assert.equal(readRecord(refused)?.error?.detail, `decision request: connect ECONNREFUSED 127.0.0.1:${port}`)
  // A port fetch will not use at all (9, discard) is named as such, not as "bad port".
  const blocked = fresh()
  await refresh(blocked, { THINKING_LINE_URL: 'http://127.0.0.1:9' }, clock)
  assert.equal(readRecord(blocked)?.error?.detail, 'decision request: a port fetch refuses to use (on the WHATWG list of blocked ports)')
})
