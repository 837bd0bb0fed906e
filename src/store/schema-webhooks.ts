import type { ColumnType, Generated } from 'kysely'
import type { WebhookEventType, WebhookMessageType, WebhookMessageStatus } from '../domain/webhooks.ts'

type Timestamp = ColumnType<Date, Date, Date>

/** An advertiser's webhook endpoint (migration 0026); the secret only sealed. */
export interface WebhookEndpointsTable {
  endpoint_id: string
  user_id: string
  url: string
  events: WebhookEventType[]
  secret_sealed: Buffer
  created_at: Timestamp
}

/** One event for one endpoint: the outbox row and its delivery state (migration 0026). */
export interface WebhookMessagesTable {
  message_id: string
  endpoint_id: string
  user_id: string
  event_type: WebhookMessageType
  event_key: string
  body: string
  created_at: Timestamp
  status: WebhookMessageStatus
  attempts: Generated<number>
  next_attempt_at: Timestamp
  retry_until: Timestamp
  claimed_until: Timestamp | null
  claim_token: string | null
  delivered_at: Timestamp | null
}

/** Every delivery attempt (migration 0026). */
export interface WebhookAttemptsTable {
  attempt_id: ColumnType<number, never, never>
  message_id: string
  endpoint_id: string
  attempted_at: Timestamp
  duration_ms: number
  status_code: number | null
  error: string | null
  succeeded: boolean
}

export interface WebhooksTables {
  webhook_endpoints: WebhookEndpointsTable
  webhook_messages: WebhookMessagesTable
  webhook_attempts: WebhookAttemptsTable
}
