import assert from 'node:assert/strict'
import { test } from 'node:test'
import { freshIp, useService } from '../helpers/api.ts'
import { visibleText } from '../helpers/html.ts'

/**
 * Any unknown path a browser asks for (Accept prefers text/html) is an HTML
 * 404 page with the public navigation (issue 36, point 10); API clients, and
 * every path under /v1, /admin/v1 and /serve, keep the JSON envelope.
 */
const h = useService()

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

async function get(path: string, accept?: string, method = 'GET') {
  const headers: Record<string, string> = { 'x-forwarded-for': freshIp() }
  if (accept !== undefined) headers.accept = accept
  const res = await fetch(`${h.baseUrl}${path}`, { method, headers })
  return { status: res.status, headers: res.headers, text: await res.text() }
}

test('a browser asking for an unknown path gets a page in words, with the public navigation and the pages\' headers', async () => {
  for (const path of ['/no-such-page', '/pricing/2026?ref=x', '/portalx', '/v1x', '/servers']) {
    const res = await get(path, BROWSER)
    assert.equal(res.status, 404, path)
    assert.match(res.headers.get('content-type')!, /^text\/html/, path)
    assert.equal(res.headers.get('cache-control'), 'no-store')
    assert.equal(res.headers.getSetCookie().length, 0, 'no cookie')
    const csp = res.headers.get('content-security-policy')!
    assert.match(csp, /default-src 'none'/)
    assert.match(csp, /script-src 'self'/)
    assert.match(csp, /frame-ancestors 'none'/)
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff')
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer')
    assert.match(res.text, /<title>Page not found · Thinking-line ads<\/title>/)
    assert.equal(res.text.match(/<h1[\s>]/g)?.length, 1)
    const words = visibleText(res.text)
    assert.match(words, /This page does not exist\./)
    assert.doesNotMatch(words, /not_found|path:/, 'no codes')
    for (const href of ['/', '/status', '/portal/login', '/leaderboard', '/docs']) assert.match(res.text, new RegExp(`href="${href}"`), `a link to ${href}`)
  }
  const head = await get('/no-such-page', BROWSER, 'HEAD')
  assert.equal(head.status, 404)
  assert.match(head.headers.get('content-type')!, /^text\/html/)
})

test('API clients keep the JSON envelope; /v1, /admin/v1 and /serve answer JSON even to a browser', async () => {
  const json = async (path: string, accept?: string, method = 'GET') => {
    const res = await get(path, accept, method)
    assert.match(res.headers.get('content-type')!, /^application\/json/, `${method} ${path} (${accept})`)
    return { status: res.status, body: JSON.parse(res.text) as { detail: unknown } }
  }
  for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html;q=0.5', 'text/html;q=0']) {
    const res = await json('/no-such-page', accept)
    assert.equal(res.status, 404)
    assert.deepEqual(res.body.detail, { field: 'path', reason: 'not_found' })
  }
  for (const path of ['/v1/no-such-thing', '/v1', '/admin/v1/nothing', '/serve/v1/nothing', '/serve', '/v1/campaigns/', '/v1//account']) {
    const res = await json(path, BROWSER)
    assert.equal(res.status, 404, path)
    assert.deepEqual(res.body.detail, { field: 'path', reason: 'not_found' })
  }
  // An empty segment or a trailing slash, asked by an API client (or for any method but GET and HEAD): the strict JSON 404.
  for (const [path, accept, method] of [['/status/', 'application/json', 'GET'], ['/a//b', '*/*', 'GET'], ['/leaderboard/', BROWSER, 'POST']] as const) {
    const res = await json(path, accept, method)
    assert.equal(res.status, 404, `${method} ${path}`)
    assert.deepEqual(res.body.detail, { field: 'path', reason: 'not_found' })
  }
  // Under /portal the refusal is the portal's page in words, as every portal error is; still a 404, never a redirect.
  assert.equal((await get('/portal/billing/', undefined, 'POST')).status, 404)
  // A path with routes for other methods is still 405 with Allow, for a browser too.
  const res = await get('/v1/campaigns', BROWSER, 'PUT')
  assert.equal(res.status, 405)
  assert.match(res.headers.get('allow') ?? '', /GET/)
  // Unknown paths for other methods stay JSON (the page is for GET and HEAD).
  assert.equal((await json('/no-such-page', BROWSER, 'DELETE')).status, 404)
})

test('a browser asking for a page with a trailing slash or an empty segment is sent to the page, the query kept (issue 51)', async () => {
  const redirect = async (path: string, method = 'GET') => {
    const res = await fetch(`${h.baseUrl}${path}`, { method, headers: { 'x-forwarded-for': freshIp(), accept: BROWSER }, redirect: 'manual' })
    assert.equal(res.status, 308, `${method} ${path}`)
    return res.headers.get('location')
  }
  assert.equal(await redirect('/status/'), '/status')
  assert.equal(await redirect('/portal/billing/'), '/portal/billing')
  assert.equal(await redirect('/leaderboard//?x=1'), '/leaderboard?x=1')
  assert.equal(await redirect('/portal/billing/', 'HEAD'), '/portal/billing')
  // Never off the site: a path that starts with empty segments stays a path here.
  assert.equal(await redirect('//evil.example/'), '/evil.example')
  // Followed, it is the page.
  const page = await fetch(`${h.baseUrl}/status/`, { headers: { 'x-forwarded-for': freshIp(), accept: BROWSER } })
  assert.equal(page.status, 200)
  assert.match(page.headers.get('content-type')!, /^text\/html/)
  assert.match(await page.text(), /<h1[^>]*>Service status<\/h1>/)
})

test('existing pages and the portal\'s own 404 are unchanged', async () => {
  const home = await get('/', BROWSER)
  assert.equal(home.status, 200)
  assert.doesNotMatch(home.text, /Page not found/)
  const status = await get('/status', BROWSER)
  assert.equal(status.status, 200)
  const api = await get('/v1/status', BROWSER)
  assert.equal(api.status, 200)
  assert.match(api.headers.get('content-type')!, /^application\/json/)
})
