import type { FastifyRequest } from 'fastify'
import type { CounterStore } from '../../platform/counters.ts'

/** One rate-limit unit a request took: the window counter it was added to. */
interface SpentUnit {
  key: string
  windowStartMs: number
  windowMs: number
}

const spent = new WeakMap<FastifyRequest, SpentUnit[]>()

/** Notes that `request` took one unit of `key`'s window (so `refundOn503` can give it back). */
export function noteSpentUnit(request: FastifyRequest, key: string, windowStartMs: number, windowMs: number): void {
  const units = spent.get(request)
  if (units) units.push({ key, windowStartMs, windowMs })
  else spent.set(request, [{ key, windowStartMs, windowMs }])
}

/**
 * onSend hook of the rate-limited contexts (/v1, /serve): a request answered
 * 503 (store trouble, a deadline, a disabled component, shutting down) gives
 * back every rate-limit unit it took, so a client's budget is spent only on
 * answers the service could give. The refund is `CounterStore.decrement`
 * (never below zero), like the create budget's; a store failure here is
 * logged and the unit stays spent.
 */
export function refundOn503(deps: { counters: CounterStore }) {
  return async function refund(request: FastifyRequest, reply: { statusCode: number }): Promise<void> {
    if (reply.statusCode !== 503) return
    const units = spent.get(request)
    if (!units) return
    spent.delete(request)
    for (const u of units) {
      try {
        await deps.counters.decrement(u.key, u.windowStartMs, u.windowMs)
      } catch (err) {
        request.log.warn({ err }, 'rate-limit store unavailable; a 503 kept its unit')
      }
    }
  }
}
