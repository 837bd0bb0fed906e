import assert from 'node:assert/strict'
import { test } from 'node:test'
import { freshIp, useService } from '../helpers/api.ts'
import { CLOCK_START } from '../helpers/service.ts'

/**
 * The public status page `/status` (operations.md section 5): the states of
 * GET /v1/status (which keeps answering JSON beside it) in words and with a
 * mark, the write requirements, the generation time on the service clock,
 * and a self-refresh; it follows an operator's component switch.
 */
const h = useService()

async function page() {
  const res = await fetch(`${h.baseUrl}/status`, { headers: { 'x-forwarded-for': freshIp() } })
  return { status: res.status, headers: res.headers, text: await res.text() }
}

/** The row of one component: its state class and the words in it. */
function row(html: string, component: string): { tone: string; words: string } {
  const m = new RegExp(`<tr id="component-${component}">([\\s\\S]*?)</tr>`).exec(html)
  assert.ok(m, `a row for ${component}`)
  const tone = /class="state state-(\w+)"/.exec(m[1]!)![1]!
  return { tone, words: m[1]!.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim() }
}

const COMPONENTS = ['api', 'site_proxy', 'authentication', 'campaign_creation', 'reporting', 'exports', 'invoicing']

test('the page shows every component of GET /v1/status in words, the write requirements and when it was made', async () => {
  const res = await page()
  assert.equal(res.status, 200)
  assert.match(res.headers.get('content-type')!, /^text\/html/)
  assert.equal(res.headers.get('cache-control'), 'no-store')
  assert.equal(res.headers.getSetCookie().length, 0, 'no cookie on a public page')
  assert.match(res.headers.get('content-security-policy')!, /script-src 'self'/)
  assert.match(res.text, /<title>Service status · Thinking-line ads<\/title>/)
  assert.equal(res.text.match(/<h1[\s>]/g)?.length, 1)
  assert.match(res.text, /<body data-refresh="30">/)

  const api = (await h.anonymous.get('/v1/status')).body as { components: Record<string, string>; write_requirements: string[] }
  assert.deepEqual(Object.keys(api.components), COMPONENTS)
  for (const c of COMPONENTS) {
    const r = row(res.text, c)
    assert.equal(api.components[c], 'operational')
    assert.equal(r.tone, 'ok')
    assert.match(r.words, /✓ Operational/)
    assert.match(r.words, new RegExp(c))
  }
  assert.match(res.text, /All components are operational\./)
  for (const req of api.write_requirements) assert.match(res.text, new RegExp(`<code>${req}</code>`))
  assert.match(res.text, /Write approval<\/strong>/)
  assert.match(res.text, /answers 403; one that misses billing answers 402/)
  // The generation time is the service clock's (manual in tests), to the second.
  assert.match(res.text, new RegExp(`<time dateTime="${CLOCK_START}">2026-11-02 09:00:00 UTC</time>`, 'i'))
})

test('the page follows a component switch through PUT /admin/v1/components/{component}, in words, mark and colour', async () => {
  assert.equal((await h.admin.put('/admin/v1/components/campaign_creation', { state: 'disabled' })).status, 200)
  assert.equal((await h.admin.put('/admin/v1/components/exports', { state: 'degraded' })).status, 200)
  let res = await page()
  const creation = row(res.text, 'campaign_creation')
  assert.equal(creation.tone, 'bad')
  assert.match(creation.words, /✕ Disabled/)
  assert.match(creation.words, /refused with 503/)
  const exports = row(res.text, 'exports')
  assert.equal(exports.tone, 'warn')
  assert.match(exports.words, /! Degraded/)
  assert.equal(row(res.text, 'api').tone, 'ok')
  assert.match(res.text, /2 of 7 components are not fully operational\./)
  // The JSON and the page agree.
  const api = (await h.anonymous.get('/v1/status')).body as { components: Record<string, string> }
  assert.equal(api.components.campaign_creation, 'disabled')
  assert.equal(api.components.exports, 'degraded')

  await h.admin.post('/admin/v1/clock', { advance_seconds: 90 })
  assert.equal((await h.admin.put('/admin/v1/components/campaign_creation', { state: 'operational' })).status, 200)
  assert.equal((await h.admin.put('/admin/v1/components/exports', { state: 'operational' })).status, 200)
  res = await page()
  assert.equal(row(res.text, 'campaign_creation').tone, 'ok')
  assert.match(res.text, /All components are operational\./)
  assert.match(res.text, /2026-11-02 09:01:30 UTC/)
})

test('a degraded component says what that means for it (reporting: statistics read from the ledger)', async () => {
  assert.equal((await h.admin.put('/admin/v1/components/reporting', { state: 'degraded' })).status, 200)
  const r = row((await page()).text, 'reporting')
  assert.equal(r.tone, 'warn')
  assert.match(r.words, /rollups are behind/)
  assert.equal((await h.admin.put('/admin/v1/components/reporting', { state: 'operational' })).status, 200)
})

test('/status shares the per-address budget of GET /v1/status and does not replace it', async () => {
  const from = { 'x-forwarded-for': freshIp() }
  const json = await fetch(`${h.baseUrl}/v1/status`, { headers: from })
  assert.match(json.headers.get('content-type')!, /^application\/json/)
  for (let i = 0; i < 119; i++) assert.equal((await fetch(`${h.baseUrl}/status`, { headers: from })).status, 200)
  const limited = await fetch(`${h.baseUrl}/status`, { headers: from })
  assert.equal(limited.status, 429)
  assert.match(limited.headers.get('content-type')!, /^text\/html/)
  assert.match(await limited.text(), /Too many requests/)
})
