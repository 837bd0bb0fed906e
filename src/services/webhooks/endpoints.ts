import { ApiError, invalid, notFound } from '../../domain/errors.ts'
import { addressAllowed, checkWebhookUrl } from '../../domain/webhook-address.ts'
import { parseEventList, WEBHOOK_ENDPOINTS_PER_ACCOUNT, type WebhookEventType } from '../../domain/webhooks.ts'
import { newId, newRandomUuid } from '../../platform/ids.ts'
import { newWebhookSecret, resolveHost } from '../../platform/webhook-transport.ts'
import { lockAccount } from '../../store/accounts.ts'
import {
  countWebhookEndpoints,
  deleteWebhookEndpoint,
  findWebhookEndpoint,
  insertWebhookEndpoint,
  listWebhookEndpoints,
  readEndpointLog,
  enqueueTestMessage,
  requeueMessage,
  type WebhookAttemptLine,
  type WebhookEndpointRow,
  type WebhookMessageRow,
} from '../../store/webhooks.ts'
import type { ServiceContext } from '../context.ts'
import { sealWebhookSecret } from '../key-sealing.ts'

// An advertiser's webhook endpoints (docs/webhooks.md): register (the secret shown once), list,
// read with the recent deliveries, delete, resend. The API and the portal call these.

/** Recent messages and attempts an endpoint's read shows. */
export const WEBHOOK_LOG_LIMIT = 50

export interface WebhookEndpointInput {
  url: string
  events: string[]
}

/**
 * Checks a URL against the SSRF rule: its text (https, ≤ 500 characters, no credentials, an
 * allowed literal address), then every address its name resolves to now. 400 `{field: "url",
 * reason}`: `invalid_url`, `too_long`, `https_required`, `credentials_not_allowed`,
 * `forbidden_address`, `unresolvable_host`.
 */
export async function checkEndpointUrl(ctx: ServiceContext, raw: string): Promise<string> {
  const allowLoopback = ctx.settings.webhooksAllowLoopback
  const checked = checkWebhookUrl(raw, allowLoopback)
  if (!checked.ok) throw invalid('url', checked.reason)
  if (checked.value.literal) return checked.value.url
  let addresses: { address: string }[]
  try {
    addresses = await resolveHost(checked.value.hostname)
  } catch {
    throw invalid('url', 'unresolvable_host')
  }
  if (addresses.length === 0) throw invalid('url', 'unresolvable_host')
  if (!addresses.every((a) => addressAllowed(a.address, allowLoopback))) throw invalid('url', 'forbidden_address')
  return checked.value.url
}

function checkEvents(events: string[]): WebhookEventType[] {
  const parsed = parseEventList(events)
  if (!parsed.ok) throw invalid('events', parsed.reason, parsed.event === undefined ? {} : { event: parsed.event })
  return parsed.events
}

/**
 * Every refusal of an endpoint's input at once (the events', then the URL's, DNS included), for a
 * form that shows each beside its field; `createWebhookEndpoint` stops at the first.
 */
export async function webhookInputProblems(ctx: ServiceContext, input: WebhookEndpointInput): Promise<ApiError[]> {
  const problems: ApiError[] = []
  const collect = async (check: () => unknown) => {
    try {
      await check()
    } catch (err) {
      if (!(err instanceof ApiError)) throw err
      problems.push(err)
    }
  }
  await collect(() => checkEvents(input.events))
  await collect(() => checkEndpointUrl(ctx, input.url))
  return problems
}

/**
 * Registers an endpoint: validated events and URL, at most 10 per account (409
 * `endpoint_limit_reached`), a new secret sealed at rest. Answers the row and the secret, which
 * is never readable again.
 */
export async function createWebhookEndpoint(ctx: ServiceContext, userId: string, input: WebhookEndpointInput): Promise<{ endpoint: WebhookEndpointRow; secret: string }> {
  const events = checkEvents(input.events)
  const url = await checkEndpointUrl(ctx, input.url)
  const endpointId = newId('whe')
  const secret = newWebhookSecret()
  const sealed = await sealWebhookSecret(ctx, endpointId, secret)
  const endpoint = await ctx.db.transaction().execute(async (trx) => {
    // The account lock orders concurrent registrations, so the cap holds.
    await lockAccount(trx, userId)
    if ((await countWebhookEndpoints(trx, userId)) >= WEBHOOK_ENDPOINTS_PER_ACCOUNT) {
      throw new ApiError(409, { field: 'url', reason: 'endpoint_limit_reached', limit: WEBHOOK_ENDPOINTS_PER_ACCOUNT })
    }
    return insertWebhookEndpoint(trx, { endpoint_id: endpointId, user_id: userId, url, events, secret_sealed: sealed, created_at: ctx.clock.now() })
  })
  return { endpoint, secret }
}

export async function listAccountWebhookEndpoints(ctx: ServiceContext, userId: string): Promise<WebhookEndpointRow[]> {
  return listWebhookEndpoints(ctx.db, userId)
}

export interface WebhookEndpointLog {
  endpoint: WebhookEndpointRow
  messages: WebhookMessageRow[]
  attempts: WebhookAttemptLine[]
}

/** One endpoint of the account with its recent messages and attempts; foreign or unknown ids are 404. */
export async function readWebhookEndpoint(ctx: ServiceContext, userId: string, endpointId: string): Promise<WebhookEndpointLog> {
  const endpoint = await findWebhookEndpoint(ctx.db, userId, endpointId)
  if (!endpoint) throw notFound('webhook endpoint')
  const { messages, attempts } = await readEndpointLog(ctx.db, userId, endpointId, WEBHOOK_LOG_LIMIT)
  return { endpoint, messages, attempts }
}

/** Deletes the endpoint, its undelivered messages and its log; foreign or unknown ids are 404. */
export async function removeWebhookEndpoint(ctx: ServiceContext, userId: string, endpointId: string): Promise<void> {
  if (!(await deleteWebhookEndpoint(ctx.db, userId, endpointId))) throw notFound('webhook endpoint')
}

/** Sends a message again now (same id and body), retried for 24 hours from now; foreign or unknown ids are 404. */
export async function resendWebhookMessage(ctx: ServiceContext, userId: string, endpointId: string, messageId: string): Promise<WebhookMessageRow> {
  const message = await requeueMessage(ctx.db, userId, endpointId, messageId, ctx.clock.now())
  if (!message) throw notFound('webhook delivery')
  return message
}

/**
 * "Send test event": a `webhook.test` message to one endpoint now, signed, delivered, retried and
 * logged like any event, so an advertiser can check their receiver before a real event happens.
 * Foreign or unknown ids are 404.
 */
export async function sendTestWebhook(ctx: ServiceContext, userId: string, endpointId: string): Promise<WebhookMessageRow> {
  const message = await enqueueTestMessage(ctx.db, userId, endpointId, `webhook.test:${newRandomUuid()}`, ctx.clock.now())
  if (!message) throw notFound('webhook endpoint')
  return message
}
