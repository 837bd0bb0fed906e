import { sql, type Insertable, type Selectable } from 'kysely'
import type { Db } from './db.ts'
import type { WebhookAttemptsTable, WebhookEndpointsTable, WebhookMessagesTable } from './schema-webhooks.ts'
import {
  WEBHOOK_RETRY_WINDOW_MS,
  WEBHOOK_TEST_TYPE,
  webhookBody,
  type WebhookEvent,
  type WebhookMessageStatus,
  type WebhookMessageType,
} from '../domain/webhooks.ts'

// Webhooks (migration 0026): endpoints, the outbox of messages (one per event and subscribed
// endpoint) and the attempt log. Every read of an advertiser's rows filters by user_id.

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>
export type WebhookMessageRow = Selectable<WebhookMessagesTable>
export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>
/** An attempt with its message's event type, as the log shows it. */
export type WebhookAttemptLine = WebhookAttemptRow & { event_type: WebhookMessageType }

export async function insertWebhookEndpoint(db: Db, row: Insertable<WebhookEndpointsTable>): Promise<WebhookEndpointRow> {
  return db.insertInto('webhook_endpoints').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function countWebhookEndpoints(db: Db, userId: string): Promise<number> {
  const row = await db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow()
  return Number(row.n)
}

/** The account's endpoints, oldest first (an account has at most a handful). */
export async function listWebhookEndpoints(db: Db, userId: string): Promise<WebhookEndpointRow[]> {
  return db.selectFrom('webhook_endpoints').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('endpoint_id').execute()
}

export async function findWebhookEndpoint(db: Db, userId: string, endpointId: string): Promise<WebhookEndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('endpoint_id', '=', endpointId).where('user_id', '=', userId).executeTakeFirst()
}

/** Deletes the endpoint with its messages and attempts (ON DELETE CASCADE); false when it is not the account's. */
export async function deleteWebhookEndpoint(db: Db, userId: string, endpointId: string): Promise<boolean> {
  const res = await db.deleteFrom('webhook_endpoints').where('endpoint_id', '=', endpointId).where('user_id', '=', userId).executeTakeFirst()
  return Number(res.numDeletedRows) > 0
}

/**
 * Writes an event into the outbox, in the caller's transaction: one message for each of the
 * account's endpoints subscribed to its type now, due at once, retried until 24 hours after the
 * event. The message id is random (`msg_` + 32 hex digits, made by the store so one statement fans
 * the event out); an event written again under the same key makes no second message.
 */
export async function enqueueWebhookEvent(db: Db, event: WebhookEvent): Promise<void> {
  const body = webhookBody(event.type, event.at, event.data)
  const retryUntil = new Date(event.at.getTime() + WEBHOOK_RETRY_WINDOW_MS)
  await sql`
    INSERT INTO webhook_messages (message_id, endpoint_id, user_id, event_type, event_key, body, created_at, status, next_attempt_at, retry_until)
    SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), e.endpoint_id, e.user_id, ${event.type}, ${event.key}, ${body}, ${event.at}, 'pending', ${event.at}, ${retryUntil}
    FROM webhook_endpoints e
    WHERE e.user_id = ${event.userId} AND ${event.type} = ANY(e.events)
    ON CONFLICT (endpoint_id, event_key) DO NOTHING`.execute(db)
}

/**
 * A test message to one endpoint of the account (whatever it subscribes to), due at once and
 * retried like any other; undefined when the endpoint is not the account's. Each call is a new
 * message (`key` names it).
 */
export async function enqueueTestMessage(db: Db, userId: string, endpointId: string, key: string, at: Date): Promise<WebhookMessageRow | undefined> {
  const body = webhookBody(WEBHOOK_TEST_TYPE, at, { endpoint_id: endpointId, message: 'A test message sent from the advertiser portal. Nothing happened.' })
  const retryUntil = new Date(at.getTime() + WEBHOOK_RETRY_WINDOW_MS)
  const { rows } = await sql<WebhookMessageRow>`
    INSERT INTO webhook_messages (message_id, endpoint_id, user_id, event_type, event_key, body, created_at, status, next_attempt_at, retry_until)
    SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), e.endpoint_id, e.user_id, ${WEBHOOK_TEST_TYPE}, ${key}, ${body}, ${at}, 'pending', ${at}, ${retryUntil}
    FROM webhook_endpoints e
    WHERE e.user_id = ${userId} AND e.endpoint_id = ${endpointId}
    RETURNING *`.execute(db)
  return rows[0]
}

/**
 * `campaign.exhausted` for the campaigns of `campaignIds` that completed at `now` (every number
 * they bought is billed), in the caller's transaction: called where leases settle into the
 * campaigns (src/store/leases.ts), which is where `completed_at` is set.
 */
export async function enqueueExhaustedCampaigns(db: Db, campaignIds: readonly string[], now: Date): Promise<void> {
  if (campaignIds.length === 0) return
  const { rows } = await sql<{ campaign_id: string; user_id: string; impressions: number; impressions_billed: number; lifetime_spent_micros: number }>`
    SELECT campaign_id, user_id, impressions, impressions_billed, lifetime_spent_micros FROM campaigns
    WHERE campaign_id = ANY(${campaignIds}::text[]) AND status = 'completed' AND completed_at = ${now}
      AND EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.user_id = campaigns.user_id AND 'campaign.exhausted' = ANY(e.events))`.execute(db)
  for (const c of rows) {
    await enqueueWebhookEvent(db, {
      userId: c.user_id,
      type: 'campaign.exhausted',
      key: `campaign.exhausted:${c.campaign_id}`,
      at: now,
      data: {
        campaign_id: c.campaign_id,
        impressions: c.impressions,
        impressions_delivered: c.impressions_billed,
        spend_micros: c.lifetime_spent_micros,
        completed_at: now.toISOString(),
      },
    })
  }
}

/** A claimed message with what sending it needs. */
export interface ClaimedMessage extends WebhookMessageRow {
  url: string
  secret_sealed: Buffer
}

/**
 * Claims up to `limit` due messages (pending, next attempt reached on the service clock, no live
 * claim) for `token`, for `claimMs` of real time. SKIP LOCKED lets concurrent senders on any
 * instance claim different messages; the UPDATE re-checks the claim.
 */
export async function claimDueMessages(db: Db, now: Date, limit: number, token: string, claimMs: number): Promise<ClaimedMessage[]> {
  const { rows } = await sql<ClaimedMessage>`
    WITH due AS (
      SELECT message_id FROM webhook_messages
      WHERE status = 'pending' AND next_attempt_at <= ${now} AND (claimed_until IS NULL OR claimed_until < now())
      ORDER BY next_attempt_at, message_id
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ),
    claimed AS (
      UPDATE webhook_messages m SET claimed_until = now() + (${claimMs}::int8 * interval '1 millisecond'), claim_token = ${token}
      FROM due WHERE m.message_id = due.message_id
      RETURNING m.*
    )
    SELECT claimed.*, e.url, e.secret_sealed FROM claimed JOIN webhook_endpoints e ON e.endpoint_id = claimed.endpoint_id`.execute(db)
  return rows
}

export interface AttemptOutcome {
  attemptedAt: Date
  durationMs: number
  statusCode: number | null
  error: string | null
  succeeded: boolean
  /** The message's state after this attempt. */
  status: WebhookMessageStatus
  nextAttemptAt: Date
}

/**
 * Records an attempt and moves its message, in one transaction, only while `token` still holds
 * the claim (a sender whose claim lapsed records nothing: the message went to another sender).
 */
export async function recordAttempt(db: Db, message: { message_id: string; endpoint_id: string }, token: string, o: AttemptOutcome): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const moved = await trx
      .updateTable('webhook_messages')
      .set((eb) => ({
        status: o.status,
        attempts: eb('attempts', '+', 1),
        next_attempt_at: o.nextAttemptAt,
        delivered_at: o.succeeded ? o.attemptedAt : null,
        claimed_until: null,
        claim_token: null,
      }))
      .where('message_id', '=', message.message_id)
      .where('claim_token', '=', token)
      .executeTakeFirst()
    if (Number(moved.numUpdatedRows) === 0) return false
    await trx
      .insertInto('webhook_attempts')
      .values({
        message_id: message.message_id,
        endpoint_id: message.endpoint_id,
        attempted_at: o.attemptedAt,
        duration_ms: o.durationMs,
        status_code: o.statusCode,
        error: o.error,
        succeeded: o.succeeded,
      })
      .execute()
    return true
  })
}

/** Gives a claim back without an attempt (the sender is shutting down): the message is due again at once. */
export async function releaseClaim(db: Db, messageId: string, token: string): Promise<void> {
  await db.updateTable('webhook_messages').set({ claimed_until: null, claim_token: null }).where('message_id', '=', messageId).where('claim_token', '=', token).execute()
}

/** The endpoint's most recent messages, newest first. */
export async function recentMessages(db: Db, userId: string, endpointId: string, limit: number): Promise<WebhookMessageRow[]> {
  return db
    .selectFrom('webhook_messages')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('message_id', 'desc')
    .limit(limit)
    .execute()
}

/** The endpoint's most recent attempts, newest first (the caller checked the endpoint is the account's). */
export async function recentAttempts(db: Db, endpointId: string, limit: number): Promise<WebhookAttemptLine[]> {
  return db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_messages as m', 'm.message_id', 'a.message_id')
    .selectAll('a')
    .select('m.event_type')
    .where('a.endpoint_id', '=', endpointId)
    .orderBy('a.attempt_id', 'desc')
    .limit(limit)
    .execute()
}

/**
 * The endpoint's recent messages and attempts as of one instant: both reads in one read-only
 * REPEATABLE READ transaction, so a message's `attempts` and `next_attempt_at` always agree with
 * the attempt log beside it (two reads on two connections could straddle an attempt's commit).
 */
export async function readEndpointLog(
  db: Db,
  userId: string,
  endpointId: string,
  limit: number,
): Promise<{ messages: WebhookMessageRow[]; attempts: WebhookAttemptLine[] }> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (trx) => ({ messages: await recentMessages(trx, userId, endpointId, limit), attempts: await recentAttempts(trx, endpointId, limit) }))
}

/**
 * Resend: the message (the account's, of this endpoint) is pending again, due now and retried
 * until 24 hours from now; its id, body and attempt log stay. Undefined when not found.
 */
export async function requeueMessage(db: Db, userId: string, endpointId: string, messageId: string, now: Date): Promise<WebhookMessageRow | undefined> {
  return db
    .updateTable('webhook_messages')
    .set({ status: 'pending', next_attempt_at: now, retry_until: new Date(now.getTime() + WEBHOOK_RETRY_WINDOW_MS), delivered_at: null })
    .where('message_id', '=', messageId)
    .where('endpoint_id', '=', endpointId)
    .where('user_id', '=', userId)
    .returningAll()
    .executeTakeFirst()
}

/** Deletes delivered and failed messages (their attempts cascade) of events before `before`; answers how many. */
export async function purgeFinishedWebhookMessages(db: Db, before: Date): Promise<number> {
  const res = await db.deleteFrom('webhook_messages').where('status', 'in', ['delivered', 'failed']).where('created_at', '<', before).executeTakeFirst()
  return Number(res.numDeletedRows)
}
