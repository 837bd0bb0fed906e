/**
 * Webhooks (docs/webhooks.md): the events an endpoint subscribes to, the body every delivery
 * carries, the retry schedule and the endpoint limits. Plain rules: the randomness of the jitter
 * and the clock are the caller's.
 */

export const WEBHOOK_EVENT_TYPES = [
  'campaign.exhausted',
  'campaign.moderation_decided',
  'invoice.finalized',
  'invoice.payment_failed',
  'export.ready',
] as const
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]

/**
 * The type of the message "Send test event" sends (the portal's webhook page): to one endpoint,
 * whatever it subscribes to; not an event anyone subscribes to, so never in WEBHOOK_EVENT_TYPES.
 */
export const WEBHOOK_TEST_TYPE = 'webhook.test'
/** What a message's `type` can be: a subscribed event or the test message. */
export type WebhookMessageType = WebhookEventType | typeof WEBHOOK_TEST_TYPE

export const WEBHOOK_MESSAGE_STATUSES = ['pending', 'delivered', 'failed'] as const
export type WebhookMessageStatus = (typeof WEBHOOK_MESSAGE_STATUSES)[number]

/** Endpoints one account may register. */
export const WEBHOOK_ENDPOINTS_PER_ACCOUNT = 10
/** The longest endpoint URL accepted. */
export const WEBHOOK_URL_MAX_LENGTH = 500
/** Deliveries are retried for this long after the event (or after a resend), then the message is `failed`. */
export const WEBHOOK_RETRY_WINDOW_MS = 24 * 60 * 60_000
/** The first retry waits about this long; each later one `WEBHOOK_BACKOFF_FACTOR` times longer, up to `WEBHOOK_BACKOFF_MAX_MS`. */
export const WEBHOOK_BACKOFF_BASE_MS = 5_000
export const WEBHOOK_BACKOFF_FACTOR = 4
export const WEBHOOK_BACKOFF_MAX_MS = 4 * 60 * 60_000

export const isWebhookEventType = (value: string): value is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value)

/**
 * The subscribed events, de-duplicated and in catalogue order; null names the first entry that is
 * not an event (the 400 `{field: "events", reason: "unknown_event"}`) or an empty list.
 */
export function parseEventList(events: readonly string[]): { ok: true; events: WebhookEventType[] } | { ok: false; reason: 'unknown_event' | 'no_events'; event?: string } {
  if (events.length === 0) return { ok: false, reason: 'no_events' }
  const unknown = events.find((e) => !isWebhookEventType(e))
  if (unknown !== undefined) return { ok: false, reason: 'unknown_event', event: unknown }
  return { ok: true, events: WEBHOOK_EVENT_TYPES.filter((e) => events.includes(e)) }
}

/**
 * The wait before attempt `attempt + 1` after `attempt` attempts failed (1, 2, …): exponential,
 * `base × factor^(attempt−1)` capped at the maximum, spread by `jitter` (0 ≤ jitter < 1) over
 * [75 %, 125 %) of it, so endpoints that failed together are not retried in step.
 */
export function retryDelayMs(attempt: number, jitter: number): number {
  const exp = Math.min(WEBHOOK_BACKOFF_BASE_MS * WEBHOOK_BACKOFF_FACTOR ** Math.max(0, attempt - 1), WEBHOOK_BACKOFF_MAX_MS)
  return Math.round(exp * (0.75 + 0.5 * Math.min(Math.max(jitter, 0), 1)))
}

/** After a failed attempt: when to try again, or null when that would fall after `retryUntil` (the message fails). */
export function nextAttemptAt(failedAt: Date, attempt: number, jitter: number, retryUntil: Date): Date | null {
  const next = failedAt.getTime() + retryDelayMs(attempt, jitter)
  return next > retryUntil.getTime() ? null : new Date(next)
}

/** Whether an HTTP answer counts as delivered: any 2xx (redirects are not followed). */
export const deliveredStatus = (statusCode: number): boolean => statusCode >= 200 && statusCode <= 299

/** The JSON body of a delivery (Standard Webhooks): the event type, when it happened, and its ids and figures. */
export interface WebhookBody {
  type: WebhookMessageType
  timestamp: string
  data: Record<string, string | number | boolean | null | string[]>
}

/** The exact text sent for an event; fixed when the event is written so every retry signs the same bytes. */
export function webhookBody(type: WebhookMessageType, at: Date, data: WebhookBody['data']): string {
  const body: WebhookBody = { type, timestamp: at.toISOString(), data }
  return JSON.stringify(body)
}

/** An event as the services hand it to the outbox: its type, a key naming it once, its instant and data. */
export interface WebhookEvent {
  userId: string
  type: WebhookEventType
  /** Names this event: writing it again (a retried transaction) makes no second message. */
  key: string
  at: Date
  data: WebhookBody['data']
}
