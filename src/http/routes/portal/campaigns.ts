import { randomUUID } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { App, RouteDeps } from '../../types.ts'
import { CampaignCreateForm } from '../../schemas/pages/forms.ts'
import { CampaignCreateSchema } from '../../schemas/campaigns.ts'
import { CampaignListPage } from '../../pages/portal/campaign-list.tsx'
import { CampaignFormPage, createProblem, newCampaignValues, type CampaignFormValues } from '../../pages/portal/campaign-form.tsx'
import { portalNotice } from '../../pages/portal/notices.ts'
import { presentAccount, presentCampaign } from '../../presenters.ts'
import { createBudget } from '../../plugins/create-budget.ts'
import { storeTroubleError } from '../../plugins/errors.ts'
import { ApiError } from '../../../domain/errors.ts'
import { assertWriteAccess } from '../../../services/access.ts'
import { readAccountOverview } from '../../../services/accounts.ts'
import { createCampaign } from '../../../services/campaigns.ts'
import { listCampaigns } from '../../../services/lists.ts'
import { asApiBody, formErrorHandler } from './api-body.ts'
import { campaignBodyFromForm } from './campaign-form.ts'

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
    return reply.page(CampaignFormPage({ csrf: reply.generateCsrf(), email: request.advertiser.email, account, values: shown, problem }), error.status)
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
      return reply.page(CampaignFormPage({ csrf: reply.generateCsrf(), email: request.advertiser.email, account, values }))
    })

    app.post('/portal/campaigns/new', { schema: { body: CampaignCreateForm }, errorHandler: formErrorHandler(showProblem) }, async (request, reply) => {
      const a = request.advertiser
      // The API's order: write access (403 before 402), then the body, then the create use case.
      await assertWriteAccess(deps, a)
      const { config } = await accountView(deps, request)
      const body = asApiBody(request, CampaignCreateSchema, campaignBodyFromForm(request.body, config))
      const created = await createCampaign(deps, a.user_id, body, createBudget(deps, request, reply, a.user_id), 'website')
      // A replay (the same form submitted twice) lands on the campaign the first submit created.
      return reply.redirect(`/portal/campaigns/${encodeURIComponent(created.campaign_id)}?notice=created`, 303)
    })
  }
}
