import assert from 'node:assert/strict'
import { gunzipSync } from 'node:zlib'
import { test } from 'node:test'
import { useService } from '../helpers/api.ts'

/**
 * The API reference `/docs` (issue 22): the page, its files served from this
 * origin (no CDN), its strict CSP, and the served description it renders: a
 * request example for every operation with a body and a response example for
 * every operation, each valid against its own schema, the two credential
 * headers as security schemes, rate-limit headers and error answers.
 */
const h = useService()

interface Operation {
  summary?: string
  security?: unknown[]
  requestBody?: { content: Record<string, { example?: unknown }> }
  responses: Record<string, { description: string; headers?: Record<string, { required?: boolean }>; content?: Record<string, { example?: unknown }> }>
}
type Doc = { paths: Record<string, Record<string, Operation>>; components: { securitySchemes: Record<string, { in: string; name: string; description?: string }> } }

const openapi = async (): Promise<Doc> => (await h.anonymous.get('/v1/openapi.json')).body as Doc
const operations = (doc: Doc) => Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })))

test('/docs is a public page with one h1, a title, the strict CSP, no cookie, and only files of this origin', async () => {
  const res = await fetch(`${h.baseUrl}/docs`)
  assert.equal(res.status, 200)
  assert.match(res.headers.get('content-type')!, /^text\/html/)
  const html = await res.text()
  assert.match(html, /<title>API reference · Thinking-line ads<\/title>/)
  assert.equal(html.match(/<h1[\s>]/g)?.length, 1)
  assert.equal(res.headers.getSetCookie().length, 0, 'a public page sets no cookie')
  const csp = res.headers.get('content-security-policy')!
  assert.match(csp, /script-src 'self'(;|$)/)
  assert.match(csp, /style-src 'self'(;|$)/)
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/)
  assert.doesNotMatch(html, /<script>|<script [^>]*>[^<]|<style|style="/, 'no inline script or style')
  // Every script and stylesheet comes from this origin; nothing names another host.
  const sources = [...html.matchAll(/<(?:script|link)[^>]+(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
  for (const src of sources) assert.match(src, /^(\/|data:)/, `${src} is local`)
  assert.ok(sources.includes('/docs/assets/swagger-ui-bundle.js') && sources.includes('/docs/assets/docs.js'))
  // The public navigation.
  for (const label of ['Status', 'Leaderboard', 'API reference']) assert.match(html, new RegExp(`>${label}</a>`))
})

test('without JavaScript the page lists every operation of the served description', async () => {
  const doc = await openapi()
  const html = await (await fetch(`${h.baseUrl}/docs`)).text()
  for (const { path, method, op } of operations(doc)) {
    assert.ok(html.includes(`<code>${method.toUpperCase()}</code>`), method)
    assert.ok(html.includes(`<code>/v1${path}</code>`), path)
    if (op.summary) assert.ok(html.includes(op.summary.replaceAll('&', '&amp;')), op.summary)
  }
})

test("Swagger UI and the page's own files are served from node_modules and this repository, cacheable, gzip on request", async () => {
  for (const [name, type] of [
    ['swagger-ui-bundle.js', /javascript/],
    ['swagger-ui.css', /css/],
    ['docs.js', /javascript/],
    ['docs.css', /css/],
  ] as const) {
    const res = await fetch(`${h.baseUrl}/docs/assets/${name}`, { headers: { 'accept-encoding': 'identity' } })
    assert.equal(res.status, 200, name)
    assert.match(res.headers.get('content-type')!, type)
    const etag = res.headers.get('etag')!
    assert.ok(etag)
    const body = Buffer.from(await res.arrayBuffer())
    assert.ok(body.length > 100)
    const again = await fetch(`${h.baseUrl}/docs/assets/${name}`, { headers: { 'if-none-match': etag } })
    assert.equal(again.status, 304)
  }
  const { request } = await import('undici')
  const gz = await request(`${h.baseUrl}/docs/assets/swagger-ui-bundle.js`, { headers: { 'accept-encoding': 'gzip' } })
  assert.equal(gz.headers['content-encoding'], 'gzip')
  const text = gunzipSync(Buffer.from(await gz.body.arrayBuffer())).toString('utf8')
  assert.match(text, /SwaggerUIBundle/)
  assert.equal((await fetch(`${h.baseUrl}/docs/assets/nothing.js`)).status, 404)
  // The start-up script loads this service's own description and sends nothing elsewhere.
  const init = await (await fetch(`${h.baseUrl}/docs/assets/docs.js`)).text()
  assert.match(init, /url: '\/v1\/openapi.json'/)
  assert.match(init, /validatorUrl: null/)
  assert.doesNotMatch(init, /https?:\/\//)
})

test('every operation has a response example, and one with a body a request example, each valid against its schema', async () => {
  const doc = await openapi()
  const ops = operations(doc)
  assert.ok(ops.length >= 19)
  for (const { path, method, op } of ops) {
    const name = `${method.toUpperCase()} ${path}`
    const success = Object.keys(op.responses).find((s) => s.startsWith('2'))!
    const content = op.responses[success]!.content ?? {}
    const [type, media] = Object.entries(content)[0] ?? []
    assert.ok(media && media.example !== undefined, `${name}: a ${success} example`)
    if (type === 'application/json') {
      assert.deepEqual(h.validator.check(method, path, Number(success), media.example), [], name)
    } else {
      assert.equal(typeof media.example, 'string', `${name}: a ${type} example is text`)
    }
    if (op.requestBody) {
      const request = op.requestBody.content['application/json']?.example
      assert.ok(request !== undefined, `${name}: a request example`)
      assert.deepEqual(h.validator.checkRequest(method, path, request), [], name)
    }
    // Error answers: a meaning of their own and an example in the envelope.
    for (const [status, response] of Object.entries(op.responses)) {
      if (Number(status) < 400) continue
      assert.doesNotMatch(response.description, /^Every non-2xx response/, `${name} ${status}: its own description`)
      const example = response.content?.['application/json']?.example
      assert.ok(example !== undefined, `${name} ${status}: an example`)
      assert.deepEqual(h.validator.check(method, path, Number(status), example), [], `${name} ${status}`)
    }
  }
})

test('the examples are real: the create example makes a campaign, the preview example a preview', async () => {
  const doc = await openapi()
  const adv = await h.advertiser()
  const create = doc.paths['/campaigns']!.post!.requestBody!.content['application/json']!.example as Record<string, unknown>
  const created = await adv.post('/v1/campaigns', { ...create, idempotency_key: `docs-example-${process.pid}` })
  assert.equal(created.status, 201, created.text)
  const shown = doc.paths['/campaigns']!.post!.responses['201']!.content!['application/json']!.example as Record<string, unknown>
  for (const key of ['status', 'moderation_status', 'impressions', 'blocks', 'cpm_usd', 'amount_cents', 'currency', 'billing']) {
    assert.deepEqual(created.body[key], shown[key], key)
  }
  const preview = doc.paths['/preview']!.post!.requestBody!.content['application/json']!.example
  const made = await adv.post('/v1/preview', preview)
  assert.equal(made.status, 201, made.text)
  const render = (doc.paths['/preview']!.post!.responses['201']!.content!['application/json']!.example as { render: unknown }).render
  assert.deepEqual(made.body.render, render)
})

test('the credential headers are security schemes; responses document rate-limit headers, Retry-After and the request id', async () => {
  const doc = await openapi()
  const schemes = Object.values(doc.components.securitySchemes).map((s) => `${s.in}:${s.name}`)
  assert.deepEqual(schemes.sort(), ['header:X-Service-Api-Key', 'header:X-Service-User-Id'])
  for (const s of Object.values(doc.components.securitySchemes)) assert.ok((s.description ?? '').length > 40)
  assert.deepEqual(doc.paths['/status']!.get!.security, [], 'GET /status needs no key')
  for (const { path, method, op } of operations(doc)) {
    for (const [status, response] of Object.entries(op.responses)) {
      const headers = response.headers ?? {}
      assert.ok(headers['X-Request-Id'], `${method} ${path} ${status}: X-Request-Id`)
      if (status !== '401' && status !== '414') assert.ok(headers['RateLimit'] && headers['RateLimit-Policy'], `${method} ${path} ${status}: RateLimit`)
      if (status === '429') assert.equal(headers['Retry-After']?.required, true)
    }
  }
  // What the document says is what the service sends.
  const adv = await h.advertiser()
  const res = await adv.get('/v1/account')
  assert.match(res.headers.get('ratelimit-policy')!, /^"requests";q=\d+;w=60$/)
  assert.match(res.headers.get('ratelimit')!, /^"requests";r=\d+;t=\d+$/)
  assert.ok(res.headers.get('x-request-id'))
})
