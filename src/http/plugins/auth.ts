import type { FastifyReply, FastifyRequest } from 'fastify'
import { tooManyRequests, unauthorized } from '../../domain/errors.ts'
import { publicReadKey, RATE_WINDOW_MS, rateLimitHeaders, windowStart, windowState } from '../../domain/rate-limits.ts'
import type { CounterStore } from '../../platform/counters.ts'
import { assertWriteAccess, authenticateKey, readRateLimits, recordKeyUse } from '../../services/access.ts'
import { checkUnderLockout } from '../../services/lockout.ts'
import { noteSpentUnit } from './refunds.ts'
import type { ServiceContext } from '../../services/context.ts'
import type { AccountRow } from '../../services/read-models.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated advertiser (set by the /v1 auth hook). */
    account: AccountRow
  }
}

export interface AuthDeps extends Pick<ServiceContext, 'db' | 'clock'> {
  counters: CounterStore
}

/**
 * Counter-store failures must not take the API down: limits fail open and
 * the failure is logged.
 */
export async function safely<T>(request: FastifyRequest, fallback: T, op: () => Promise<T>): Promise<T> {
  try {
    return await op()
  } catch (err) {
    request.log.warn({ err }, 'rate-limit store unavailable; failing open')
    return fallback
  }
}

/**
 * onRequest hook for authenticated /v1 routes: lockout check, credential
 * check (uniform 401), key-use stamp, then the per-account rate limit (the
 * read budget; POST /campaigns only reports its create budget here).
 */
export function authenticate(deps: AuthDeps) {
  return async function authHook(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const nowMs = deps.clock.nowMs()
    const failOpen = (err: unknown) => request.log.warn({ err }, 'rate-limit store unavailable; failing open')
    const checked = await checkUnderLockout(
      deps,
      'api',
      request.clientAddress,
      () => authenticateKey(deps, request.headers['x-service-user-id'], request.headers['x-service-api-key']),
      failOpen,
    )
    if (!checked.ok && checked.reason === 'locked') throw tooManyRequests(checked.retryAfterS, 'too many failed authentication attempts from this address; retry later')
    if (!checked.ok) throw unauthorized()
    const account = checked.value
    request.account = account
    request.accountId = account.user_id

    await recordKeyUse(deps, account)

    const limits = await readRateLimits(deps)
    const start = windowStart(nowMs, RATE_WINDOW_MS)
    if (request.method === 'POST' && request.routeOptions.url === '/v1/campaigns') {
      // A create spends its budget only once it is about to make a campaign (createBudget); here it only shows it.
      const spent = await safely(request, 0, () => deps.counters.peek(createBudgetKey(account.user_id), start, RATE_WINDOW_MS))
      reply.headers(rateLimitHeaders('creates', windowState(limits.createsPerMin, spent, nowMs)))
      return
    }
    const spent = await spendRequestUnit(deps, request, reply, account.user_id, limits.readsPerMin)
    if (spent.over) throw tooManyRequests(spent.retryAfterS, `rate limit exceeded: ${limits.readsPerMin} requests per minute`)
  }
}

/**
 * Spends one unit of an account's `requests` budget (config.read_rate_limit_per_min, one window
 * counter per account, Redis across instances): every authenticated /v1 call, and every portal
 * action of the signed-in advertiser (routes/portal/budget.ts), so both channels draw on one budget.
 * Sets the RateLimit headers; says whether the unit went over the limit and, if so, when to retry.
 * A 503 answer gives the unit back (refundOn503).
 */
export async function spendRequestUnit(
  deps: AuthDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  userId: string,
  limit: number,
): Promise<{ over: boolean; retryAfterS: number }> {
  const nowMs = deps.clock.nowMs()
  const start = windowStart(nowMs, RATE_WINDOW_MS)
  const key = `requests:${userId}`
  const { current: count } = await safely(request, { current: 0, previous: 0 }, () => deps.counters.increment(key, start, RATE_WINDOW_MS))
  if (count > 0) noteSpentUnit(request, key, start, RATE_WINDOW_MS)
  const state = windowState(limit, count, nowMs)
  reply.headers(rateLimitHeaders('requests', state))
  return { over: count > limit, retryAfterS: Math.max(1, Math.ceil(state.resetMs / 1000)) }
}

export const createBudgetKey = (userId: string) => `creates:${userId}`

/** preValidation hook of write routes: write access (403 before 402) is checked before any body validation. */
export function requireWriteAccess(deps: AuthDeps) {
  return async function writeAccess(request: FastifyRequest): Promise<void> {
    await assertWriteAccess(deps, request.account)
  }
}

/** Per-address limit on the public status read (GET /status answers 429 too). */
export function limitByAddress(deps: AuthDeps, perMinute: number) {
  return async function addressLimit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const nowMs = deps.clock.nowMs()
    const { current: count } = await safely(request, { current: 0, previous: 0 }, () =>
      deps.counters.increment(publicReadKey(request.clientAddress), windowStart(nowMs, RATE_WINDOW_MS), RATE_WINDOW_MS),
    )
    const state = windowState(perMinute, count, nowMs)
    reply.headers(rateLimitHeaders('requests', state))
    if (count > perMinute) throw tooManyRequests(state.resetMs / 1000, `rate limit exceeded: ${perMinute} requests per minute`)
  }
}
