import type { Mailer, MailMessage } from '../platform/mailer.ts'
import { newId } from '../platform/ids.ts'
import { insertOutboxMessage, listOutboxByRecipient, markOutboxDelivery, type OutboxRow } from '../store/outbox.ts'
import type { ServiceContext } from './context.ts'

/** Where a failed delivery is reported (the instance's logger). */
export interface EmailLog {
  warn(obj: object, msg: string): void
}

/** What sending email needs: the SMTP mailer when SMTP_URL is set (else null) and a logger. */
export interface EmailContext extends ServiceContext {
  mailer: Mailer | null
  log: EmailLog
}

/**
 * Sends one email (docs/decisions.md "Email"): the message is committed to the
 * outbox first, then, when SMTP is configured, handed to the SMTP server and
 * marked `sent` or `failed`. An SMTP failure is recorded and logged, never
 * thrown: the caller's use case does not depend on the mail server. Call it
 * after the caller's own transaction commits, never inside it.
 */
export async function sendEmail(ctx: EmailContext, msg: MailMessage): Promise<OutboxRow> {
  const row: OutboxRow = {
    message_id: newId('msg'),
    to_address: msg.to,
    subject: msg.subject,
    body: msg.text,
    sent_at: ctx.clock.now(),
    delivery: 'stored',
    error: null,
  }
  await insertOutboxMessage(ctx.db, row)
  if (!ctx.mailer) return row
  try {
    await ctx.mailer.send(msg)
    row.delivery = 'sent'
  } catch (err) {
    row.delivery = 'failed'
    row.error = describeFailure(err)
    // The message id and the reason only: no addresses, no SMTP_URL (it may carry credentials).
    ctx.log.warn({ message_id: row.message_id, error: row.error }, 'email delivery failed')
  }
  await markOutboxDelivery(ctx.db, row.message_id, row.delivery, row.error)
  return row
}

/** A recipient's messages, newest first. */
export async function listOutbox(ctx: ServiceContext, to: string): Promise<OutboxRow[]> {
  return listOutboxByRecipient(ctx.db, to)
}

function describeFailure(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown }
  const message = typeof e?.message === 'string' ? e.message : String(err)
  const code = typeof e?.code === 'string' ? `${e.code}: ` : ''
  return `${code}${message}`.slice(0, 500)
}
