/**
 * `adctl webhooks listen --forward-to URL`, as the Stripe CLI's `listen` within what the API
 * offers (webhook endpoints, no event stream): a local server, a temporary endpoint of the account
 * pointing at it (or at --public-url, a tunnel to it), each delivery checked against the
 * endpoint's secret and forwarded as received (body, `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) to the receiver; the receiver's status goes back to the service, so a
 * failing receiver sees the service's retries as it would in production. Ctrl-C removes the endpoint.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ApiError } from 'advertiser-campaign-sdk/client'
import type { ListenOptions } from './commands/webhooks.js'
import type { Context } from './context.js'
import { CliError, EXIT, usage } from './exit.js'
import { instant } from './format.js'

/** The service gives an attempt 10 s (docs/webhooks.md); the receiver gets a little less, so its answer is passed on in time. */
const FORWARD_TIMEOUT_MS = 9_000
const SIGNATURE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const

/** Whether `webhook-signature` holds a `v1,` HMAC-SHA256 of `id.timestamp.body` under the secret (the timestamp's age is the receiver's to judge). */
export function signedBy(secret: string, id: string, timestamp: string, body: Buffer, signature: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest()
  return signature.split(' ').some((s) => {
    const [version, value] = s.split(',')
    const given = Buffer.from(value ?? '', 'base64')
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected)
  })
}

const header = (req: IncomingMessage, name: string) => {
  const v = req.headers[name]
  return Array.isArray(v) ? v[0] : v
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)))
  return Buffer.concat(chunks)
}

function forwardTarget(url: string): URL {
  let target: URL
  try {
    target = new URL(url)
  } catch {
    throw usage(`--forward-to: ${JSON.stringify(url)} is not a URL (such as http://localhost:3000/webhooks)`)
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw usage('--forward-to: must be an http:// or https:// URL')
  return target
}

export async function listen(ctx: Context, o: ListenOptions & { events: string[] }): Promise<void> {
  const target = forwardTarget(o.forwardTo)
  if (o.publicUrl !== undefined && !/^https?:\/\//.test(o.publicUrl)) throw usage('--public-url: must be the https:// address of a tunnel to --port')
  const client = await ctx.client()
  let secret = ''
  const server = createServer((req, res) => void handle(req, res))

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req)
    const [id = '', timestamp = '', signature = ''] = SIGNATURE_HEADERS.map((h) => header(req, h) ?? '')
    if (req.method !== 'POST' || !id || !timestamp || !signature || secret === '' || !signedBy(secret, id, timestamp, body, signature)) {
      ctx.out.note(`Refused a ${req.method ?? ''} ${req.url ?? ''} without this session's signature (not from the service): not forwarded.`)
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'not signed by this adctl session' }))
      return
    }
    let type = '?'
    try {
      const event: unknown = JSON.parse(body.toString('utf8'))
      if (typeof event === 'object' && event !== null && 'type' in event && typeof event.type === 'string') type = event.type
    } catch {
      // Forwarded as received all the same: the receiver judges its body.
    }
    const started = performance.now()
    const at = instant(new Date(Number(timestamp) * 1000).toISOString())
    try {
      const answer = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': header(req, 'content-type') ?? 'application/json', 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature, 'user-agent': 'adctl-webhooks-listen/0.1.0' },
        body: new Uint8Array(body),
        redirect: 'manual',
        signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      })
      await answer.arrayBuffer().catch(() => undefined)
      const ms = Math.round(performance.now() - started)
      ctx.out.dataLine({ event: { type, webhook_id: id, webhook_timestamp: Number(timestamp), forwarded_to: target.href, status: answer.status, ms } })
      ctx.out.line(`${at}  ${type}  ${id}  → ${answer.status} (${ms} ms)`)
      res.writeHead(answer.status >= 200 && answer.status < 300 ? answer.status : 502).end()
    } catch (e) {
      const reason = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.name === 'TimeoutError' ? `no answer in ${FORWARD_TIMEOUT_MS / 1000} s` : e.message) : String(e)
      ctx.out.dataLine({ event: { type, webhook_id: id, webhook_timestamp: Number(timestamp), forwarded_to: target.href, status: null, error: reason } })
      ctx.out.line(`${at}  ${type}  ${id}  → not delivered to ${target.href}: ${reason} (the service will retry)`)
      res.writeHead(502).end()
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) => reject(new CliError(EXIT.usage, `--port: cannot listen on 127.0.0.1:${o.port ?? 0}: ${e.message}`)))
    server.listen(o.port ?? 0, '127.0.0.1', resolve)
  })
  const address: AddressInfo | string | null = server.address()
  const localPort = typeof address === 'object' && address !== null ? address.port : 0
  const url = o.publicUrl ?? `http://127.0.0.1:${localPort}/adctl-listen`
  let endpoint
  try {
    endpoint = await client.webhooks.create({ url, events: o.events })
  } catch (e) {
    server.close()
    if (e instanceof ApiError && typeof e.detail === 'object' && e.detail.field === 'url' && e.status === 400) {
      throw new CliError(
        EXIT.api,
        `the service will not deliver to ${url} (${e.detail.reason}): it delivers only to public https addresses (a local development service with WEBHOOKS_ALLOW_LOOPBACK=true also to loopback).\nStart an https tunnel to port ${localPort} and pass its address as --public-url (with --port ${localPort}).`,
        [],
        e.detail.reason,
      )
    }
    throw e
  }
  secret = endpoint.secret
  ctx.out.dataLine({ listening: { endpoint_id: endpoint.id, url: endpoint.url, events: endpoint.events, secret: endpoint.secret, forward_to: target.href } })
  ctx.out.note(`Ready: the account's events (${endpoint.events.join(', ')}) reach ${url} (temporary endpoint ${endpoint.id}) and are forwarded to ${target.href}.`)
  ctx.out.note(`This session's signing secret (verify the forwarded events with it): ${endpoint.secret}`)
  ctx.out.note('Ctrl-C stops and removes the endpoint.')

  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'))
    process.once('SIGTERM', () => resolve('SIGTERM'))
  })
  server.close()
  server.closeAllConnections()
  try {
    await client.webhooks.remove(endpoint.id)
    ctx.out.note(`${signal === 'SIGINT' ? 'Stopped' : 'Terminated'}: temporary endpoint ${endpoint.id} removed.`)
  } catch (e) {
    throw new CliError(EXIT.api, `could not remove the temporary endpoint ${endpoint.id} (${e instanceof Error ? e.message : String(e)}): remove it with \`adctl webhooks remove ${endpoint.id}\``)
  }
}
