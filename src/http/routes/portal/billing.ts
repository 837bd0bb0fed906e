import { Type } from 'typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { App, RouteDeps } from '../../types.ts'
import { CardForm, EmptyForm } from '../../schemas/pages/forms.ts'
import { BillingPage, type BillingErrors } from '../../pages/portal/billing.tsx'
import { BILLING_REFUSALS } from '../../pages/portal/billing-words.ts'
import { portalNotice } from '../../pages/portal/notices.ts'
import { presentAccount, presentBillingProfile, presentInvoice } from '../../presenters.ts'
import { ApiError } from '../../../domain/errors.ts'
import { enrollBilling, readAccountOverview } from '../../../services/accounts.ts'
import { completeAuthentication, requestNet30 } from '../../../services/billing-profile.ts'
import { listAccountInvoices } from '../../../services/operator-billing.ts'
import { listAccountCredits } from '../../../services/credits.ts'
import { invoiceDaysByInvoice } from '../../../services/invoices.ts'

const hide = { hide: true } as const

/**
 * `/portal/billing` (operations.md section 5): the advertiser's own steps
 * through the services the operator endpoints use (enrollBilling,
 * requestNet30, completeAuthentication), the Balance of GET /v1/account and
 * the invoices of GET /admin/v1/accounts/{id}/invoices. A refusal is shown at
 * its field; success redirects back with a notice.
 */
export function portalBillingRoutes(deps: RouteDeps) {
  async function render(request: FastifyRequest, reply: FastifyReply, options: { errors?: BillingErrors; notice?: string | null; status?: number } = {}) {
    // The account as the session hook just read it: a refused step changed nothing.
    const account = request.advertiser
    const [overview, invoices, credits] = await Promise.all([
      readAccountOverview(deps, account.user_id),
      listAccountInvoices(deps, account.user_id),
      listAccountCredits(deps, account.user_id),
    ])
    const page = BillingPage({
      csrf: reply.generateCsrf(),
      email: account.email,
      account: presentAccount(account, overview),
      invoices: invoices.map(presentInvoice),
      invoiceDays: new Map(
        [...(await invoiceDaysByInvoice(deps, account.user_id, invoices))].map(([id, days]) => [id, days.map((d) => ({ date: d.day, root: d.root, micros: d.micros }))]),
      ),
      credits: credits.map(({ posted_at, memo, amount_cents, ivt_day }) => ({ posted_at, memo, amount_cents, ivt_day })),
      errors: options.errors,
      notice: options.notice,
    })
    return reply.page(page, options.status)
  }

  /** Runs a billing step; a refusal the page knows is shown on the page (with the service's status), anything else is the error page. */
  async function step(request: FastifyRequest, reply: FastifyReply, run: () => Promise<string>) {
    try {
      return reply.redirect(`/portal/billing?notice=${await run()}`, 303)
    } catch (err) {
      const refusal = err instanceof ApiError && typeof err.detail !== 'string' ? BILLING_REFUSALS[err.detail.reason] : undefined
      if (!refusal || !(err instanceof ApiError)) throw err
      return render(request, reply, { errors: { [refusal.field]: refusal.words }, status: err.status })
    }
  }

  return async (app: App) => {
    app.get('/portal/billing', { schema: { ...hide, querystring: Type.Object({ notice: Type.Optional(Type.String({ maxLength: 40 })) }) } }, async (request, reply) =>
      render(request, reply, { notice: portalNotice(request.query.notice) }),
    )

    app.post('/portal/billing/card', { schema: { ...hide, body: CardForm } }, async (request, reply) =>
      step(request, reply, async () => {
        const enrollment = { mode: 'weekly_autopay' as const, card_number: request.body.card_number }
        const account = await enrollBilling(deps, deps.processor, request.advertiser.user_id, enrollment)
        return presentBillingProfile(account, deps.clock.now()).collection_status === 'setup_pending' ? 'card_needs_authentication' : 'card_enrolled'
      }),
    )

    app.post('/portal/billing/net30', { schema: { ...hide, body: EmptyForm } }, async (request, reply) =>
      step(request, reply, async () => {
        await requestNet30(deps, request.advertiser.user_id)
        return 'net30_requested'
      }),
    )

    app.post('/portal/billing/authenticate', { schema: { ...hide, body: EmptyForm } }, async (request, reply) =>
      step(request, reply, async () => {
        await completeAuthentication(deps, request.advertiser.user_id)
        return 'card_authenticated'
      }),
    )
  }
}
