import type { FastifyReply, FastifyRequest } from 'fastify'
import { apiKeyMatches } from '../../domain/api-keys.ts'
import { writeDenial } from '../../domain/access.ts'
import { ApiError, tooManyRequests, unauthorized } from '../../domain/errors.ts'
import {
  LOCKOUT_MS,
  LOCKOUT_THRESHOLD,
  LOCKOUT_WINDOW_MS,
  RATE_WINDOW_MS,
  rateLimitHeaders,
  windowStart,
  windowState,
} from '../../domain/rate-limits.ts'
import type { CounterStore } from '../../platform/counters.ts'
import type { Clock } from '../../platform/clock.ts'
import { findAccount, touchKeyLastUsed, type AccountRow } from '../../store/accounts.ts'
import { overdueInvoices } from '../../store/billing.ts'
import { readConfig } from '../../store/settings.ts'
import type { Db } from '../../store/db.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated advertiser (set by the /v1 auth hook). */
    account: AccountRow
  }
}

export interface AuthDeps {
  db: Db
  clock: Clock
  counters: CounterStore
}

const KEY_USE_GRANULARITY_MS = 60_000

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
    const lockKey = `auth-lock:${request.ip}`
    const lockedUntil = await safely(request, null, () => deps.counters.lockedUntil(lockKey))
    if (lockedUntil !== null && lockedUntil > nowMs) {
      throw tooManyRequests((lockedUntil - nowMs) / 1000, 'too many failed authentication attempts from this address; retry later')
    }

    const userId = request.headers['x-service-user-id']
    const apiKey = request.headers['x-service-api-key']
    const account = typeof userId === 'string' && userId.length <= 64 ? await findAccount(deps.db, userId) : undefined
    const ok = typeof apiKey === 'string' && apiKey.length <= 128 && apiKeyMatches(apiKey, account?.api_key_hash ?? null)
    if (!ok || !account) {
      const failures = await safely(request, 0, () => deps.counters.logEvent(`auth-fail:${request.ip}`, nowMs, LOCKOUT_WINDOW_MS))
      if (failures >= LOCKOUT_THRESHOLD) {
        await safely(request, undefined, () => deps.counters.lock(lockKey, nowMs + LOCKOUT_MS, LOCKOUT_MS))
      }
      throw unauthorized()
    }
    request.account = account

    const now = deps.clock.now()
    if (account.key_last_used_at === null || now.getTime() - account.key_last_used_at.getTime() >= KEY_USE_GRANULARITY_MS) {
      await touchKeyLastUsed(deps.db, account.user_id, now, KEY_USE_GRANULARITY_MS)
      account.key_last_used_at = now
    }

    const config = await readConfig(deps.db)
    const start = windowStart(nowMs, RATE_WINDOW_MS)
    if (request.method === 'POST' && request.routeOptions.url === '/v1/campaigns') {
      // A create spends its budget only once it is about to make a campaign (createBudget); here it only shows it.
      const spent = await safely(request, 0, () => deps.counters.peek(createBudgetKey(account.user_id), start, RATE_WINDOW_MS))
      reply.headers(rateLimitHeaders('creates', windowState(config.create_rate_limit_per_min, spent, nowMs)))
      return
    }
    const limit = config.read_rate_limit_per_min
    const { current: count } = await safely(request, { current: 0, previous: 0 }, () =>
      deps.counters.increment(`requests:${account.user_id}`, start, RATE_WINDOW_MS),
    )
    const state = windowState(limit, count, nowMs)
    reply.headers(rateLimitHeaders('requests', state))
    if (count > limit) throw tooManyRequests(state.resetMs / 1000, `rate limit exceeded: ${limit} requests per minute`)
  }
}

export const createBudgetKey = (userId: string) => `creates:${userId}`

/**
 * preValidation hook of write routes: 403 before 402, before any body
 * validation. Overdue invoices are read on the service clock at each write,
 * so an invoice falls due without any job running.
 */
export function requireWriteAccess(deps: AuthDeps) {
  return async function writeAccess(request: FastifyRequest): Promise<void> {
    const overdue = await overdueInvoices(deps.db, request.account.user_id, deps.clock.now())
    const denial = writeDenial({ ...request.account, overdue_invoice_ids: overdue.map((i) => i.invoice_id) })
    if (denial) throw new ApiError(denial.status, denial.detail)
  }
}

/** Per-address limit on the public status read (GET /status answers 429 too). */
export function limitByAddress(deps: AuthDeps, perMinute: number) {
  return async function addressLimit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const nowMs = deps.clock.nowMs()
    const { current: count } = await safely(request, { current: 0, previous: 0 }, () =>
      deps.counters.increment(`public:${request.ip}`, windowStart(nowMs, RATE_WINDOW_MS), RATE_WINDOW_MS),
    )
    const state = windowState(perMinute, count, nowMs)
    reply.headers(rateLimitHeaders('requests', state))
    if (count > perMinute) throw tooManyRequests(state.resetMs / 1000, `rate limit exceeded: ${perMinute} requests per minute`)
  }
}
