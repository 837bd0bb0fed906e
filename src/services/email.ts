import { endedLinkNotice, linkShown, UNREADABLE_BODY, withLink, withoutLink } from '../domain/email-links.ts'
import type { Mailer, MailMessage } from '../platform/mailer.ts'
import { newId } from '../platform/ids.ts'
import {
  clearOutboxBodies,
  insertOutboxMessage,
  listOutboxByRecipient,
  markOutboxDelivery,
  sealOutboxBody,
  type OutboxDelivery,
  type StoredOutboxRow,
} from '../store/outbox.ts'
import type { ServiceContext } from './context.ts'
import { outboxSealer, type OutboxSealer } from './key-sealing.ts'

/** Where a failed delivery is reported (the instance's logger). */
export interface EmailLog {
  warn(obj: object, msg: string): void
}

/** What sending email needs: the SMTP mailer when SMTP_URL is set (else null) and a logger. */
export interface EmailContext extends ServiceContext {
  mailer: Mailer | null
  log: EmailLog
}

/** A password link in a message: the URL as it appears in the text, the SHA-256 of its token, and when it stops working. */
export interface EmailedLink {
  url: string
  tokenHash: Buffer
  expiresAt: Date
}

/** A message in the outbox, not yet handed to SMTP. */
export interface RecordedEmail {
  messageId: string
  msg: MailMessage
}

/**
 * Records one message in the outbox, sealed at rest (issue 34): the body under the key-sealing
 * key, and a password link, when the message carries one, sealed apart so that ending the link
 * removes it from the stored copy (docs/security.md, "Email links at rest"). May run inside the
 * caller's transaction (a link's message is written with its token); `deliverEmail` after commit.
 */
export async function recordEmail(ctx: ServiceContext, msg: MailMessage, link?: EmailedLink): Promise<RecordedEmail> {
  const messageId = newId('msg')
  const sealer = await outboxSealer(ctx)
  const parts = link ? withoutLink(msg.text, link.url) : { body: msg.text, at: null }
  await insertOutboxMessage(ctx.db, {
    message_id: messageId,
    to_address: msg.to,
    subject: msg.subject,
    body_sealed: sealer.seal(messageId, 'body', parts.body),
    link_at: parts.at,
    link_sealed: link ? sealer.seal(messageId, 'link', link.url) : null,
    link_token_hash: link?.tokenHash ?? null,
    link_expires_at: link?.expiresAt ?? null,
    sent_at: ctx.clock.now(),
    delivery: 'stored',
    error: null,
  })
  return { messageId, msg }
}

/**
 * Hands a recorded message to the SMTP server when SMTP is configured and marks it `sent` or
 * `failed` (docs/operations.md (decision 0171), docs/operations.md (decision 0172)). An SMTP failure is recorded and logged, never thrown:
 * the caller's use case does not depend on the mail server. Call it after the transaction that
 * recorded the message commits, never inside it.
 */
export async function deliverEmail(ctx: EmailContext, recorded: RecordedEmail): Promise<OutboxDelivery> {
  if (!ctx.mailer) return 'stored'
  let delivery: OutboxDelivery = 'sent'
  let error: string | null = null
  try {
    await ctx.mailer.send(recorded.msg)
  } catch (err) {
    delivery = 'failed'
    error = describeFailure(err)
    // The message id and the reason only: no addresses, no SMTP_URL (it may carry credentials).
    ctx.log.warn({ message_id: recorded.messageId, error }, 'email delivery failed')
  }
  await markOutboxDelivery(ctx.db, recorded.messageId, delivery, error)
  return delivery
}

/** Sends one message without a password link: recorded in the outbox first, then delivered. Call it after the caller's own transaction commits. */
export async function sendEmail(ctx: EmailContext, msg: MailMessage): Promise<OutboxDelivery> {
  return deliverEmail(ctx, await recordEmail(ctx, msg))
}

/** A message as operators read it (GET /admin/v1/outbox): opened, its link shown only while it works. */
export interface OutboxMessage {
  message_id: string
  to_address: string
  subject: string
  text: string
  sent_at: Date
  delivery: OutboxDelivery
  error: string | null
}

/**
 * A recipient's messages, newest first, opened. A password link is put back only while it
 * works: one used, replaced, ended by a password change or past its deadline (even before the
 * expiry job removes its stored copy) reads as a notice saying so.
 */
export async function listOutbox(ctx: ServiceContext, to: string): Promise<OutboxMessage[]> {
  const rows = await listOutboxByRecipient(ctx.db, to)
  if (rows.length === 0) return []
  const sealer = await outboxSealer(ctx)
  const now = ctx.clock.now()
  return rows.map((row) => ({
    message_id: row.message_id,
    to_address: row.to_address,
    subject: row.subject,
    text: openedText(row, sealer, now),
    sent_at: row.sent_at,
    delivery: row.delivery,
    error: row.error,
  }))
}

function openedText(row: StoredOutboxRow, sealer: OutboxSealer, now: Date): string {
  const body = row.body ?? (row.body_sealed ? sealer.open(row.message_id, 'body', row.body_sealed) : null)
  if (body === null) return UNREADABLE_BODY
  if (row.link_at === null) return body
  const live = row.link_sealed !== null && row.link_expires_at !== null && linkShown(row.link_expires_at, now)
  const link = live && row.link_sealed ? sealer.open(row.message_id, 'link', row.link_sealed) : null
  return withLink(body, row.link_at, link ?? endedLinkNotice(row.link_ended ?? 'expired'))
}

/** Messages sealed per round trip when start-up seals the bodies written before migration 0032. */
const SEAL_BATCH = 200

/**
 * Seals every body still in clear: rows written before migration 0032 (which removed their
 * links, holding no key to seal them), or by an instance of an older version during a rolling
 * upgrade. Runs at start-up of the instances that run jobs and in the daily expiry job;
 * several instances at once only race to seal the same row, and the first one wins.
 */
export async function sealClearOutbox(ctx: Pick<ServiceContext, 'db' | 'settings'>): Promise<number> {
  const sealer = await outboxSealer(ctx)
  let sealed = 0
  for (;;) {
    const rows = await clearOutboxBodies(ctx.db, SEAL_BATCH)
    for (const row of rows) if (await sealOutboxBody(ctx.db, row.message_id, sealer.seal(row.message_id, 'body', row.body))) sealed++
    if (rows.length < SEAL_BATCH) return sealed
  }
}

function describeFailure(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown }
  const message = typeof e?.message === 'string' ? e.message : String(err)
  const code = typeof e?.code === 'string' ? `${e.code}: ` : ''
  return `${code}${message}`.slice(0, 500)
}
