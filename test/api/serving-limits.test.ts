import assert from 'node:assert/strict'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { test } from 'node:test'
import { Client, useService } from '../helpers/api.ts'
import { createDatabase, startService, STORE } from '../helpers/service.ts'

/**
 * The serving abuse limits are operator config (`serve_*_per_min`, defaults
 * 30 / 3,000 / 6,000): a PATCH takes effect on the next serving request. A
 * request answered 503 gives back the rate-limit units it took, on /v1 and
 * on /serve.
 */
const h = useService()

const DEFAULTS = { serve_decisions_per_viewer_per_min: 30, serve_decisions_per_address_per_min: 3_000, serve_events_per_address_per_min: 6_000 }

const decide = (client: Client, viewer: string) => client.post('/serve/v1/decisions', { surface: 'extension', viewer_id: viewer })

test('the serving abuse limits are in the config with their defaults, bounded like every per-minute figure', async () => {
  const config = (await h.admin.get('/admin/v1/config')).body
  for (const [field, value] of Object.entries(DEFAULTS)) assert.equal(config[field], value, field)
  const refused = await h.admin.patch('/admin/v1/config', { serve_decisions_per_viewer_per_min: 0 })
  assert.equal(refused.status, 400)
  assert.equal(refused.body.detail.field, 'serve_decisions_per_viewer_per_min')
  assert.equal((await h.admin.patch('/admin/v1/config', { serve_events_per_address_per_min: 1.5 })).status, 400)
})

test('a PATCH of the serving limits takes effect on the next serving request', async () => {
  const client = new Client(h)
  try {
    // Per viewer.
    await h.config({ serve_decisions_per_viewer_per_min: 2 })
    for (let i = 0; i < 2; i++) assert.ok([200, 204].includes((await decide(client, 'limited-viewer')).status))
    const refused = await decide(client, 'limited-viewer')
    assert.equal(refused.status, 429, refused.text)
    assert.ok(Number(refused.headers.get('retry-after')) > 0)
    assert.equal(typeof refused.body.detail, 'string')
    // Raised again: the same viewer is served in the same minute.
    await h.config({ serve_decisions_per_viewer_per_min: 30 })
    assert.ok([200, 204].includes((await decide(client, 'limited-viewer')).status))

    // Per address (distinct viewers).
    const office = new Client(h)
    await h.config({ serve_decisions_per_address_per_min: 3 })
    for (let i = 0; i < 3; i++) assert.ok([200, 204].includes((await decide(office, `office-${i}`)).status))
    assert.equal((await decide(office, 'office-3')).status, 429)

    // Views and clicks per address.
    const events = new Client(h)
    await h.config({ serve_events_per_address_per_min: 1 })
    assert.equal((await events.post('/serve/v1/impressions/unknown/view', { dwell_ms: 1000 })).status, 404)
    assert.equal((await events.get('/serve/v1/impressions/unknown/click')).status, 429)
  } finally {
    await h.config(DEFAULTS)
  }
})

test('a /v1 request answered 503 gives its unit of the read budget back', async () => {
  const adv = await h.advertiser()
  await h.config({ read_rate_limit_per_min: 2 })
  try {
    assert.equal((await h.admin.put('/admin/v1/components/exports', { state: 'disabled' })).status, 200)
    for (let i = 0; i < 4; i++) {
      const res = await adv.post('/v1/exports', { start: '2026-10-26T00:00:00Z', end: '2026-11-01T00:00:00Z' })
      assert.equal(res.status, 503, res.text)
    }
    assert.equal((await h.admin.put('/admin/v1/components/exports', { state: 'operational' })).status, 200)
    // The four 503s spent nothing: the whole budget of two is left.
    for (let i = 0; i < 2; i++) assert.equal((await adv.get('/v1/account')).status, 200, `read ${i + 1}`)
    assert.equal((await adv.get('/v1/account')).status, 429, 'the budget itself still holds')
  } finally {
    await h.admin.put('/admin/v1/components/exports', { state: 'operational' })
    await h.config({ read_rate_limit_per_min: 60 })
  }
})

/** A TCP proxy in front of PostgreSQL that can cut every connection and refuse new ones, then take them again. */
class StoreProxy {
  #server: Server | null = null
  readonly #sockets = new Set<Socket>()
  port = 0

  constructor(readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host)
      for (const s of [client, upstream]) {
        this.#sockets.add(s)
        s.on('error', () => {})
        s.on('close', () => {
          client.destroy()
          upstream.destroy()
          this.#sockets.delete(s)
        })
      }
      client.pipe(upstream).pipe(client)
    })
    this.#server = server
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve))
    this.port = (server.address() as { port: number }).port
  }

  /** Cuts every connection and stops listening: the service sees ECONNREFUSED until `open` again. */
  async cut(): Promise<void> {
    const server = this.#server
    this.#server = null
    const closed = new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
    for (const s of this.#sockets) s.destroy()
    await closed
  }
}

test(
  'a /serve decision answered 503 (store unreachable) gives its units back',
  { skip: STORE === 'postgres' ? false : 'needs PostgreSQL behind a TCP proxy (the embedded store is in-process)', timeout: 60_000 },
  async () => {
    const adminUrl = new URL(process.env.TEST_DATABASE_URL!)
    const db = await createDatabase(adminUrl.toString(), 'adapi_refund')
    const proxy = new StoreProxy({ host: adminUrl.hostname, port: Number(adminUrl.port || 5432) })
    await proxy.open()
    const viaProxy = new URL(db.url)
    viaProxy.host = `127.0.0.1:${proxy.port}`
    const svc = await startService({ DATABASE_URL: viaProxy.toString() })
    try {
      const call = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
        fetch(svc.baseUrl + path, {
          method: body === undefined ? 'GET' : path.endsWith('/config') ? 'PATCH' : 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.50', ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
      const patched = await call('/admin/v1/config', { serve_decisions_per_viewer_per_min: 2 }, { authorization: 'Bearer test-admin-token-0123456789' })
      assert.equal(patched.status, 200)
      const decision = () => call('/serve/v1/decisions', { surface: 'extension', viewer_id: 'refunded-viewer' }).then((r) => r.status)

      await proxy.cut()
      await new Promise((r) => setTimeout(r, 300))
      const during = []
      for (let i = 0; i < 5; i++) during.push(await decision())
      assert.deepEqual(during, [503, 503, 503, 503, 503], 'the store is unreachable')

      await proxy.open()
      // None of the five 503s spent the viewer's budget of two.
      for (let i = 0; i < 2; i++) assert.ok([200, 204].includes(await decision()), `decision ${i + 1} after recovery`)
      assert.equal(await decision(), 429, 'the limit itself still holds')
    } finally {
      await svc.close()
      await proxy.cut()
      await db.drop()
    }
  },
)
