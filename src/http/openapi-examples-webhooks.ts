import type { OperationExamples } from './openapi-examples.ts'

const CREATED = '2026-11-02T09:00:00.000Z'

const WEBHOOK_ENDPOINT = {
  id: 'whe_4Rk2ZxWq9LmT7bNc1VdJ0p',
  url: 'https://hooks.acme.dev/ads',
  events: ['campaign.exhausted', 'invoice.payment_failed'],
  created_at: CREATED,
}
const WEBHOOK_DELIVERY = {
  id: 'msg_9b1f0c3e5a7d4e2f8c6b0a1d3e5f7a9b',
  event_type: 'campaign.exhausted',
  status: 'delivered',
  attempts: 2,
  created_at: '2026-11-02T10:15:00.000Z',
  next_attempt_at: null,
  delivered_at: '2026-11-02T10:15:05.000Z',
}

/** The webhook endpoints' examples (docs/webhooks.md). */
export const WEBHOOK_EXAMPLES: Record<string, OperationExamples> = {
  'POST /webhook-endpoints': {
    request: { url: WEBHOOK_ENDPOINT.url, events: WEBHOOK_ENDPOINT.events },
    status: 201,
    response: { ...WEBHOOK_ENDPOINT, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw7Hh6c8QSKmQ=' },
    errors: {
      400: { detail: { field: 'url', reason: 'forbidden_address' } },
      409: { detail: { field: 'url', reason: 'endpoint_limit_reached', limit: 10 } },
    },
  },
  'GET /webhook-endpoints': { status: 200, response: { endpoints: [WEBHOOK_ENDPOINT] } },
  'GET /webhook-endpoints/{endpoint_id}': {
    status: 200,
    response: {
      ...WEBHOOK_ENDPOINT,
      deliveries: [WEBHOOK_DELIVERY],
      attempts: [
        { delivery_id: WEBHOOK_DELIVERY.id, event_type: 'campaign.exhausted', attempted_at: '2026-11-02T10:15:05.000Z', duration_ms: 84, status_code: 200, error: null, succeeded: true },
        { delivery_id: WEBHOOK_DELIVERY.id, event_type: 'campaign.exhausted', attempted_at: '2026-11-02T10:15:00.000Z', duration_ms: 112, status_code: 500, error: 'http_500', succeeded: false },
      ],
    },
    errors: { 404: { detail: 'webhook endpoint not found' } },
  },
  'DELETE /webhook-endpoints/{endpoint_id}': {
    status: 200,
    response: { id: WEBHOOK_ENDPOINT.id, deleted: true },
    errors: { 404: { detail: 'webhook endpoint not found' } },
  },
  'POST /webhook-endpoints/{endpoint_id}/deliveries/{delivery_id}/resend': {
    status: 202,
    response: { ...WEBHOOK_DELIVERY, status: 'pending', next_attempt_at: '2026-11-02T11:00:00.000Z', delivered_at: null },
    errors: { 404: { detail: 'webhook delivery not found' } },
  },
}
