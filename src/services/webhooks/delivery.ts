import { randomUUID } from 'node:crypto'
import { addressAllowed, classifyAddress } from '../../domain/webhook-address.ts'
import { deliveredStatus, nextAttemptAt } from '../../domain/webhooks.ts'
import { TIMEOUTS } from '../../platform/timeouts.ts'
import { postPinned, resolveHost, signWebhook, WebhookSendError, type ResolvedAddress } from '../../platform/webhook-transport.ts'
import { claimDueMessages, recordAttempt, releaseClaim, type ClaimedMessage } from '../../store/webhooks.ts'
import type { ServiceContext } from '../context.ts'
import { openWebhookSecret } from '../key-sealing.ts'

// Sending due webhook messages (docs/webhooks.md): claim, check the address again, sign, POST
// pinned to the checked address, record the attempt and schedule the next one.

export interface DeliveryLog {
  info(obj: object, msg?: string): void
  warn(obj: object, msg?: string): void
}

/** What an attempt left its message as. */
export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed'

/** A recorded attempt: its outcome and how long the request to the endpoint took (address check included). */
export interface AttemptResult {
  outcome: DeliveryOutcome
  seconds: number
}

/**
 * The address a delivery connects to: the URL's literal address, or the first its name resolves
 * to now, provided every resolved address passes the SSRF rule (a name that also points inside
 * is refused as a whole: `forbidden_address`).
 */
async function checkedAddress(url: URL, allowLoopback: boolean): Promise<ResolvedAddress> {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (classifyAddress(host) !== 'invalid') {
    if (!addressAllowed(host, allowLoopback)) throw new WebhookSendError('forbidden_address')
    return { address: host, family: host.includes(':') ? 6 : 4 }
  }
  let found: ResolvedAddress[]
  try {
    found = await resolveHost(host)
  } catch {
    throw new WebhookSendError('unresolvable_host')
  }
  const first = found[0]
  if (!first) throw new WebhookSendError('unresolvable_host')
  if (!found.every((a) => addressAllowed(a.address, allowLoopback))) throw new WebhookSendError('forbidden_address')
  return first
}

type Sent = { statusCode: number; error: null } | { statusCode: null; error: string }

async function send(ctx: ServiceContext, m: ClaimedMessage, attemptedAt: Date, signal: AbortSignal): Promise<Sent> {
  const secret = await openWebhookSecret(ctx, m.endpoint_id, m.secret_sealed)
  if (secret === null) return { statusCode: null, error: 'secret_unavailable' }
  try {
    const url = new URL(m.url)
    const started = performance.now()
    const pinned = await checkedAddress(url, ctx.settings.webhooksAllowLoopback)
    const timestampS = Math.floor(attemptedAt.getTime() / 1000)
    const statusCode = await postPinned({
      url,
      pinned,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'advertiser-campaign-api-webhooks/1',
        'webhook-id': m.message_id,
        'webhook-timestamp': String(timestampS),
        'webhook-signature': signWebhook(secret, m.message_id, timestampS, m.body),
      },
      body: m.body,
      timeoutMs: Math.max(1, TIMEOUTS.webhooks.attemptMs - (performance.now() - started)),
      signal,
    })
    return { statusCode, error: null }
  } catch (err) {
    if (signal.aborted) throw err
    return { statusCode: null, error: err instanceof WebhookSendError ? err.message : 'send_failed' }
  }
}

/**
 * Sends one claimed message and records the attempt: delivered, retrying (next attempt on the
 * backoff) or failed (past its 24 hours). Answers null when nothing was recorded: shutting down
 * (the claim is given back) or the claim lapsed meanwhile.
 */
export async function deliverClaimed(ctx: ServiceContext, log: DeliveryLog, m: ClaimedMessage, signal: AbortSignal): Promise<AttemptResult | null> {
  const token = m.claim_token ?? ''
  const attemptedAt = ctx.clock.now()
  const started = performance.now()
  let sent: Sent
  try {
    sent = await send(ctx, m, attemptedAt, signal)
  } catch {
    // Shutting down mid-attempt: the message is given back, due at once for the next sender.
    await releaseClaim(ctx.db, m.message_id, token)
    return null
  }
  const seconds = (performance.now() - started) / 1000
  const durationMs = Math.round(seconds * 1000)
  const succeeded = sent.statusCode !== null && deliveredStatus(sent.statusCode)
  const attempt = m.attempts + 1
  const next = succeeded ? null : nextAttemptAt(attemptedAt, attempt, Math.random(), m.retry_until)
  const status = succeeded ? 'delivered' : next === null ? 'failed' : 'pending'
  const recorded = await recordAttempt(ctx.db, m, token, {
    attemptedAt,
    durationMs,
    statusCode: sent.statusCode,
    error: sent.error ?? (succeeded ? null : `http_${sent.statusCode}`),
    succeeded,
    status,
    nextAttemptAt: next ?? attemptedAt,
  })
  const fields = {
    message_id: m.message_id,
    endpoint_id: m.endpoint_id,
    event_type: m.event_type,
    attempt,
    status_code: sent.statusCode,
    error: sent.error,
    duration_ms: durationMs,
    outcome: status,
  }
  if (!recorded) {
    log.warn(fields, 'webhook attempt not recorded: the claim lapsed or the endpoint was deleted')
    return null
  }
  if (succeeded) log.info(fields, 'webhook delivered')
  else log.warn({ ...fields, next_attempt_at: next?.toISOString() ?? null }, status === 'failed' ? 'webhook delivery failed for good' : 'webhook attempt failed; retrying')
  return { outcome: status === 'delivered' ? 'delivered' : status === 'failed' ? 'failed' : 'retrying', seconds }
}

/**
 * Claims up to `limit` due messages for a claim's length of real time. Safe on any number of
 * instances at once; a claim that lapses (a crashed sender) makes the message due again, so
 * delivery is at least once, with the same `webhook-id`.
 */
export async function claimDueWebhooks(ctx: ServiceContext, limit: number): Promise<ClaimedMessage[]> {
  if (limit <= 0) return []
  return claimDueMessages(ctx.db, ctx.clock.now(), limit, randomUUID(), TIMEOUTS.webhooks.claimMs)
}
