import { Type } from 'typebox'
import type { App, RouteDeps } from '../../types.ts'
import { OverviewPage } from '../../pages/portal/overview.tsx'
import { portalNotice } from '../../pages/portal/notices.ts'
import { presentAccount, presentCampaign } from '../../presenters.ts'
import { readAccountOverview } from '../../../services/accounts.ts'
import { listCampaigns } from '../../../services/lists.ts'

/** `/portal`: what still blocks writes, the balance, the active campaigns. */
export function portalOverviewRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.get('/portal', { schema: { hide: true, querystring: Type.Object({ notice: Type.Optional(Type.String({ maxLength: 40 })) }) } }, async (request, reply) => {
      const a = request.advertiser
      const [overview, campaigns] = await Promise.all([readAccountOverview(deps, a.user_id), listCampaigns(deps, a.user_id, { limit: 50 })])
      const active = campaigns.items.map(presentCampaign).filter((c) => c.status === 'active')
      return reply.page(OverviewPage({ csrf: reply.generateCsrf(), email: a.email, account: presentAccount(a, overview), active, notice: portalNotice(request.query.notice) }))
    })
  }
}
