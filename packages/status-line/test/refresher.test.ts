import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { refresh } from '../src/refresher.js'
import { paths, pendingReports, queueReport, readJson, readState } from '../src/state.js'

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
