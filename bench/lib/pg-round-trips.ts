/**
 * A loopback TCP proxy in front of PostgreSQL that counts the round trips its clients make: the
 * frontend messages after which the server answers (PostgreSQL's protocol, "Message Flow": `Q`, a
 * simple query, and `S`, the Sync that closes an extended-protocol Parse/Bind/Execute sequence;
 * node-postgres sends one of them per query). Bytes pass through unchanged; only the client's side is
 * parsed. For bench/wal-probe.ts's `--round-trips`.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net'

/** Codes of the untyped requests a connection may send before its startup message. */
const SSL_REQUEST = 80877103
const GSSENC_REQUEST = 80877104

export interface RoundTripProxy {
  /** The database URL with the proxy's host and port in place of the server's. */
  url: string
  /** Round trips (`Q` and `S` messages) counted so far, over every connection. */
  count(): number
  close(): Promise<void>
}

/** Counts one client connection's requests: its untyped startup message(s), then typed messages. */
function counter(onRoundTrip: () => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0)
  let startup = true
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
    let at = 0
    for (;;) {
      if (startup) {
        if (pending.length - at < 8) break
        const length = pending.readInt32BE(at)
        if (pending.length - at < length) break
        const code = pending.readInt32BE(at + 4)
        if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) startup = false
        at += length
      } else {
        if (pending.length - at < 5) break
        const length = pending.readInt32BE(at + 1)
        if (pending.length - at < 1 + length) break
        const type = pending[at]
        if (type === 0x51 /* Q */ || type === 0x53 /* S */) onRoundTrip()
        at += 1 + length
      }
    }
    pending = pending.subarray(at)
  }
}

/** Starts the proxy for `databaseUrl` (a TCP host and port; no TLS between the service and the proxy). */
export async function roundTripProxy(databaseUrl: string): Promise<RoundTripProxy> {
  const target = new URL(databaseUrl)
  const host = target.hostname
  const port = Number(target.port || 5432)
  let trips = 0
  const sockets = new Set<Socket>()
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host, port })
    sockets.add(client).add(upstream)
    const count = counter(() => trips++)
    client.on('data', (chunk: Buffer) => {
      count(chunk)
      upstream.write(chunk)
    })
    upstream.pipe(client)
    const end = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    for (const s of [client, upstream]) {
      s.on('close', end)
      s.on('error', end)
    }
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const proxied = new URL(databaseUrl)
  proxied.hostname = '127.0.0.1'
  proxied.port = String((server.address() as { port: number }).port)
  return {
    url: proxied.toString(),
    count: () => trips,
    close: async () => {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
