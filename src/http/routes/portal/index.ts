import type { App, RouteDeps } from '../../types.ts'
import { portalSignInRoutes } from './sign-in.ts'
import { portalOverviewRoutes } from './overview.ts'
import { portalKeyRoutes } from './key.ts'
import { portalTermsRoutes } from './terms.ts'
import { portalBillingRoutes } from './billing.ts'
import { portalCampaignRoutes } from './campaigns.ts'
import { portalExportRoutes } from './exports.ts'
import { portalCampaignPageRoutes } from './campaign.ts'
import { portalStatsRoutes } from './stats.ts'
import { portalWebhookRoutes } from './webhooks.ts'
import { requireAdvertiser } from './session.ts'
import { portalRequestBudget } from './budget.ts'
import { refundOn503 } from '../../plugins/refunds.ts'
import { ErrorPage } from '../../pages/error-page.tsx'

/**
 * The advertiser portal (operations.md section 5). Pages are thin: they parse
 * the form, call the same services as the API, and render. Signed-in pages sit
 * behind the session hook and spend the account's API budget (budget.ts);
 * each page family is one file.
 */
export function portalRoutes(deps: RouteDeps) {
  return async (app: App) => {
    await app.register(portalSignInRoutes(deps))
    await app.register(async (signedIn) => {
      signedIn.addHook('onRequest', requireAdvertiser(deps))
      // After the CSRF check and the form's validation: a forged or malformed post spends nothing.
      signedIn.addHook('preHandler', portalRequestBudget(deps))
      signedIn.addHook('onSend', refundOn503(deps))
      const families = [portalOverviewRoutes, portalKeyRoutes, portalTermsRoutes, portalBillingRoutes, portalCampaignRoutes, portalCampaignPageRoutes, portalStatsRoutes, portalExportRoutes, portalWebhookRoutes]
      for (const routes of families) await signedIn.register(routes(deps))
      // Any other path under /portal: a page-shaped 404 (static routes always win over the wildcard).
      signedIn.get('/portal/*', async (_request, reply) => reply.page(ErrorPage({ status: 404, message: 'There is no such page in the portal.' }), 404))
    })
  }
}
