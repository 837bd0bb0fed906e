import type { Db } from './db.ts'
import type { OutboxDelivery } from './schema.ts'

export type { OutboxDelivery } from './schema.ts'

export interface OutboxRow {
  message_id: string
  to_address: string
  subject: string
  body: string
  sent_at: Date
  delivery: OutboxDelivery
  error: string | null
}

/** The most messages one recipient's listing returns. */
export const OUTBOX_LIST_LIMIT = 100

export async function insertOutboxMessage(db: Db, row: OutboxRow): Promise<void> {
  await db.insertInto('outbox').values(row).execute()
}

export async function markOutboxDelivery(db: Db, messageId: string, delivery: OutboxDelivery, error: string | null): Promise<void> {
  await db.updateTable('outbox').set({ delivery, error }).where('message_id', '=', messageId).execute()
}

/** A recipient's messages, newest first, in the order written within one instant (the index on (to_address, sent_at desc, seq desc)). */
export async function listOutboxByRecipient(db: Db, toAddress: string, limit = OUTBOX_LIST_LIMIT): Promise<OutboxRow[]> {
  return db
    .selectFrom('outbox')
    .select(['message_id', 'to_address', 'subject', 'body', 'sent_at', 'delivery', 'error'])
    .where('to_address', '=', toAddress)
    .orderBy('sent_at', 'desc')
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute()
}
