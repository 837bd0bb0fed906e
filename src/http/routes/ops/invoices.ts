import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { App, RouteDeps } from '../../types.ts'
import { Form, OptionalText } from '../../schemas/pages/forms.ts'
import { VoidForm } from '../../schemas/pages/ops-forms.ts'
import { INVOICE_STATUSES, VoidInvoiceSchema } from '../../schemas/admin/invoices.ts'
import { InvoicesPage, type InvoiceFilter } from '../../pages/ops/invoices.tsx'
import { asOperator } from '../../operator-context.ts'
import { presentInvoice } from '../../presenters.ts'
import { listAccountInvoices, listInvoicesForOperator } from '../../../services/operator-billing.ts'
import { markInvoicePaid, voidInvoice } from '../../../services/operator-actions.ts'
import { attempt, attemptBody } from './forms.ts'
import { frameOf } from './session.ts'

const hide = { hide: true } as const
type InvoiceStatus = (typeof INVOICE_STATUSES)[number]
const isStatus = (s: string | undefined): s is InvoiceStatus => INVOICE_STATUSES.some((x) => x === s)

/** `/ops/invoices`: every account's invoices (GET /admin/v1/invoices) or one account's, mark paid and void. */
export function opsInvoiceRoutes(deps: RouteDeps) {
  return async (app: App) => {
    async function invoicesPage(
      request: FastifyRequest,
      reply: FastifyReply,
      filter: InvoiceFilter & { cursor?: string },
      notice?: string,
      refused?: Parameters<typeof InvoicesPage>[0]['refused'],
      status = 200,
    ) {
      const userId = filter.userId?.trim() || undefined
      const statusFilter = isStatus(filter.status) ? filter.status : undefined
      let invoices
      let next: string | null = null
      if (userId) {
        // One account's invoices are few: the whole list, like GET /admin/v1/accounts/{id}/invoices.
        invoices = (await listAccountInvoices(deps, userId)).filter((i) => statusFilter === undefined || i.status === statusFilter)
      } else {
        const page = await listInvoicesForOperator(deps, statusFilter, { cursor: filter.cursor })
        invoices = page.items
        if (page.nextCursor) next = `/ops/invoices?${new URLSearchParams({ ...(statusFilter ? { status: statusFilter } : {}), cursor: page.nextCursor }).toString()}`
      }
      const frame = frameOf(deps, request, reply, notice)
      return reply.page(InvoicesPage({ frame, filter: { status: statusFilter, userId }, invoices: invoices.map(presentInvoice), next, refused }), status)
    }

    const query = Type.Object({
      status: Type.Optional(Type.String({ maxLength: 40 })),
      user_id: Type.Optional(Type.String({ maxLength: 64 })),
      cursor: Type.Optional(Type.String({ maxLength: 512 })),
      notice: Type.Optional(Type.String({ maxLength: 40 })),
    })
    app.get('/ops/invoices', { schema: { ...hide, querystring: query } }, async (request, reply) => {
      const { status, user_id, cursor, notice } = request.query
      return invoicesPage(request, reply, { status, userId: user_id, cursor }, notice)
    })

    const params = Type.Object({ invoice_id: Type.String({ minLength: 1, maxLength: 64 }) })
    const back = (userId: string | undefined, notice: string) =>
      `/ops/invoices?${new URLSearchParams({ ...(userId ? { user_id: userId } : {}), notice }).toString()}`

    app.post('/ops/invoices/:invoice_id/mark-paid', { schema: { ...hide, params, body: Form({ user_id: OptionalText(64) }) } }, async (request, reply) => {
      const { invoice_id } = request.params
      const result = await attempt(() => markInvoicePaid(asOperator(deps, request), invoice_id))
      if (result.ok) return reply.redirect(back(request.body.user_id, 'paid'), 303)
      return invoicesPage(request, reply, { userId: request.body.user_id }, undefined, { invoiceId: invoice_id, errors: result.errors, memo: '' }, result.status)
    })

    app.post('/ops/invoices/:invoice_id/void', { schema: { ...hide, params, body: Type.Intersect([VoidForm, Type.Object({ user_id: OptionalText(64) })]) } }, async (request, reply) => {
      const { invoice_id } = request.params
      const result = await attemptBody(VoidInvoiceSchema, { memo: request.body.memo.trim() }, (body) => voidInvoice(asOperator(deps, request), invoice_id, body.memo))
      if (result.ok) return reply.redirect(back(request.body.user_id, 'voided'), 303)
      const refused = { invoiceId: invoice_id, errors: result.errors, memo: request.body.memo }
      return invoicesPage(request, reply, { userId: request.body.user_id }, undefined, refused, result.status)
    })
  }
}
