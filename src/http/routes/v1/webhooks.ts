import type { App, RouteDeps } from '../../types.ts'
import { errors, IdParams } from '../../schemas/common.ts'
import {
  WebhookDeliverySchema,
  WebhookEndpointCreatedSchema,
  WebhookEndpointCreateSchema,
  WebhookEndpointDeletedSchema,
  WebhookEndpointDetailSchema,
  WebhookEndpointListSchema,
} from '../../schemas/webhooks.ts'
import { presentWebhookDelivery, presentWebhookEndpoint, presentWebhookEndpointLog } from '../../presenters-webhooks.ts'
import {
  createWebhookEndpoint,
  listAccountWebhookEndpoints,
  readWebhookEndpoint,
  removeWebhookEndpoint,
  resendWebhookMessage,
} from '../../../services/webhooks/endpoints.ts'
import { Type } from 'typebox'

const Params = IdParams('endpoint_id')
const DeliveryParams = Type.Object({ endpoint_id: Type.String({ minLength: 1 }), delivery_id: Type.String({ minLength: 1 }) })

const ACCESS =
  'Needs the credentials only, not write access: endpoints spend nothing, and an account whose campaign writes are blocked ' +
  '(403 or 402) is the one that most needs `invoice.payment_failed`. Counts against the read rate limit.'

export function webhookRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.post(
      '/webhook-endpoints',
      {
        schema: {
          summary: 'Register a webhook endpoint',
          description:
            'Registers an endpoint for the listed events and answers its signing `secret`, shown this once. Deliveries are ' +
            'POSTed from a durable outbox, at least once, with the Standard Webhooks headers `webhook-id`, `webhook-timestamp` ' +
            'and `webhook-signature`, retried with exponential backoff for 24 hours (docs/webhooks.md). Polling stays the contract: ' +
            'webhooks only say sooner what the API already shows.\n\n' +
            '400 `{field: "events", reason}`: `unknown_event` (with `event`), `no_events`. 400 `{field: "url", reason}`: ' +
            '`invalid_url`, `too_long` (over 500 characters), `https_required`, `credentials_not_allowed`, `forbidden_address` ' +
            '(a private, loopback, link-local, unique-local, CGNAT, multicast, unspecified or reserved address, or a name resolving ' +
            'to one), `unresolvable_host`. 409 `{field: "url", reason: "endpoint_limit_reached", limit: 10}`. ' +
            ACCESS,
          tags: ['webhooks'],
          body: WebhookEndpointCreateSchema,
          response: { 201: WebhookEndpointCreatedSchema, ...errors(400, 401, 409, 429) },
        },
      },
      async (request, reply) => {
        const { endpoint, secret } = await createWebhookEndpoint(deps, request.account.user_id, request.body)
        return reply.code(201).send({ ...presentWebhookEndpoint(endpoint), secret })
      },
    )

    app.get(
      '/webhook-endpoints',
      {
        schema: {
          summary: 'List webhook endpoints',
          description: "The account's endpoints, oldest first, without secrets. " + ACCESS,
          tags: ['webhooks'],
          response: { 200: WebhookEndpointListSchema, ...errors(401, 429) },
        },
      },
      async (request) => ({ endpoints: (await listAccountWebhookEndpoints(deps, request.account.user_id)).map(presentWebhookEndpoint) }),
    )

    app.get(
      '/webhook-endpoints/:endpoint_id',
      {
        schema: {
          summary: 'One webhook endpoint with its delivery log',
          description:
            'The endpoint (no secret), its 50 most recent deliveries and its 50 most recent attempts (time, status code or error, ' +
            "duration). Unknown and other accounts' ids are the same 404. " +
            ACCESS,
          tags: ['webhooks'],
          params: Params,
          response: { 200: WebhookEndpointDetailSchema, ...errors(401, 404, 429) },
        },
      },
      async (request) => presentWebhookEndpointLog(await readWebhookEndpoint(deps, request.account.user_id, request.params.endpoint_id)),
    )

    app.delete(
      '/webhook-endpoints/:endpoint_id',
      {
        schema: {
          summary: 'Delete a webhook endpoint',
          description:
            'Deletes the endpoint, its undelivered deliveries and its log; nothing more is sent to it (an attempt already in flight ' +
            "may still arrive). Unknown and other accounts' ids are the same 404. " +
            ACCESS,
          tags: ['webhooks'],
          params: Params,
          response: { 200: WebhookEndpointDeletedSchema, ...errors(401, 404, 429) },
        },
      },
      async (request) => {
        await removeWebhookEndpoint(deps, request.account.user_id, request.params.endpoint_id)
        return { id: request.params.endpoint_id, deleted: true as const }
      },
    )

    app.post(
      '/webhook-endpoints/:endpoint_id/deliveries/:delivery_id/resend',
      {
        schema: {
          summary: 'Resend a delivery',
          description:
            'Sends the delivery again now, with the same `webhook-id` and body (a fresh `webhook-timestamp` and signature), and ' +
            'retries it for 24 hours from now; its attempt log is kept. Any status may be resent. Unknown and other accounts\' ' +
            'ids are the same 404. ' +
            ACCESS,
          tags: ['webhooks'],
          params: DeliveryParams,
          response: { 202: WebhookDeliverySchema, ...errors(401, 404, 429) },
        },
      },
      async (request, reply) => {
        const message = await resendWebhookMessage(deps, request.account.user_id, request.params.endpoint_id, request.params.delivery_id)
        return reply.code(202).send(presentWebhookDelivery(message))
      },
    )
  }
}
