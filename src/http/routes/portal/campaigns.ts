import { randomUUID } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { App, RouteDeps } from '../../types.ts'
import { CampaignCreateForm, CampaignQuoteQuery } from '../../schemas/pages/forms.ts'
import { CampaignCreateSchema } from '../../schemas/campaigns.ts'
import { QuoteQuerySchema } from '../../schemas/quote.ts'
import { CampaignListPage } from '../../pages/portal/campaign-list.tsx'
import { CampaignFormPage, newCampaignValues, type CampaignFormValues } from '../../pages/portal/campaign-form.tsx'
import { createProblem } from '../../pages/portal/campaign-form-problems.tsx'
import { portalNotice } from '../../pages/portal/notices.ts'
import { AuctionQuote, type QuoteView } from '../../pages/portal/auction-quote.tsx'
import { renderFragment } from '../../pages/render.ts'
import { presentAccount, presentCampaign } from '../../presenters.ts'
import { createBudget } from '../../plugins/create-budget.ts'
import { storeTroubleError } from '../../plugins/errors.ts'
import { ApiError } from '../../../domain/errors.ts'
import { assertWriteAccess } from '../../../services/access.ts'
import { readAccountOverview } from '../../../services/accounts.ts'
import { createCampaign } from '../../../services/campaign-creation.ts'
import { quoteBidFor } from '../../../services/auction-quote.ts'
import { listCampaigns } from '../../../services/lists.ts'
import { asApiBody, formErrorHandler } from './api-body.ts'
import { campaignBodyFromForm, quoteParamsFromForm, type QuoteFormValues } from './campaign-form.ts'

/** Campaigns per page of the list (the API's paging, a shorter page). */
export const CAMPAIGN_PAGE_SIZE = 20

const ListQuery = Type.Object({
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
  notice: Type.Optional(Type.String({ maxLength: 40 })),
})

async function accountView(deps: RouteDeps, request: FastifyRequest) {
  const a = request.advertiser
  return presentAccount(a, await readAccountOverview(deps, a.user_id))
}

type AccountView = Awaited<ReturnType<typeof accountView>>

/**
 * The auction quote for the form's values, through the API's query schema and
 * the quote service (GET /v1/auction/quote's). A quote the rules refuse (400)
 * is shown as the message the form would show beside that field.
 */
async function quoteView(deps: RouteDeps, request: FastifyRequest, values: QuoteFormValues, account: AccountView): Promise<QuoteView> {
  try {
    const query = asApiBody(request, QuoteQuerySchema, quoteParamsFromForm(values, account.config))
    const { quote, ownImpressionsAhead, orderTotalMicros } = await quoteBidFor(deps, query, request.advertiser.user_id)
    return { quote, ownImpressionsAhead, orderTotalMicros, bidUsd: query.cpm_usd, atFloor: (values.cpm_usd ?? '').trim() === '', maxTotalUsd: account.config.max_total_usd }
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 400) throw err
    const message = Object.values(createProblem(err.status, err.detail, account).fields)[0]
    return { problem: message ? `To see your place in the auction: ${message}` : 'Check the bid and targeting to see your place in the auction.' }
  }
}

/**
 * `/portal/campaigns` (the list, paged like GET /v1/campaigns) and
 * `/portal/campaigns/new` (the create form, which calls the same create use
 * case as POST /v1/campaigns with `creation_channel` `website`).
 */
export function portalCampaignRoutes(deps: RouteDeps) {
  /**
   * A refused create, shown on the form: the API's error at the field it names,
   * the typed values kept. Errors raised before the handler (the edge's input
   * rules) come here too; anything that is not the API's answer (a CSRF
   * refusal, a malformed form, a bug) goes on to the pages' error handler.
   */
  async function showProblem(raised: unknown, request: FastifyRequest, reply: FastifyReply) {
    const error = storeTroubleError(raised, request) ?? raised
    const values = request.body as CampaignFormValues | undefined
    if (!(error instanceof ApiError) || values === undefined || request.advertiser === undefined) throw error
    const account = await accountView(deps, request)
    const problem = createProblem(error.status, error.detail, account)
    const shown = problem.freshKey ? { ...values, idempotency_key: randomUUID() } : values
    if (error.headers['retry-after']) void reply.header('retry-after', error.headers['retry-after'])
    // The quote region stays on the page when it can be computed; store trouble shows the form without it.
    const quote = error.status === 503 ? null : await quoteView(deps, request, values, account).catch(() => null)
    return reply.page(CampaignFormPage({ csrf: reply.generateCsrf(), email: request.advertiser.email, account, values: shown, problem, quote }), error.status)
  }

  return async (app: App) => {
    app.get('/portal/campaigns', { schema: { querystring: ListQuery } }, async (request, reply) => {
      const a = request.advertiser
      const { cursor, notice } = request.query
      const page = await listCampaigns(deps, a.user_id, { limit: CAMPAIGN_PAGE_SIZE, cursor: cursor === '' ? undefined : cursor })
      return reply.page(
        CampaignListPage({
          csrf: reply.generateCsrf(),
          email: a.email,
          campaigns: page.items.map(presentCampaign),
          nextCursor: page.nextCursor,
          paged: cursor !== undefined && cursor !== '',
          notice: portalNotice(notice),
        }),
      )
    })

    app.get('/portal/campaigns/new', async (request, reply) => {
      const account = await accountView(deps, request)
      // A new key per rendered form: a double submit of this form creates one campaign.
      const values = newCampaignValues(account.config, randomUUID())
      const quote = await quoteView(deps, request, values, account)
      return reply.page(CampaignFormPage({ csrf: reply.generateCsrf(), email: request.advertiser.email, account, values, quote }))
    })

    // The live quote of the create form (assets/site.js): a fragment of the page, for a signed-in advertiser. A read; writes nothing.
    app.get('/portal/campaigns/new/quote', { schema: { querystring: CampaignQuoteQuery } }, async (request, reply) => {
      const account = await accountView(deps, request)
      const view = await quoteView(deps, request, request.query, account)
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(renderFragment(AuctionQuote({ view })))
    })

    app.post('/portal/campaigns/new', { schema: { body: CampaignCreateForm }, errorHandler: formErrorHandler(showProblem) }, async (request, reply) => {
      const a = request.advertiser
      if (request.body.action === 'quote') {
        // "Show my place in the auction" (the form without JavaScript): the same form, with the quote of its values; nothing is created.
        const account = await accountView(deps, request)
        const quote = await quoteView(deps, request, request.body, account)
        return reply.page(CampaignFormPage({ csrf: reply.generateCsrf(), email: a.email, account, values: request.body, quote }))
      }
      // The API's order: write access (403 before 402), then the body, then the create use case.
      await assertWriteAccess(deps, a)
      const { config } = await accountView(deps, request)
      const body = asApiBody(request, CampaignCreateSchema, campaignBodyFromForm(request.body, config))
      const created = await createCampaign(deps, a.user_id, body, createBudget(deps, request, reply, a.user_id), 'website')
      // A replay (the same form submitted twice) lands on the campaign the first submit created. A line held for review says so.
      const notice = created.moderation_status === 'pending' ? 'created_in_review' : 'created'
      return reply.redirect(`/portal/campaigns/${encodeURIComponent(created.campaign_id)}?notice=${notice}`, 303)
    })
  }
}
