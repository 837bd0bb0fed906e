import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { App, RouteDeps } from '../../types.ts'
import { EmptyForm, WebhookEndpointForm } from '../../schemas/pages/forms.ts'
import { WebhookEndpointCreateSchema } from '../../schemas/webhooks.ts'
import {
  eventFieldName,
  WebhookEndpointPage,
  webhookHref,
  webhookProblem,
  webhookProblems,
  WebhooksPage,
  type WebhookFormValues,
} from '../../pages/portal/webhooks.tsx'
import { portalNotice } from '../../pages/portal/notices.ts'
import { presentWebhookEndpoint, presentWebhookEndpointLog } from '../../presenters-webhooks.ts'
import { ApiError } from '../../../domain/errors.ts'
import { WEBHOOK_EVENT_TYPES } from '../../../domain/webhooks.ts'
import {
  createWebhookEndpoint,
  listAccountWebhookEndpoints,
  readWebhookEndpoint,
  removeWebhookEndpoint,
  resendWebhookMessage,
  sendTestWebhook,
  webhookInputProblems,
} from '../../../services/webhooks/endpoints.ts'
import { asApiBody, formErrorHandler } from './api-body.ts'

const NoticeQuery = Type.Object({ notice: Type.Optional(Type.String({ maxLength: 40 })) })
const EndpointParams = Type.Object({ endpoint_id: Type.String({ minLength: 1, maxLength: 200 }) })
const DeliveryParams = Type.Object({ endpoint_id: Type.String({ minLength: 1, maxLength: 200 }), delivery_id: Type.String({ minLength: 1, maxLength: 200 }) })

/** The form's values: the URL as typed and the ticked events. */
function formValues(body: Record<string, unknown> | undefined): WebhookFormValues {
  const url = typeof body?.url === 'string' ? body.url : ''
  return { url, events: WEBHOOK_EVENT_TYPES.filter((event) => body?.[eventFieldName(event)] !== undefined) }
}

/**
 * `/portal/webhooks`: the account's webhook endpoints (the same use cases as
 * /v1/webhook-endpoints): add one (its secret is shown on the answer page,
 * once), delete one, and each endpoint's delivery log with a Resend button.
 */
export function portalWebhookRoutes(deps: RouteDeps) {
  async function renderList(
    request: FastifyRequest,
    reply: FastifyReply,
    o: { values?: WebhookFormValues; problem?: ReturnType<typeof webhookProblem>; created?: Parameters<typeof WebhooksPage>[0]['created']; notice?: string | null; status?: number },
  ) {
    const a = request.advertiser
    const endpoints = await listAccountWebhookEndpoints(deps, a.user_id)
    return reply.page(
      WebhooksPage({
        csrf: reply.generateCsrf(),
        email: a.email,
        endpoints: endpoints.map(presentWebhookEndpoint),
        // A fresh form has every event ticked: most receivers want them all, and unticking is one click.
        values: o.values ?? { url: '', events: [...WEBHOOK_EVENT_TYPES] },
        problem: o.problem,
        created: o.created,
        notice: o.notice,
      }),
      o.status,
    )
  }

  /** A refused registration shown on the page at its field, with the typed values; anything else goes to the pages' error handler. */
  async function showProblem(error: unknown, request: FastifyRequest, reply: FastifyReply) {
    const body = request.body as Record<string, unknown> | undefined
    if (!(error instanceof ApiError) || body === undefined || request.advertiser === undefined) throw error
    const values = formValues(body)
    // A refused input: every field's refusal at once (the API answers the first only); the cap (409) alone.
    const problems = error.status === 400 ? await webhookInputProblems(deps, { url: values.url, events: values.events }) : []
    const problem = webhookProblems(problems.length > 0 ? problems : [error])
    return renderList(request, reply, { values, problem, status: error.status })
  }

  return async (app: App) => {
    app.get('/portal/webhooks', { schema: { querystring: NoticeQuery } }, async (request, reply) =>
      renderList(request, reply, { notice: portalNotice(request.query.notice) }),
    )

    app.post('/portal/webhooks', { schema: { body: WebhookEndpointForm }, errorHandler: formErrorHandler(showProblem) }, async (request, reply) => {
      const values = formValues(request.body)
      const body = asApiBody(request, WebhookEndpointCreateSchema, { url: values.url, events: values.events })
      const { endpoint, secret } = await createWebhookEndpoint(deps, request.advertiser.user_id, body)
      // The secret is on this answer only (no redirect: it is never put in a URL nor kept to show later).
      return renderList(request, reply, { created: { endpoint: presentWebhookEndpoint(endpoint), secret }, status: 201 })
    })

    app.get('/portal/webhooks/:endpoint_id', { schema: { params: EndpointParams, querystring: NoticeQuery } }, async (request, reply) => {
      const log = await readWebhookEndpoint(deps, request.advertiser.user_id, request.params.endpoint_id)
      return reply.page(
        WebhookEndpointPage({ csrf: reply.generateCsrf(), email: request.advertiser.email, endpoint: presentWebhookEndpointLog(log), notice: portalNotice(request.query.notice) }),
      )
    })

    app.post('/portal/webhooks/:endpoint_id/delete', { schema: { params: EndpointParams, body: EmptyForm } }, async (request, reply) => {
      await removeWebhookEndpoint(deps, request.advertiser.user_id, request.params.endpoint_id)
      return reply.redirect('/portal/webhooks?notice=webhook_deleted', 303)
    })

    app.post('/portal/webhooks/:endpoint_id/test', { schema: { params: EndpointParams, body: EmptyForm } }, async (request, reply) => {
      const { endpoint_id } = request.params
      await sendTestWebhook(deps, request.advertiser.user_id, endpoint_id)
      return reply.redirect(`${webhookHref(endpoint_id)}?notice=webhook_test_sent`, 303)
    })

    app.post('/portal/webhooks/:endpoint_id/deliveries/:delivery_id/resend', { schema: { params: DeliveryParams, body: EmptyForm } }, async (request, reply) => {
      const { endpoint_id, delivery_id } = request.params
      await resendWebhookMessage(deps, request.advertiser.user_id, endpoint_id, delivery_id)
      return reply.redirect(`${webhookHref(endpoint_id)}?notice=webhook_resent`, 303)
    })
  }
}
