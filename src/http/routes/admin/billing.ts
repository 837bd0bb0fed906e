import type { App, RouteDeps } from '../../types.ts'
import { errors } from '../../schemas/common.ts'
import { BillingProfileSchema } from '../../schemas/account.ts'
import { CollectionHoldSchema, InvoiceParams, InvoiceSchema, UserParams, VoidInvoiceSchema } from '../../schemas/admin.ts'
import { presentBillingProfile, presentInvoice } from '../../presenters.ts'
import { completeAuthentication, requestNet30, setCollectionHold } from '../../../services/billing-profile.ts'
import { voidInvoice } from '../../../services/billing/adjustments.ts'

const profile = { 200: BillingProfileSchema, ...errors(400, 401, 404, 409) }

/** Operator endpoints that move an account through the billing states (docs/billing.md). */
export function billingStateRoutes(deps: RouteDeps) {
  return async (app: App) => {
    // Stands for the advertiser asking for Net 30 in the portal; POST .../billing with Net 30 approves it.
    app.post('/accounts/:user_id/billing/net30-request', { schema: { params: UserParams, response: profile } }, async (request) =>
      presentBillingProfile(await requestNet30(deps, request.params.user_id), deps.clock.now()),
    )

    // Stands for the card holder completing the processor's authentication (3-D Secure) in the portal.
    app.post('/accounts/:user_id/billing/authenticate', { schema: { params: UserParams, response: profile } }, async (request) =>
      presentBillingProfile(await completeAuthentication(deps, request.params.user_id), deps.clock.now()),
    )

    app.post(
      '/accounts/:user_id/billing/hold',
      { schema: { params: UserParams, body: CollectionHoldSchema, response: profile } },
      async (request) => {
        const hold = request.body.hold === 'paused' || request.body.hold === 'disabled' ? request.body.hold : null
        return presentBillingProfile(await setCollectionHold(deps, request.params.user_id, hold), deps.clock.now())
      },
    )

    app.post(
      '/invoices/:invoice_id/void',
      { schema: { params: InvoiceParams, body: VoidInvoiceSchema, response: { 200: InvoiceSchema, ...errors(400, 401, 404, 409) } } },
      async (request) => presentInvoice(await voidInvoice(deps, request.params.invoice_id, request.body.memo)),
    )
  }
}
