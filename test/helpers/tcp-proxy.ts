import { connect, createServer, type AddressInfo, type Socket } from 'node:net'

/**
 * A TCP proxy between the service and a dependency (PostgreSQL, Redis) that
 * can stall: `stall()` stops forwarding both ways while every socket stays
 * open (new connections are accepted, and then hear nothing), as a process
 * stopped with SIGSTOP or a network that drops packets would; `resume()`
 * forwards again, what was held back included.
 */
export interface TcpProxy {
  /** host:port of the proxy. */
  readonly port: number
  stall(): void
  resume(): void
  close(): Promise<void>
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let stalled = false
  const pairs = new Set<{ client: Socket; upstream: Socket }>()

  const server = createServer((client) => {
    const upstream = connect({ host: targetHost, port: targetPort })
    const pair = { client, upstream }
    pairs.add(pair)
    // pipe() resumes its source: a connection made while stalled is piped only on resume().
    if (stalled) {
      client.pause()
      upstream.pause()
    } else {
      client.pipe(upstream)
      upstream.pipe(client)
    }
    const end = () => {
      pairs.delete(pair)
      client.destroy()
      upstream.destroy()
    }
    client.on('error', end).on('close', end)
    upstream.on('error', end).on('close', end)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const { port } = server.address() as AddressInfo

  return {
    port,
    stall() {
      stalled = true
      // pipe() resumes a source on 'drain'; unpiping first keeps both directions held while stalled.
      for (const { client, upstream } of pairs) {
        client.unpipe(upstream)
        upstream.unpipe(client)
        client.pause()
        upstream.pause()
      }
    },
    resume() {
      stalled = false
      for (const { client, upstream } of pairs) {
        client.pipe(upstream)
        upstream.pipe(client)
        client.resume()
        upstream.resume()
      }
    },
    async close() {
      for (const { client, upstream } of pairs) {
        client.destroy()
        upstream.destroy()
      }
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
