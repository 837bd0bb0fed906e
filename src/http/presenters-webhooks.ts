import type { Static } from 'typebox'
import type { WebhookAttemptSchema, WebhookDeliverySchema, WebhookEndpointDetailSchema, WebhookEndpointSchema } from './schemas/webhooks.ts'
import type { WebhookAttemptLine, WebhookEndpointRow, WebhookMessageRow } from '../services/read-models.ts'
import type { WebhookEndpointLog } from '../services/webhooks/endpoints.ts'

// Webhook endpoints as the API and the portal show them: explicit fields, never the sealed secret.

export function presentWebhookEndpoint(e: WebhookEndpointRow): Static<typeof WebhookEndpointSchema> {
  return { id: e.endpoint_id, url: e.url, events: e.events, created_at: e.created_at.toISOString() }
}

export function presentWebhookDelivery(m: WebhookMessageRow): Static<typeof WebhookDeliverySchema> {
  return {
    id: m.message_id,
    event_type: m.event_type,
    status: m.status,
    attempts: m.attempts,
    created_at: m.created_at.toISOString(),
    next_attempt_at: m.status === 'pending' ? m.next_attempt_at.toISOString() : null,
    delivered_at: m.delivered_at?.toISOString() ?? null,
  }
}

export function presentWebhookAttempt(a: WebhookAttemptLine): Static<typeof WebhookAttemptSchema> {
  return {
    delivery_id: a.message_id,
    event_type: a.event_type,
    attempted_at: a.attempted_at.toISOString(),
    duration_ms: a.duration_ms,
    status_code: a.status_code,
    error: a.error,
    succeeded: a.succeeded,
  }
}

export function presentWebhookEndpointLog(log: WebhookEndpointLog): Static<typeof WebhookEndpointDetailSchema> {
  return {
    ...presentWebhookEndpoint(log.endpoint),
    deliveries: log.messages.map(presentWebhookDelivery),
    attempts: log.attempts.map(presentWebhookAttempt),
  }
}
