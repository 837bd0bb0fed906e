import assert from 'node:assert/strict'
import { createServer as createHttpServer, request as httpRequest } from 'node:http'
import { test } from 'node:test'
import { loadSettings } from '../../src/platform/env.ts'
import { startService, ADMIN_TOKEN } from '../helpers/service.ts'

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
