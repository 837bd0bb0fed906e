import swagger from '@fastify/swagger'
import type { App, RouteDeps } from '../../types.ts'
import { adminAuth } from '../../plugins/admin-auth.ts'
import { ADMIN_OPENAPI_DECORATOR, adminOpenApiOptions, documentCommonErrors } from '../../openapi.ts'
import { adminAccountRoutes } from './accounts.ts'
import { adminBillingRoutes } from './billing.ts'
import { adminInvoiceRoutes } from './invoices.ts'
import { adminConfigRoutes } from './config.ts'
import { adminComponentRoutes } from './components.ts'
import { adminModerationRoutes } from './moderation.ts'
import { adminClockRoutes } from './clock.ts'
import { adminJobRoutes } from './jobs.ts'
import { adminOutboxRoutes } from './outbox.ts'
import { adminAccessRoutes } from './access.ts'
import { adminAuditRoutes } from './audit.ts'
import { adminTrafficRoutes } from './traffic.ts'
import { TOKEN_ACTOR } from '../../operator-context.ts'

/**
 * The operator API (operations.md section 3), one file per resource. Mounted
 * under /admin/v1 only when ADMIN_TOKEN is set; every route, its OpenAPI
 * document included, needs the Bearer token.
 */
export function adminRoutes(deps: RouteDeps, token: string) {
  return async (app: App) => {
    app.addHook('onRequest', adminAuth(deps, token))
    // Every action through this API is audited as the token's (services/operator-actions.ts).
    app.addHook('onRequest', async (request) => {
      request.auditActor = TOKEN_ACTOR
    })
    // The token's 401 (and the lockout's 429) on top of the answers every route can give.
    documentCommonErrors(app, 401, 429)

    // A swagger instance of its own, in this context, sees only the operator routes.
    await app.register(swagger, adminOpenApiOptions(deps.settings.publicUrl))
    const document = app.getDecorator<App['swagger']>(ADMIN_OPENAPI_DECORATOR)
    app.get('/openapi.json', { schema: { hide: true } }, async () => document())

    const resources = [
      adminAccountRoutes,
      adminBillingRoutes,
      adminInvoiceRoutes,
      adminConfigRoutes,
      adminComponentRoutes,
      adminModerationRoutes,
      adminClockRoutes,
      adminJobRoutes,
      adminOutboxRoutes,
      adminAccessRoutes,
      adminAuditRoutes,
      adminTrafficRoutes,
    ]
    for (const routes of resources) await app.register(routes(deps))
  }
}
