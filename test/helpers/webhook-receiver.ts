import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'

/** One delivery as the receiver saw it, with its signature checked (Standard Webhooks, written here independently of the service). */
export interface Received {
  id: string
  timestamp: number
  signature: string
  body: string
  json: { type: string; timestamp: string; data: Record<string, unknown> }
  /** Whether `webhook-signature` verifies with the receiver's secret. */
  verified: boolean
}

/**
 * Standard Webhooks verification: the secret after `whsec_` is base64, the signed content is
 * `id.timestamp.body`, and the header lists space-separated `v1,<base64>` signatures.
 */
export function verifySignature(secret: string, id: string, timestamp: string, body: string, header: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest()
  return header.split(' ').some((entry) => {
    const [version, sig] = entry.split(',')
    if (version !== 'v1' || !sig) return false
    const given = Buffer.from(sig, 'base64')
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
}

export type Answer = (req: Received, res: ServerResponse) => void

/** A real HTTP receiver on 127.0.0.1: records every POST; `answer` decides the reply (default 200). */
export class WebhookReceiver {
  readonly received: Received[] = []
  secret = ''
  answer: Answer = (_req, res) => void res.writeHead(200).end('ok')
  readonly #server: Server

  private constructor(server: Server) {
    this.#server = server
  }

  static async start(): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | null = null
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = ''
      req.setEncoding('utf8')
      req.on('data', (s: string) => (body += s))
      req.on('end', () => {
        const header = (name: string) => String(req.headers[name] ?? '')
        const got: Received = {
          id: header('webhook-id'),
          timestamp: Number(header('webhook-timestamp')),
          signature: header('webhook-signature'),
          body,
          json: JSON.parse(body),
          verified: verifySignature(receiver!.secret, header('webhook-id'), header('webhook-timestamp'), body, header('webhook-signature')),
        }
        receiver!.received.push(got)
        receiver!.answer(got, res)
      })
    })
    receiver = new WebhookReceiver(server)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
    return receiver
  }

  get url(): string {
    const { port } = this.#server.address() as { port: number }
    return `http://127.0.0.1:${port}/hooks`
  }

  /** Waits until `count` deliveries of `type` (any type when unset) arrived, or fails after `ms`. */
  async waitFor(count: number, type?: string, ms = 20_000): Promise<Received[]> {
    const until = performance.now() + ms
    for (;;) {
      const matching = this.received.filter((r) => type === undefined || r.json.type === type)
      if (matching.length >= count) return matching
      if (performance.now() > until) throw new Error(`${matching.length} of ${count} ${type ?? ''} deliveries within ${ms} ms`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections()
    await new Promise<void>((resolve) => this.#server.close(() => resolve()))
  }
}
