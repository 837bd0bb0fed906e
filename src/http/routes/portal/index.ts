import type { App, RouteDeps } from '../../types.ts'
import { portalSignInRoutes } from './sign-in.ts'
import { portalOverviewRoutes } from './overview.ts'
import { portalCampaignRoutes } from './campaign.ts'
import { portalStatsRoutes } from './stats.ts'
import { requireAdvertiser } from './session.ts'

/**
 * The advertiser portal (operations.md section 5). Pages are thin: they parse
 * the form, call the same services as the API, and render. Signed-in pages sit
 * behind the session hook; each page family is one file.
 */
export function portalRoutes(deps: RouteDeps) {
  return async (app: App) => {
    await app.register(portalSignInRoutes(deps))
    await app.register(async (signedIn) => {
      signedIn.addHook('onRequest', requireAdvertiser(deps))
      for (const routes of [portalOverviewRoutes, portalCampaignRoutes, portalStatsRoutes]) await signedIn.register(routes(deps))
    })
  }
}
