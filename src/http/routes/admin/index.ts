import swagger from '@fastify/swagger'
import type { App, RouteDeps } from '../../types.ts'
import { adminAuth } from '../../plugins/admin-auth.ts'
import { errors } from '../../schemas/common.ts'
import { ADMIN_OPENAPI_DECORATOR, adminOpenApiOptions } from '../../openapi.ts'
import { adminAccountRoutes } from './accounts.ts'
import { adminBillingRoutes } from './billing.ts'
import { adminInvoiceRoutes } from './invoices.ts'
import { adminConfigRoutes } from './config.ts'
import { adminComponentRoutes } from './components.ts'
import { adminModerationRoutes } from './moderation.ts'
import { adminClockRoutes } from './clock.ts'
import { adminJobRoutes } from './jobs.ts'

/**
 * The operator API (operations.md section 3), one file per resource. Mounted
 * under /admin/v1 only when ADMIN_TOKEN is set; every route, its OpenAPI
 * document included, needs the Bearer token.
 */
export function adminRoutes(deps: RouteDeps, token: string) {
  return async (app: App) => {
    app.addHook('onRequest', adminAuth(token))
    app.addHook('onRoute', (route) => {
      // Answers every operator route can give, documented once: the token (401), the edge's (400; 413/415 for any
      // method that carries a body; 414 with a path parameter) and store trouble (500, 503).
      const schema = (route.schema ??= {})
      const carriesBody = [route.method].flat().some((m) => !['GET', 'HEAD'].includes(m))
      const common = [400, 401, 500, 503, ...(carriesBody ? [413, 415] : []), ...(schema.params ? [414] : [])]
      const declared = typeof schema.response === 'object' && schema.response !== null ? schema.response : {}
      schema.response = { ...errors(...common), ...declared }
    })

    // A swagger instance of its own, in this context, sees only the operator routes.
    await app.register(swagger, adminOpenApiOptions(deps.settings.publicUrl))
    const document = app.getDecorator<App['swagger']>(ADMIN_OPENAPI_DECORATOR)
    app.get('/openapi.json', { schema: { hide: true } }, async () => document())

    await app.register(adminAccountRoutes(deps))
    await app.register(adminBillingRoutes(deps))
    await app.register(adminInvoiceRoutes(deps))
    await app.register(adminConfigRoutes(deps))
    await app.register(adminComponentRoutes(deps))
    await app.register(adminModerationRoutes(deps))
    await app.register(adminClockRoutes(deps))
    await app.register(adminJobRoutes(deps))
  }
}
