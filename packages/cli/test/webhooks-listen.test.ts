/**
 * `adctl webhooks listen --forward-to URL` end to end (issue 51): the real binary against a started
 * service (loopback deliveries allowed, as on a developer's machine), a real receiver. An event of
 * the account reaches the receiver with the service's body and signature headers, verifiable with
 * the session's secret; a line per event; a request not signed by the service is not forwarded;
 * Ctrl-C removes the temporary endpoint.
 */
import assert from 'node:assert/strict'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, test } from 'node:test'
import { verifyWebhook } from 'advertiser-campaign-sdk'
import { useService } from '../../../test/helpers/api.ts'
import { freshConfigHome, start } from './run.ts'

const h = useService({ WEBHOOKS_ALLOW_LOOPBACK: 'true' }, { read_rate_limit_per_min: 100_000 })
const servers: Server[] = []
after(() => Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))))

async function until<T>(what: string, probe: () => T | undefined, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

test('listen forwards the signed events to the local receiver, a line each, and removes its endpoint on Ctrl-C', async (t) => {
  // The signatures' timestamps come from the service clock; the receiver checks them against its own.
  assert.equal((await h.admin.post('/admin/v1/clock', { now: new Date().toISOString() })).status, 200)
  const adv = await h.advertiser()
  const received: { headers: IncomingHttpHeaders; body: string }[] = []
  const receiver = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8').on('data', (s: string) => (body += s))
    req.on('end', () => {
      received.push({ headers: req.headers, body })
      res.writeHead(204).end()
    })
  })
  servers.push(receiver)
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const forwardTo = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`

  const env = { ADCTL_API_URL: h.baseUrl, ADCTL_USER_ID: adv.userId, ADCTL_API_KEY: adv.apiKey, XDG_CONFIG_HOME: freshConfigHome() }
  const listening = start(['webhooks', 'listen', '--forward-to', forwardTo, '--events', 'export.ready', '--json'], env)
  t.after(() => listening.child.kill('SIGKILL'))
  let stdout = ''
  listening.child.stdout?.on('data', (s: string) => (stdout += s))
  const lines = () => stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l))
  const ready = await until('the listening line', () => lines()[0]?.listening)
  assert.match(ready.endpoint_id, /^whe_/)
  assert.match(ready.secret, /^whsec_/)
  assert.deepEqual(ready.events, ['export.ready'])
  const endpoints = (await adv.get('/v1/webhook-endpoints')).body.endpoints
  assert.deepEqual(endpoints.map((e: { id: string }) => e.id), [ready.endpoint_id])

  // Not signed by the service: refused, not forwarded.
  const forged = await fetch(ready.url, { method: 'POST', headers: { 'webhook-id': 'msg_x', 'webhook-timestamp': '1', 'webhook-signature': 'v1,AAAA' }, body: '{}' })
  assert.equal(forged.status, 400)

  const now = h.svc.clock.nowMs()
  assert.equal((await adv.post('/v1/exports', { start: new Date(now - 3_600_000).toISOString(), end: new Date(now).toISOString() })).status, 202)
  const event = await until('the forwarded event', () => received[0])
  const verified = verifyWebhook(ready.secret, event.headers, event.body) as { type: string; data: { export_id: string } }
  assert.equal(verified.type, 'export.ready')
  assert.match(verified.data.export_id, /^exp_/)
  assert.match(String(event.headers['webhook-id']), /^msg_/)
  const line = await until('the event line', () => lines().find((l) => l.event)?.event)
  assert.deepEqual({ ...line, ms: 0, webhook_timestamp: 0 }, { type: 'export.ready', webhook_id: event.headers['webhook-id'], webhook_timestamp: 0, forwarded_to: forwardTo, status: 204, ms: 0 })
  assert.equal(received.length, 1, 'only the signed event was forwarded')

  listening.child.kill('SIGINT')
  const run = await listening.done
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stderr, /Ready: the account's events \(export\.ready\) reach http:\/\/127\.0\.0\.1:\d+\/adctl-listen/)
  assert.match(run.stderr, /Refused a POST \/adctl-listen without this session's signature/)
  assert.match(run.stderr, new RegExp(`Stopped: temporary endpoint ${ready.endpoint_id} removed\\.`))
  assert.deepEqual((await adv.get('/v1/webhook-endpoints')).body.endpoints, [])
})

test('listen says what to do when the service will not deliver to this machine (loopback refused)', async () => {
  // The same service, but the endpoint address is a tunnel the service refuses (http to a non-loopback name).
  const adv = await h.advertiser()
  const env = { ADCTL_API_URL: h.baseUrl, ADCTL_USER_ID: adv.userId, ADCTL_API_KEY: adv.apiKey, XDG_CONFIG_HOME: freshConfigHome() }
  const run = await start(['webhooks', 'listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--public-url', 'http://10.0.0.1/x'], env).done
  assert.equal(run.code, 1, run.stderr)
  assert.match(run.stderr, /^adctl: error: the service will not deliver to http:\/\/10\.0\.0\.1\/x \(\w+\)/)
  assert.match(run.stderr, /\nadctl: error: Start an https tunnel to port \d+ and pass its address as --public-url/)
  assert.deepEqual((await adv.get('/v1/webhook-endpoints')).body.endpoints, [])
})
