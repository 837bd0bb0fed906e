/**
 * An HTTP proxy in front of the service that the extension is pointed at (`thinkingLine.serviceUrl`):
 * it records every call as the service receives it (method, path, headers, JSON body, status) and
 * can be stopped (connections refused, as when the service is down) and started again on the same
 * port, or lose one answer (the service did the work, the client never hears it). The service itself
 * is untouched: what is asserted is what crossed the wire.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface RecordedCall {
  method: string
  path: string
  headers: IncomingHttpHeaders
  /** The parsed JSON body, or the raw text when it is not JSON, or null when there is none (binary bodies: their length). */
  body: unknown
  status: number
  /** The service answered, and the proxy cut the connection instead of passing the answer on. */
  lost?: boolean
  /** When the answer came back (performance.now() of the test process). */
  at: number
}

export interface RecordingProxy {
  url: string
  calls: RecordedCall[]
  /** Closes the port: every connection is refused until `start`. */
  stop(): Promise<void>
  /** Listens again on the same port. */
  start(): Promise<void>
  /** The next call that `matches` reaches the service, but its answer is lost (the connection cut). */
  loseNextAnswer(matches: (method: string, path: string) => boolean): void
  close(): Promise<void>
}

function parse(text: string): unknown {
  if (text === '') return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

export async function startRecordingProxy(upstream: string): Promise<RecordingProxy> {
  const calls: RecordedCall[] = []
  let lose: ((method: string, path: string) => boolean) | null = null
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      // Passed on byte for byte (token requests are binary); recorded parsed when JSON or text.
      const raw = Buffer.concat(chunks)
      const text = raw.toString('utf8')
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string' && !['host', 'connection', 'content-length', 'transfer-encoding'].includes(name)) headers[name] = value
      }
      fetch(upstream + (req.url ?? '/'), { method: req.method, headers, body: raw.length === 0 ? undefined : raw, redirect: 'manual' })
        .then(async (r) => {
          const answer = Buffer.from(await r.arrayBuffer())
          const lost = lose !== null && lose(req.method ?? '', req.url ?? '')
          if (lost) lose = null
          calls.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: /^application\/(json|x-www-form-urlencoded)|^text\//.test(req.headers['content-type'] ?? 'text/') ? parse(text) : { bytes: raw.length }, status: r.status, ...(lost ? { lost } : {}), at: performance.now() })
          if (lost) return void res.destroy()
          const out: Record<string, string> = {}
          for (const name of ['content-type', 'location', 'retry-after', 'www-authenticate', 'cache-control']) {
            const value = r.headers.get(name)
            if (value !== null) out[name] = value
          }
          res.writeHead(r.status, out)
          res.end(answer)
        })
        .catch(() => res.destroy())
    })
  }
  let server: Server = createServer(handle)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const stop = async () => {
    if (!server.listening) return
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    stop,
    start: async () => {
      if (server.listening) return
      server = createServer(handle)
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
    },
    close: stop,
    loseNextAnswer: (matches) => void (lose = matches),
  }
}
