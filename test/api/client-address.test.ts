import assert from 'node:assert/strict'
import { createServer as createHttpServer, request as httpRequest } from 'node:http'
import { test } from 'node:test'
import { loadSettings } from '../../src/platform/env.ts'
import { startService, ADMIN_TOKEN } from '../helpers/service.ts'
import { Scrape } from '../helpers/metrics.ts'

/**
 * TRUST_PROXY is a hop count (operations.md section 1): the client address is
 * that many entries from the right of X-Forwarded-For, so whatever a client
 * writes to the left of what the proxies appended is ignored. Observed
 * through the authentication lockout, which counts failures per address.
 */
async function lockoutProbe(trustProxy: string, chain: (spoofed: string) => string, victimChain: string) {
  const svc = await startService({ TRUST_PROXY: trustProxy })
  try {
    const created = await fetch(`${svc.baseUrl}/admin/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'addr@example.dev' }),
    }).then((r) => r.json() as Promise<{ user_id: string; api_key: string }>)
    const good = { 'x-service-user-id': created.user_id, 'x-service-api-key': created.api_key }
    const bad = { 'x-service-user-id': created.user_id, 'x-service-api-key': 'sk_live_wrong' }
    const call = (xff: string, auth: Record<string, string>) =>
      fetch(`${svc.baseUrl}/v1/account`, { headers: { ...auth, 'x-forwarded-for': xff } }).then((r) => r.status)
    // Ten failures, each claiming another address on the left.
    for (let i = 0; i < 10; i++) assert.equal(await call(chain(`192.0.2.${i + 1}`), bad), 401)
    return {
      attackerAgain: await call(chain('192.0.2.200'), good),
      victim: await call(victimChain, good),
    }
  } finally {
    await svc.close()
  }
}

test('one proxy: the rightmost X-Forwarded-For entry is the client; a spoofed left part neither escapes nor frames anyone', async () => {
  // The proxy appends the real client (198.51.100.7) after whatever the client sent.
  const result = await lockoutProbe('1', (spoofed) => `${spoofed}, 198.51.100.7`, '198.51.100.99')
  assert.equal(result.attackerAgain, 429, 'the attacker stays locked whatever it writes on the left')
  assert.equal(result.victim, 200, 'the addresses it wrote (and others) are not locked')
})

test('two proxies: the second entry from the right is the client', async () => {
  const result = await lockoutProbe('2', (spoofed) => `${spoofed}, 198.51.100.8, 10.0.0.2`, '198.51.100.9, 10.0.0.2')
  assert.equal(result.attackerAgain, 429)
  assert.equal(result.victim, 200, 'another client behind the same inner proxy is not locked')
})

test('TRUST_PROXY must be a hop count: true and false are refused with a clear message', () => {
  for (const value of ['true', 'false', '0', '-1', 'yes', '11']) {
    assert.throws(() => loadSettings({ TRUST_PROXY: value }), /TRUST_PROXY: must be the number of reverse proxies/, value)
  }
  assert.equal(loadSettings({ TRUST_PROXY: '2' }).trustProxy, 2)
  assert.equal(loadSettings({}).trustProxy, 0)
})

/** GET `url` from the local address `from` (any 127.x.y.z reaches a loopback listener): the status. */
function getFrom(from: string, url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { localAddress: from, headers }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', reject)
    req.end()
  })
}

/** A reverse proxy as deployed: forwards to `target`, appending the socket address it saw to X-Forwarded-For. */
async function appendingProxy(target: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createHttpServer((req, res) => {
    const seen = req.socket.remoteAddress ?? ''
    const prior = req.headers['x-forwarded-for']
    const headers = { ...req.headers, 'x-forwarded-for': prior ? `${String(prior)}, ${seen}` : seen }
    const upstream = httpRequest(target + (req.url ?? '/'), { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    upstream.on('error', () => res.writeHead(502).end())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) }
}

async function accountKeys(baseUrl: string): Promise<{ good: Record<string, string>; bad: Record<string, string> }> {
  const created = await fetch(`${baseUrl}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.250' },
    body: JSON.stringify({ email: `spoof-${Math.random().toString(36).slice(2)}@example.dev` }),
  }).then((r) => r.json() as Promise<{ user_id: string; api_key: string }>)
  return {
    good: { 'x-service-user-id': created.user_id, 'x-service-api-key': created.api_key },
    bad: { 'x-service-user-id': created.user_id, 'x-service-api-key': 'sk_live_wrong' },
  }
}

test('no TRUST_PROXY: X-Forwarded-For is ignored, so random values neither escape a lockout nor lock out another address', async () => {
  const svc = await startService({ TRUST_PROXY: '' })
  try {
    const { good, bad } = await accountKeys(svc.baseUrl)
    const url = `${svc.baseUrl}/v1/account`
    // The attacker (127.0.0.2) names the victim (127.0.0.3) and random addresses in X-Forwarded-For.
    for (let i = 0; i < 10; i++) {
      const xff = i % 2 === 0 ? '127.0.0.3' : `203.0.113.${i + 1}`
      assert.equal(await getFrom('127.0.0.2', url, { ...bad, 'x-forwarded-for': xff }), 401)
    }
    assert.equal(await getFrom('127.0.0.2', url, { ...good, 'x-forwarded-for': '203.0.113.200' }), 429, 'no escape by a new X-Forwarded-For')
    assert.equal(await getFrom('127.0.0.3', url, good), 200, 'the address it wrote is not locked')
  } finally {
    await svc.close()
  }
})

test('TRUST_PROXY=1 behind a proxy that appends the socket address: a leftmost entry written by the client changes nothing', async () => {
  const svc = await startService({ TRUST_PROXY: '1' })
  const proxy = await appendingProxy(svc.baseUrl)
  try {
    const { good, bad } = await accountKeys(svc.baseUrl)
    const url = `${proxy.url}/v1/account`
    for (let i = 0; i < 10; i++) {
      const xff = i % 2 === 0 ? '127.0.0.5' : `203.0.113.${i + 1}`
      assert.equal(await getFrom('127.0.0.4', url, { ...bad, 'x-forwarded-for': xff }), 401)
    }
    assert.equal(await getFrom('127.0.0.4', url, { ...good, 'x-forwarded-for': '203.0.113.201' }), 429, 'the attacker stays locked')
    assert.equal(await getFrom('127.0.0.4', url, good), 429, 'also without any header of its own')
    assert.equal(await getFrom('127.0.0.5', url, good), 200, 'the address it wrote is not locked')
  } finally {
    await proxy.close()
    await svc.close()
  }
})

/**
 * Issue 49, finding 3: another spelling of one address (a port, brackets, a zone, leading zeros,
 * IPv4-mapped, or an IPv4 address carried in 6to4, NAT64 or Teredo) is the same source; what is no
 * address at all is the socket's (operations.md section 2, "Invalid traffic"). TRUST_PROXY=1, no
 * proxy in between: the X-Forwarded-For entry a test writes is what the service takes.
 */
async function withService(run: (svc: Awaited<ReturnType<typeof startService>>) => Promise<void>): Promise<void> {
  const svc = await startService({ TRUST_PROXY: '1' })
  try {
    await run(svc)
  } finally {
    await svc.close()
  }
}

/** Ten failed API-key checks, each from the next spelling: then the right key from `then` (the status) and from an unrelated address. */
async function lockedAfter(baseUrl: string, spellings: readonly string[], then: string): Promise<{ again: number; other: number }> {
  const { good, bad } = await accountKeys(baseUrl)
  const call = (xff: string | null, auth: Record<string, string>) =>
    fetch(`${baseUrl}/v1/account`, { headers: { ...auth, ...(xff === null ? {} : { 'x-forwarded-for': xff }) } }).then((r) => r.status)
  for (let i = 0; i < 10; i++) assert.equal(await call(spellings[i % spellings.length]!, bad), 401, spellings[i % spellings.length])
  return { again: await call(then, good), other: await call('198.51.100.254', good) }
}

test('twelve wrong operator tokens from one address with changing ports hit the lockout', async () => {
  await withService(async (svc) => {
    const statuses: number[] = []
    for (let i = 0; i < 12; i++) {
      const res = await fetch(`${svc.baseUrl}/admin/v1/config`, { headers: { authorization: 'Bearer not-the-operator-token', 'x-forwarded-for': `198.18.5.1:${40_000 + i}` } })
      statuses.push(res.status)
    }
    assert.deepEqual(statuses, [...Array<number>(10).fill(401), 429, 429], 'the eleventh is locked out')
    const right = (xff: string) => fetch(`${svc.baseUrl}/admin/v1/config`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-forwarded-for': xff } }).then((r) => r.status)
    assert.equal(await right('198.18.5.1:9'), 429, 'the right token from the locked address, on yet another port')
    assert.equal(await right('198.018.005.001'), 429, 'and with leading zeros')
    assert.equal(await right('198.18.5.2:40000'), 200, 'another address is not locked')
  })
})

test('bracketed IPv6 with a zone and a port, leading zeros and IPv4-mapped spellings are one source each', async () => {
  await withService(async (svc) => {
    const six = await lockedAfter(svc.baseUrl, ['[2001:db8:0:7::5%eth0]:443', '2001:0DB8:0000:0007:0000:0000:0000:0005', '[2001:db8:0:7::9]', '2001:db8:0:7::1%eth0'], '2001:db8:0:7::77')
    assert.deepEqual(six, { again: 429, other: 200 }, 'one /64, however written')
    const four = await lockedAfter(svc.baseUrl, ['198.51.100.40', '198.051.100.040:1', '::ffff:198.51.100.40', '[::ffff:c633:6428]:8080'], '198.51.100.40:2')
    assert.deepEqual(four, { again: 429, other: 200 }, 'one IPv4 address, however written')
  })
})

test('6to4, NAT64 and Teredo addresses lock out the IPv4 address inside them', async () => {
  await withService(async (svc) => {
    // 198.51.100.9 is c633:6409; Teredo carries it inverted, 39cc:9bf6.
    const carriers = ['2002:c633:6409::1', '64:ff9b::198.51.100.9', '64:ff9b:1::c633:6409', '2001:0:4136:e378:8000:63bf:39cc:9bf6', '2002:c633:6409:1::2']
    assert.deepEqual(await lockedAfter(svc.baseUrl, carriers, '198.51.100.9'), { again: 429, other: 200 })
  })
})

test('an X-Forwarded-For entry that is no address falls back to the socket and is counted in adapi_client_address_fallbacks_total', async () => {
  await withService(async (svc) => {
    const fallbacks = async () => {
      const res = await fetch(`${svc.baseUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-forwarded-for': '198.51.100.253' } })
      return new Scrape(await res.text()).value('adapi_client_address_fallbacks_total')
    }
    const before = await fallbacks()
    // Ten failures, each under invented text: none is a source of its own, all are the socket's (127.0.0.1).
    const garbage = ['unknown', 'example.dev', '1.2.3', '1.2.3.4.5', '198.18.5.1:http', '[198.18.5.1]', '2001:db8::00005', '0x7f.0.0.1', '_', 'fe80::1%eth 0']
    const { again, other } = await lockedAfter(svc.baseUrl, garbage, 'also-not-an-address')
    assert.equal(again, 429, 'more invented text does not escape the lockout')
    assert.equal(other, 200)
    const { good } = await accountKeys(svc.baseUrl)
    assert.equal((await fetch(`${svc.baseUrl}/v1/account`, { headers: good })).status, 429, 'the socket address itself is what got locked')
    // Ten failures, the locked retry and the last call without the header (the socket itself: no fallback).
    assert.equal((await fallbacks()) - before, 11)
  })
})

test('the public read limit counts one address with changing ports as one', async () => {
  await withService(async (svc) => {
    const statuses: number[] = []
    for (let i = 0; i < 121; i++) statuses.push((await fetch(`${svc.baseUrl}/v1/status`, { headers: { 'x-forwarded-for': `198.18.9.9:${1024 + i}` } })).status)
    assert.deepEqual(statuses.slice(0, 120), Array<number>(120).fill(200))
    assert.equal(statuses[120], 429, 'the 121st within the minute is refused, whatever its port')
  })
})
