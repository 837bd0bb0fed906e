import type { App, RouteDeps } from '../../types.ts'
import { errors } from '../../schemas/common.ts'
import { UserParams } from '../../schemas/admin/accounts.ts'
import { InvoiceListSchema, InvoicePageSchema, InvoiceParams, InvoiceQuery, InvoiceSchema, VoidInvoiceSchema } from '../../schemas/admin/invoices.ts'
import { presentInvoice } from '../../presenters.ts'
import { asOperator } from '../../operator-context.ts'
import { markInvoicePaid, voidInvoice } from '../../../services/operator-actions.ts'
import { listAccountInvoices, listInvoicesForOperator } from '../../../services/operator-billing.ts'

const tags = ['invoices']

/** Invoices: an account's list, recording a payment, voiding. */
export function adminInvoiceRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.get(
      '/invoices',
      {
        schema: {
          summary: "Every account's invoices",
          description: 'Newest first (by finalization), optionally of one `status`, one page at a time (`limit`, `cursor`).',
          tags,
          querystring: InvoiceQuery,
          response: { 200: InvoicePageSchema },
        },
      },
      async (request) => {
        const { status, limit, cursor } = request.query
        const page = await listInvoicesForOperator(deps, status, { limit, cursor })
        return { invoices: page.items.map(presentInvoice), next_cursor: page.nextCursor }
      },
    )

    app.get(
      '/accounts/:user_id/invoices',
      {
        schema: {
          summary: "An account's invoices",
          tags,
          params: UserParams,
          response: { 200: InvoiceListSchema, ...errors(404) },
        },
      },
      async (request) => ({ invoices: (await listAccountInvoices(deps, request.params.user_id)).map(presentInvoice) }),
    )

    app.post(
      '/invoices/:invoice_id/mark-paid',
      {
        schema: {
          summary: 'Record payment of an invoice',
          description: 'Settles any unpaid invoice (Net 30, or auto-pay paid out of band); paying twice is a no-op; a void invoice is 409.',
          tags,
          params: InvoiceParams,
          response: { 200: InvoiceSchema, ...errors(404, 409) },
        },
      },
      async (request) => presentInvoice(await markInvoicePaid(asOperator(deps, request), request.params.invoice_id)),
    )

    app.post(
      '/invoices/:invoice_id/void',
      {
        schema: {
          summary: 'Void an unpaid invoice',
          description:
            'Forgives the amount (never billed again) and returns the credits it applied; 409 `invoice_not_unpaid` for a paid or void invoice.',
          tags,
          params: InvoiceParams,
          body: VoidInvoiceSchema,
          response: { 200: InvoiceSchema, ...errors(404, 409) },
        },
      },
      async (request) => presentInvoice(await voidInvoice(asOperator(deps, request), request.params.invoice_id, request.body.memo)),
    )
  }
}
