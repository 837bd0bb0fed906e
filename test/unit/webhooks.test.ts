import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { test } from 'node:test'
import { addressAllowed, checkWebhookUrl, classifyAddress, parseIpv6 } from '../../src/domain/webhook-address.ts'
import { nextAttemptAt, parseEventList, retryDelayMs, WEBHOOK_RETRY_WINDOW_MS } from '../../src/domain/webhooks.ts'
import { loadSettings, SettingsError } from '../../src/platform/env.ts'
import { newWebhookSecret, signWebhook } from '../../src/platform/webhook-transport.ts'
import { checkEndpointUrl } from '../../src/services/webhooks/endpoints.ts'
import type { ServiceContext } from '../../src/services/context.ts'
import { ApiError } from '../../src/domain/errors.ts'

// The webhook rules (src/domain/webhook-address.ts, src/domain/webhooks.ts) and the signature.

test('every forbidden range is refused, IPv4 and IPv6, mapped, NAT64, Teredo and embedded forms included', () => {
  const cases: [string, string][] = [
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.254', 'cgnat'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.169.254', 'link_local'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['192.0.0.8', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fe80::1', 'link_local'],
    ['febf::1', 'link_local'],
    ['fec0::1', 'private'],
    ['fc00::1', 'unique_local'],
    ['fdff:ffff::1', 'unique_local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'ipv4_mapped'],
    ['::ffff:7f00:1', 'ipv4_mapped'],
    ['0:0:0:0:0:ffff:7f00:0001', 'ipv4_mapped'],
    ['::ffff:10.0.0.1', 'ipv4_mapped'],
    ['::ffff:169.254.169.254', 'ipv4_mapped'],
    ['::ffff:8.8.8.8', 'ipv4_mapped'],
    ['::ffff:808:808', 'ipv4_mapped'],
    ['::ffff:0:808:808', 'reserved'],
    ['::10.0.0.1', 'reserved'],
    ['::8.8.8.8', 'reserved'],
    ['64:ff9b:1::808:808', 'nat64_local'],
    ['64:ff9b:1:ffff:ffff:ffff:ffff:ffff', 'nat64_local'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['2001::1', 'teredo'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['2001:0:ffff:ffff:ffff:ffff:ffff:ffff', 'teredo'],
    ['2001:db8::1', 'reserved'],
    ['2001:2::1', 'reserved'],
    ['2001:10::1', 'reserved'],
    ['3fff::1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['64:ff9b::a9fe:a9fe', 'link_local'],
    ['2002:c0a8:101::1', 'private'],
    ['100::1', 'reserved'],
    ['[::1]', 'loopback'],
  ]
  for (const [address, kind] of cases) {
    assert.equal(classifyAddress(address), kind, address)
    assert.equal(addressAllowed(address, false), false, address)
  }
})

test('public addresses are allowed; loopback only with the local-development setting', () => {
  for (const address of ['1.1.1.1', '8.8.8.8', '100.63.255.255', '100.128.0.1', '172.15.0.1', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '2001:4860:4860::8888', '64:ff9b::8.8.8.8', '64:ff9b:2::1', '2002:808:808::1']) {
    assert.equal(classifyAddress(address), 'public', address)
    assert.equal(addressAllowed(address, false), true, address)
  }
  assert.equal(addressAllowed('127.0.0.1', true), true)
  assert.equal(addressAllowed('::1', true), true)
  assert.equal(addressAllowed('10.0.0.1', true), false, 'the setting opens loopback only')
  assert.equal(addressAllowed('169.254.169.254', true), false)
})

test('address text that is not an address is invalid, never public', () => {
  for (const text of ['', 'example.com', '1.2.3', '1.2.3.4.5', '256.1.1.1', '01.2.3.4', '1::2::3', '1:2:3:4:5:6:7:8:9', 'fe80::1%eth0', '::ffff:1.2.3.256', 'gggg::1']) {
    assert.equal(classifyAddress(text), 'invalid', text)
    assert.equal(addressAllowed(text, true), false, text)
  }
  assert.deepEqual(parseIpv6('1:2:3:4:5:6:7:8'), [1, 2, 3, 4, 5, 6, 7, 8])
  assert.deepEqual(parseIpv6('::ffff:1.2.3.4'), [0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304])
})

test('the URL rule: https, at most 500 characters, no credentials, an allowed literal host', () => {
  const reason = (url: string, loopback = false) => {
    const r = checkWebhookUrl(url, loopback)
    return r.ok ? 'ok' : r.reason
  }
  assert.equal(reason('https://hooks.example.com/a?b=c'), 'ok')
  assert.equal(reason('https://hooks.example.com:8443/a'), 'ok')
  assert.equal(reason('http://hooks.example.com/a'), 'https_required')
  assert.equal(reason('http://127.0.0.1:9000/a'), 'https_required')
  assert.equal(reason('http://127.0.0.1:9000/a', true), 'ok')
  assert.equal(reason('http://localhost:9000/a', true), 'ok')
  assert.equal(reason('http://[::1]:9000/a', true), 'ok')
  assert.equal(reason('http://10.0.0.1/a', true), 'https_required')
  assert.equal(reason('https://127.0.0.1/a'), 'forbidden_address')
  assert.equal(reason('https://2130706433/a'), 'forbidden_address', 'the URL parser normalizes numeric hosts first')
  assert.equal(reason('https://[::ffff:a00:1]/a'), 'forbidden_address')
  assert.equal(reason('https://[::ffff:8.8.8.8]/a'), 'forbidden_address', 'the URL parser writes it ::ffff:808:808')
  assert.equal(reason('https://[64:ff9b:1::a00:1]/a'), 'forbidden_address')
  assert.equal(reason('https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/a'), 'forbidden_address')
  assert.equal(reason('https://[64:ff9b::808:808]/a'), 'ok', 'well-known NAT64 of a public address')
  assert.equal(reason('https://u@example.com/'), 'credentials_not_allowed')
  assert.equal(reason('https://:p@example.com/'), 'credentials_not_allowed')
  assert.equal(reason('example.com/a'), 'invalid_url')
  assert.equal(reason(`https://example.com/${'x'.repeat(481)}`), 'too_long')
  assert.equal(reason(`https://example.com/${'x'.repeat(480)}`), 'ok')
  const ok = checkWebhookUrl('https://Example.COM/a#frag', false)
  assert.ok(ok.ok && ok.value.url === 'https://example.com/a' && !ok.value.literal && ok.value.hostname === 'example.com')
})

test('a name resolving to a loopback address is refused at registration unless the setting allows loopback', async () => {
  const ctx = (allow: boolean) => ({ settings: { webhooksAllowLoopback: allow } }) as unknown as ServiceContext
  for (const url of ['https://localhost/hook', 'https://vm/hook']) {
    await assert.rejects(checkEndpointUrl(ctx(false), url), (err: unknown) => err instanceof ApiError && JSON.stringify(err.detail) === '{"field":"url","reason":"forbidden_address"}', url)
  }
  assert.equal(await checkEndpointUrl(ctx(true), 'https://localhost/hook'), 'https://localhost/hook')
})

test('events: known names only, de-duplicated, in catalogue order', () => {
  assert.deepEqual(parseEventList(['export.ready', 'campaign.exhausted', 'export.ready']), { ok: true, events: ['campaign.exhausted', 'export.ready'] })
  assert.deepEqual(parseEventList(['export.ready', 'export.failed']), { ok: false, reason: 'unknown_event', event: 'export.failed' })
  assert.deepEqual(parseEventList([]), { ok: false, reason: 'no_events' })
})

test('backoff: exponential with jitter within ±25 %, capped, never past 24 hours from the event', () => {
  assert.equal(retryDelayMs(1, 0.5), 5_000)
  assert.equal(retryDelayMs(2, 0.5), 20_000)
  assert.equal(retryDelayMs(3, 0.5), 80_000)
  assert.equal(retryDelayMs(1, 0), 3_750)
  assert.equal(retryDelayMs(1, 0.999999), 6_250)
  assert.equal(retryDelayMs(20, 0.5), 4 * 3600_000)
  const event = new Date('2026-11-02T09:00:00Z')
  const until = new Date(event.getTime() + WEBHOOK_RETRY_WINDOW_MS)
  let at = event
  let attempt = 1
  for (;;) {
    const next = nextAttemptAt(at, attempt, 0.5, until)
    if (next === null) break
    assert.ok(next.getTime() > at.getTime() && next.getTime() <= until.getTime())
    at = next
    attempt++
  }
  assert.ok(attempt >= 8 && attempt <= 14, `${attempt} attempts in 24 hours`)
})

test('signature: Standard Webhooks v1 over id.timestamp.body with the decoded secret', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw7Hh6c8QSKmQ='
  const body = '{"type":"export.ready","timestamp":"2026-11-02T09:00:00.000Z","data":{}}'
  const expected = createHmac('sha256', Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw7Hh6c8QSKmQ=', 'base64')).update(`msg_1.1793610000.${body}`).digest('base64')
  assert.equal(signWebhook(secret, 'msg_1', 1793610000, body), `v1,${expected}`)
  const fresh = newWebhookSecret()
  assert.match(fresh, /^whsec_[A-Za-z0-9+/]{43}=$/)
  assert.notEqual(fresh, newWebhookSecret())
})

test('WEBHOOKS_ALLOW_LOOPBACK is true or false (default false); anything else stops start-up', () => {
  assert.equal(loadSettings({}).webhooksAllowLoopback, false)
  assert.equal(loadSettings({ WEBHOOKS_ALLOW_LOOPBACK: 'true' }).webhooksAllowLoopback, true)
  assert.equal(loadSettings({ WEBHOOKS_ALLOW_LOOPBACK: 'false' }).webhooksAllowLoopback, false)
  assert.throws(() => loadSettings({ WEBHOOKS_ALLOW_LOOPBACK: 'yes' }), (err: unknown) => err instanceof SettingsError && /WEBHOOKS_ALLOW_LOOPBACK/.test(err.message))
})

test('a delivery connects to the pinned address only, never follows a redirect, and times out', async () => {
  const { createServer } = await import('node:http')
  const { postPinned, WebhookSendError } = await import('../../src/platform/webhook-transport.ts')
  const hosts: string[] = []
  const server = createServer((req, res) => {
    hosts.push(String(req.headers.host))
    if (req.url === '/hold') return // never answers
    if (req.url === '/redirect') return void res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end()
    res.writeHead(204).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const port = (server.address() as { port: number }).port
  const pinned = { address: '127.0.0.1', family: 4 as const }
  const post = (path: string, timeoutMs = 5_000) =>
    postPinned({ url: new URL(`http://rebound.invalid:${port}${path}`), pinned, headers: {}, body: '{}', timeoutMs })
  try {
    // The name does not resolve at all: only the pinned address is used.
    assert.equal(await post('/ok'), 204)
    assert.equal(hosts[0], `rebound.invalid:${port}`)
    assert.equal(await post('/redirect'), 302, 'the redirect is answered, not followed')
    assert.equal(hosts.length, 2)
    await assert.rejects(post('/hold', 200), (err: unknown) => err instanceof WebhookSendError && err.message === 'timeout')
  } finally {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
})
