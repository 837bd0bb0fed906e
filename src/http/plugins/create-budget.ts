import type { FastifyReply, FastifyRequest } from 'fastify'
import { tooManyRequests } from '../../domain/errors.ts'
import { RATE_WINDOW_MS, rateLimitHeaders, windowStart, windowState } from '../../domain/rate-limits.ts'
import type { CreateBudget } from '../../services/campaign-creation.ts'
import { createBudgetKey, safely, type AuthDeps } from './auth.ts'

/**
 * The account's create budget (config.create_rate_limit_per_min) for one
 * POST /campaigns. The create service takes one unit right before it
 * inserts the campaign, after the idempotency replay, the validation and the
 * balance checks: a replay and a refused order (400, 402, 403, 409) never
 * spend it, and a replay of a create that succeeded never answers 429.
 *
 * Taking is one atomic increment of the shared window counter (Redis across
 * instances); a take that lands over the limit is given back at once and
 * answers 429, so concurrent creates on any instances never make more than
 * the limit. A create that fails after taking (the insert or the commit)
 * refunds its unit. A crash between the take and the refund loses that unit
 * for the rest of the minute, which errs on the limit's side.
 *
 * `userId` is the API caller's account, or the signed-in advertiser of the
 * portal's create form: one budget per account, whichever channel spends it.
 */
export function createBudget(deps: AuthDeps, request: FastifyRequest, reply: FastifyReply, userId: string = request.account.user_id): CreateBudget {
  const key = createBudgetKey(userId)
  let taken: { startMs: number; limit: number; count: number } | null = null
  return {
    async take(limit) {
      const nowMs = deps.clock.nowMs()
      const startMs = windowStart(nowMs, RATE_WINDOW_MS)
      const { current } = await safely(request, { current: 0, previous: 0 }, () => deps.counters.increment(key, startMs, RATE_WINDOW_MS))
      if (current > limit) {
        await safely(request, undefined, () => deps.counters.decrement(key, startMs, RATE_WINDOW_MS))
        const state = windowState(limit, limit, nowMs)
        reply.headers(rateLimitHeaders('creates', state))
        throw tooManyRequests(state.resetMs / 1000, `rate limit exceeded: ${limit} campaign creations per minute`)
      }
      taken = { startMs, limit, count: current }
      reply.headers(rateLimitHeaders('creates', windowState(limit, current, nowMs)))
    },
    async refund() {
      if (taken === null) return
      const { startMs, limit, count } = taken
      taken = null
      await safely(request, undefined, () => deps.counters.decrement(key, startMs, RATE_WINDOW_MS))
      reply.headers(rateLimitHeaders('creates', windowState(limit, count - 1, deps.clock.nowMs())))
    },
  }
}
