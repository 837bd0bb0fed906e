/**
 * adctl sends the API key to --api-url's origin and nowhere else (issue 49, finding 5): the real
 * binary against real servers on this machine, one answering 307 to another (another loopback port,
 * so another origin) that records what reaches it; and plain http to a host that is not loopback
 * refused (exit 2, nothing sent) unless --insecure-http.
 */
import assert from 'node:assert/strict'
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { networkInterfaces } from 'node:os'
import { after, test } from 'node:test'
import { adctl, freshConfigHome } from './run.ts'

const servers: Server[] = []
after(() => Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))))

/** A server on `host` that records each request's path and API key and answers with `answer`. */
async function recording(answer: (url: string, res: ServerResponse) => void, host = '127.0.0.1') {
  const seen: { url: string; apiKey: string | undefined }[] = []
  const server = createServer((req, res) => {
    const key = req.headers['x-service-api-key']
    seen.push({ url: req.url ?? '', apiKey: Array.isArray(key) ? key[0] : key })
    req.resume().on('end', () => answer(req.url ?? '', res))
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  return { seen, origin: `http://${host}:${(server.address() as AddressInfo).port}` }
}

const KEY = 'sk_live_must_not_travel'
const env = (apiUrl: string) => ({ ADCTL_API_URL: apiUrl, ADCTL_USER_ID: 'usr_1', ADCTL_API_KEY: KEY, XDG_CONFIG_HOME: freshConfigHome() })
const refuse401 = (_url: string, res: ServerResponse) => res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'invalid credentials' }))
const outwardAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address

test('a 307 to another origin fails with a clear error (exit 1) and the key never reaches it', async () => {
  const other = await recording(refuse401)
  const service = await recording((url, res) => res.writeHead(307, { location: `${other.origin}${url}` }).end())
  for (const args of [['account'], ['quote', '--cpm', '2.5'], ['campaigns', 'list']]) {
    const run = await adctl(args, env(service.origin))
    assert.equal(run.code, 1, run.stderr)
    assert.equal(run.stdout, '')
    assert.match(run.stderr, new RegExp(`^adctl: error: GET ${service.origin}/v1/\\S+ was redirected \\(307\\) to ${other.origin}, another origin than ${service.origin}: not followed, and the credentials were not sent there \\(HTTP 307, cross_origin_redirect\\)\n`))
  }
  assert.equal(other.seen.length, 0)
  assert.equal(service.seen.length, 3, 'one request each: a refused redirect is not retried')
})

test('plain http to a host that is not loopback is refused (exit 2, nothing sent) unless --insecure-http', async (t) => {
  const named = await adctl(['account'], env('http://ads.example.com'))
  assert.equal(named.code, 2)
  assert.match(named.stderr, /^adctl: error: refusing plain http:\/\/ to ads\.example\.com: the API key would cross the network unencrypted\. Use https:\/\/, or pass --insecure-http to send it anyway\.\n$/)
  const login = await adctl(['login', '--api-url', 'http://ads.example.com'], { XDG_CONFIG_HOME: freshConfigHome() })
  assert.equal(login.code, 2, 'login refuses before it asks for anything')
  assert.match(login.stderr, /--insecure-http/)

  if (outwardAddress === undefined) return t.skip('this machine has no address outside loopback')
  const remote = await recording(refuse401, outwardAddress)
  const refused = await adctl(['account'], env(remote.origin))
  assert.equal(refused.code, 2, refused.stderr)
  assert.equal(remote.seen.length, 0)
  const allowed = await adctl(['account', '--insecure-http'], env(remote.origin))
  assert.equal(allowed.code, 3, `the request went out and was answered 401: ${allowed.stderr}`)
  assert.deepEqual(remote.seen, [{ url: '/v1/account', apiKey: KEY }])
})
