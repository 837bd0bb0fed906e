import type { App, RouteDeps } from '../../types.ts'
import { ErrorPage } from '../../pages/error-page.tsx'
import { OPS_HOME } from '../../pages/ops/frame.tsx'
import { opsSignInRoutes } from './sign-in.ts'
import { opsAccountRoutes } from './accounts.ts'
import { opsModerationRoutes } from './moderation.ts'
import { opsSettingsRoutes } from './settings.ts'
import { opsInvoiceRoutes } from './invoices.ts'
import { opsTimeRoutes } from './time.ts'
import { opsAuditRoutes } from './audit.ts'
import { opsTrafficRoutes } from './traffic.ts'
import { requireOperator } from './session.ts'

/**
 * The operator console (operations.md section 5), served only when
 * ADMIN_TOKEN is set. Pages parse the form, turn it into the operator API's
 * body, call the same audited use cases (services/operator-actions.ts) and
 * render; signed-in pages sit behind the operator's session.
 */
export function opsRoutes(deps: RouteDeps) {
  return async (app: App) => {
    await app.register(opsSignInRoutes(deps))
    await app.register(async (signedIn) => {
      signedIn.addHook('onRequest', requireOperator(deps))
      signedIn.get('/ops', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/ops/accounts', 303))
      for (const routes of [opsAccountRoutes, opsModerationRoutes, opsTrafficRoutes, opsSettingsRoutes, opsInvoiceRoutes, opsTimeRoutes, opsAuditRoutes]) await signedIn.register(routes(deps))
      signedIn.get('/ops/*', async (_request, reply) => reply.page(ErrorPage({ status: 404, message: 'There is no such page in the console.', home: OPS_HOME }), 404))
    })
  }
}
