import type { FastifyReply, FastifyRequest } from 'fastify'
import type { RouteDeps } from '../../types.ts'
import { ErrorPage } from '../../pages/error-page.tsx'
import { spendRequestUnit } from '../../plugins/auth.ts'
import { readRateLimits } from '../../../services/access.ts'

/**
 * The API's per-account budget, applied to the portal (issue 34): every
 * signed-in portal request spends one unit of the account's `requests`
 * budget (config.read_rate_limit_per_min), the same window counter that every
 * authenticated /v1 call spends, so a script driving the portal gets no more
 * than one driving the API, and the two together no more than either alone.
 * The create form's "Create campaign" spends the create budget instead, as
 * POST /v1/campaigns does (routes/portal/campaigns.ts, `createBudget`); its
 * "Show my place in the auction" is a read and spends this one. Sign-out is
 * outside the signed-in pages and always works.
 *
 * Over budget the answer is a page, not the API's JSON: 429 with Retry-After
 * and the RateLimit headers, sent from here so that no page's own error
 * handler renders a form (and calls its services) instead.
 */
export function portalRequestBudget(deps: RouteDeps) {
  return async function portalBudget(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    if (spendsCreateBudget(request)) return undefined
    const { readsPerMin } = await readRateLimits(deps)
    const spent = await spendRequestUnit(deps, request, reply, request.advertiser.user_id, readsPerMin)
    if (!spent.over) return undefined
    const seconds = spent.retryAfterS
    const message =
      `This account has made more than ${readsPerMin} requests in a minute, through the portal and the API together. ` +
      `Try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.`
    return reply.header('retry-after', String(seconds)).page(ErrorPage({ status: 429, message }), 429)
  }
}

function spendsCreateBudget(request: FastifyRequest): boolean {
  if (request.method !== 'POST' || request.routeOptions.url !== '/portal/campaigns/new') return false
  const body = request.body
  return !(typeof body === 'object' && body !== null && 'action' in body && body.action === 'quote')
}
