/**
 * The API key goes to the service's origin and nowhere else (issue 49, finding 5): real HTTP servers
 * on this machine, one answering redirects, another (another port, so another origin) recording what
 * reaches it; and plain http to a host that is not loopback refused before anything is sent.
 */
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { networkInterfaces } from 'node:os'
import { after, test } from 'node:test'
import { AdvertiserClient, ApiError, isLoopbackHost } from '../src/index.ts'

interface Seen {
  method: string
  url: string
  apiKey: string | undefined
  body: string
}

const servers: Server[] = []
after(() => Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))))

/** A server on `host` that records every request and answers it with `answer`. */
async function recording(answer: (req: IncomingMessage, res: ServerResponse, body: string) => void, host = '127.0.0.1') {
  const seen: Seen[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8').on('data', (c: string) => (body += c))
    req.on('end', () => {
      const key = req.headers['x-service-api-key']
      seen.push({ method: req.method ?? '', url: req.url ?? '', apiKey: Array.isArray(key) ? key[0] : key, body })
      answer(req, res, body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  servers.push(server)
  const { port } = server.address() as AddressInfo
  return { seen, origin: `http://${host.includes(':') ? `[${host}]` : host}:${port}` }
}

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
const redirect = (res: ServerResponse, status: number, location: string) => res.writeHead(status, { location }).end()
const KEY = 'sk_live_must_not_travel'
const client = (baseUrl: string, extra: Partial<ConstructorParameters<typeof AdvertiserClient>[0]> = {}) =>
  new AdvertiserClient({ baseUrl, userId: 'usr_1', apiKey: KEY, sleep: async () => {}, ...extra })

/** This machine's first address that is not loopback (a host an http:// URL may not name by default), if it has one. */
const outwardAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address

test('a 307 to another origin (another loopback port) is refused: the key never reaches it, and the call is not retried', async () => {
  const other = await recording((_req, res) => json(res, 200, { user_id: 'usr_1' }))
  const service = await recording((req, res) => redirect(res, 307, `${other.origin}${req.url}`))
  const sdk = client(service.origin)

  for (const call of [() => sdk.account(), () => sdk.campaigns.create({ ad_line: 'Ship faster', destination_url: 'https://acme.dev/', cpm_usd: 2.5, impressions: 1000 }), () => sdk.transparency()]) {
    const refused = await call().then(
      () => assert.fail('a cross-origin redirect was followed'),
      (e: unknown) => e,
    )
    assert.ok(refused instanceof ApiError)
    assert.equal(refused.status, 307)
    assert.equal(refused.reason, 'cross_origin_redirect')
    assert.match(String(refused.detail), new RegExp(`to ${other.origin}, another origin than ${service.origin}`))
  }
  assert.deepEqual(other.seen, [], 'nothing at all reached the other origin')
  assert.deepEqual(
    service.seen.map((s) => `${s.method} ${s.url}`),
    ['GET /v1/account', 'POST /v1/campaigns', 'GET /transparency.json'],
    'each call was sent once: a refused redirect is not retried',
  )
})

test('another host name for the same address and port is another origin too; so is https on the same host', async () => {
  const service = await recording((req, res) => redirect(res, 302, req.url === '/v1/account' ? `http://localhost:${new URL(`http://${req.headers.host}`).port}/v1/status` : 'https://127.0.0.1/v1/status'))
  const sdk = client(service.origin)
  await assert.rejects(sdk.account(), (e: unknown) => e instanceof ApiError && e.reason === 'cross_origin_redirect')
  await assert.rejects(sdk.status(), (e: unknown) => e instanceof ApiError && e.reason === 'cross_origin_redirect')
  assert.equal(service.seen.length, 2)
})

test('a redirect within the origin is followed: 307 keeps the method and body, 303 goes on as a GET, a loop ends', async () => {
  const service = await recording((req, res, body) => {
    if (req.url === '/v1/account') return redirect(res, 307, '/v1/moved/account')
    if (req.url === '/v1/moved/account') return json(res, 200, { user_id: 'usr_1' })
    if (req.url === '/v1/campaigns' && req.method === 'POST') return redirect(res, 308, '/v1/moved/campaigns')
    if (req.url === '/v1/moved/campaigns') return json(res, 201, { campaign_id: 'cmp_1', echoed: JSON.parse(body).ad_line })
    if (req.url === '/v1/preview') return redirect(res, 303, '/v1/moved/preview')
    if (req.url === '/v1/moved/preview') return json(res, 200, { method: req.method })
    if (req.url === '/v1/status') return redirect(res, 307, '/v1/status')
    json(res, 404, { detail: 'no' })
  })
  const sdk = client(service.origin)
  assert.deepEqual(await sdk.account(), { user_id: 'usr_1' })
  assert.deepEqual(await sdk.campaigns.create({ ad_line: 'Ship faster', destination_url: 'https://acme.dev/', cpm_usd: 2.5, impressions: 1000 }), { campaign_id: 'cmp_1', echoed: 'Ship faster' })
  assert.deepEqual(await sdk.previews.create({ ad_line: 'Ship faster', destination_url: 'https://acme.dev/' }), { method: 'GET' })
  await assert.rejects(sdk.status(), (e: unknown) => e instanceof ApiError && e.reason === 'too_many_redirects')
  const moved = service.seen.filter((s) => s.url.startsWith('/v1/moved/'))
  assert.deepEqual(
    moved.map((s) => [s.method, s.url, s.apiKey]),
    [
      ['GET', '/v1/moved/account', KEY],
      ['POST', '/v1/moved/campaigns', KEY],
      ['GET', '/v1/moved/preview', KEY],
    ],
  )
  assert.equal(moved[2]!.body, '', 'a 303 drops the body')
})

test('plain http to a host that is not loopback is refused unless allowInsecureHttp says so; nothing is sent before', async (t) => {
  for (const url of ['http://ads.example.com', 'ftp://127.0.0.1/', 'http://user:pw@127.0.0.1:8080', 'not a url']) {
    let calls = 0
    assert.throws(
      () => client(url, { fetch: async () => (calls++, new Response('{}')) }),
      (e: unknown) => e instanceof TypeError && /AdvertiserClient: /.test(e.message),
      url,
    )
    assert.equal(calls, 0)
  }
  assert.throws(() => client('http://ads.example.com/v1'), /refusing plain http:\/\/ to ads\.example\.com: the API key would cross the network unencrypted\. Use https:\/\/, or pass allowInsecureHttp: true/)
  for (const url of ['https://ads.example.com', 'http://127.0.0.1:8080', 'http://127.9.8.7', 'http://localhost:8080/v1', 'http://[::1]:8080']) assert.doesNotThrow(() => client(url), url)

  if (outwardAddress === undefined) return t.skip('this machine has no address outside loopback')
  const remote = await recording((_req, res) => json(res, 200, { user_id: 'usr_1' }), outwardAddress)
  assert.throws(() => client(remote.origin), /allowInsecureHttp: true/)
  assert.equal(remote.seen.length, 0)
  assert.deepEqual(await client(remote.origin, { allowInsecureHttp: true }).account(), { user_id: 'usr_1' })
  assert.deepEqual(
    remote.seen.map((s) => s.apiKey),
    [KEY],
  )
})

test('isLoopbackHost: localhost, 127.0.0.0/8 and ::1, nothing else', () => {
  for (const host of ['localhost', 'LOCALHOST', 'localhost.', '127.0.0.1', '127.255.0.9', '[::1]']) assert.equal(isLoopbackHost(host), true, host)
  for (const host of ['localhost.example.com', '127.0.0.1.nip.io', '128.0.0.1', '10.0.0.1', '[::2]', '[::ffff:7f00:1]', '0.0.0.0', 'example.com']) assert.equal(isLoopbackHost(host), false, host)
})
