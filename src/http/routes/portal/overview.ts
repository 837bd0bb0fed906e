import { Type } from 'typebox'
import type { App, RouteDeps } from '../../types.ts'
import { OverviewPage } from '../../pages/portal/overview.tsx'
import { portalNotice } from '../../pages/portal/notices.ts'
import { presentAccount, presentCampaign } from '../../presenters.ts'
import { readAccountOverview } from '../../../services/accounts.ts'
import { listCampaigns } from '../../../services/lists.ts'

/** `/portal`: what still blocks writes, the balance, the campaigns that need attention, wait for review or serve. */
export function portalOverviewRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.get('/portal', { schema: { hide: true, querystring: Type.Object({ notice: Type.Optional(Type.String({ maxLength: 40 })) }) } }, async (request, reply) => {
      const a = request.advertiser
      const [overview, campaigns] = await Promise.all([readAccountOverview(deps, a.user_id), listCampaigns(deps, a.user_id, { limit: 50 })])
      // The page groups them by the state a person sees (in review, rejected, active: pages/portal/overview-campaigns.tsx).
      const newest = campaigns.items.map(presentCampaign)
      return reply.page(OverviewPage({ csrf: reply.generateCsrf(), email: a.email, account: presentAccount(a, overview), campaigns: newest, notice: portalNotice(request.query.notice) }))
    })
  }
}
