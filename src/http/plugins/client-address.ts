import type { FastifyInstance } from 'fastify'
import { canonicalAddress } from '../../domain/traffic-source.ts'
import type { ClientAddressMetrics } from '../../platform/metric-ports.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The client's address, decided once per request (registerClientAddress): canonical, and
     * always an IP address. Everything that counts per client reads this, never `request.ip`.
     */
    clientAddress: string
  }
}

/** What stands for a socket that is already gone (its address is no longer known). */
const UNKNOWN_SOCKET = 'unknown'

/**
 * The client address of one request: what TRUST_PROXY picked (`claimed`: an X-Forwarded-For
 * entry, or the socket's address), canonical (domain/traffic-source.ts#canonicalAddress); when that
 * is no IP address, the socket's own, and `onFallback` is told. A text that is not an address is
 * never a source of its own, so inventing spellings earns nothing (operations.md section 2,
 * "Invalid traffic").
 */
export function decideClientAddress(claimed: string | undefined, socket: string | undefined, onFallback: () => void): string {
  // `request.ip` is undefined once the socket is gone (a client that hung up before the hook ran).
  const canonical = claimed === undefined ? null : canonicalAddress(claimed)
  if (canonical !== null) return canonical
  onFallback()
  return (socket === undefined ? null : canonicalAddress(socket)) ?? socket ?? UNKNOWN_SOCKET
}

/**
 * Decides `request.clientAddress` before any other hook runs (the lockouts, the rate limits, the
 * serving limits and the invalid-traffic bounds read it). Registered on the root instance first.
 */
export function registerClientAddress(app: FastifyInstance, metrics: ClientAddressMetrics): void {
  app.decorateRequest('clientAddress', '')
  const fellBack = () => metrics.clientAddressFallback()
  // A callback hook, not an async one: the serving path pays no extra promise for it.
  app.addHook('onRequest', (request, _reply, done) => {
    // The one reader of request.ip (what TRUST_PROXY picked), as eslint.config.js holds everyone else to.
    // eslint-disable-next-line no-restricted-properties
    request.clientAddress = decideClientAddress(request.ip, request.socket.remoteAddress, fellBack)
    done()
  })
}
