import type { Insertable, Selectable } from 'kysely'
import type { Db } from './db.ts'
import type { OutboxDelivery, OutboxLinkEnd, OutboxTable } from './schema.ts'

export type { OutboxDelivery } from './schema.ts'

/** A stored message as written: its body sealed, and a password link sealed apart (migration 0032). */
export type NewOutboxRow = Omit<Insertable<OutboxTable>, 'seq' | 'body' | 'link_ended'>

/** A stored message as read: sealed (or, written before migration 0032, still clear until start-up seals it). */
export type StoredOutboxRow = Omit<Selectable<OutboxTable>, 'seq' | 'link_token_hash'>

/** The most messages one recipient's listing returns. */
export const OUTBOX_LIST_LIMIT = 100

export async function insertOutboxMessage(db: Db, row: NewOutboxRow): Promise<void> {
  await db.insertInto('outbox').values(row).execute()
}

export async function markOutboxDelivery(db: Db, messageId: string, delivery: OutboxDelivery, error: string | null): Promise<void> {
  await db.updateTable('outbox').set({ delivery, error }).where('message_id', '=', messageId).execute()
}

/** A recipient's messages, newest first, in the order written within one instant (the index on (to_address, sent_at desc, seq desc)). */
export async function listOutboxByRecipient(db: Db, toAddress: string, limit = OUTBOX_LIST_LIMIT): Promise<StoredOutboxRow[]> {
  return db
    .selectFrom('outbox')
    .select(['message_id', 'to_address', 'subject', 'body', 'body_sealed', 'link_at', 'link_sealed', 'link_expires_at', 'link_ended', 'sent_at', 'delivery', 'error'])
    .where('to_address', '=', toAddress)
    .orderBy('sent_at', 'desc')
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute()
}

/** Removes the stored copy of the links carrying these tokens (by SHA-256), saying why; links already removed keep their first reason. */
export async function endEmailedLinks(db: Db, tokenHashes: Buffer[], end: OutboxLinkEnd): Promise<number> {
  if (tokenHashes.length === 0) return 0
  const result = await db
    .updateTable('outbox')
    .set({ link_sealed: null, link_ended: end })
    .where('link_token_hash', 'in', tokenHashes)
    .where('link_sealed', 'is not', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/** Removes the stored copy of every link that expired by `now` (the expiry job; reads hide them already). */
export async function endExpiredEmailedLinks(db: Db, now: Date): Promise<number> {
  const result = await db
    .updateTable('outbox')
    .set({ link_sealed: null, link_ended: 'expired' })
    .where('link_sealed', 'is not', null)
    .where('link_expires_at', '<=', now)
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/** Up to `limit` messages whose body is still in clear (written before migration 0032), oldest first. */
export async function clearOutboxBodies(db: Db, limit: number): Promise<{ message_id: string; body: string }[]> {
  const rows = await db.selectFrom('outbox').select(['message_id', 'body']).where('body', 'is not', null).orderBy('seq').limit(limit).execute()
  return rows.flatMap((r) => (r.body === null ? [] : [{ message_id: r.message_id, body: r.body }]))
}

/** Replaces a clear body by its sealed copy; false when another instance sealed it first. */
export async function sealOutboxBody(db: Db, messageId: string, sealed: Buffer): Promise<boolean> {
  const result = await db
    .updateTable('outbox')
    .set({ body: null, body_sealed: sealed })
    .where('message_id', '=', messageId)
    .where('body', 'is not', null)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}
