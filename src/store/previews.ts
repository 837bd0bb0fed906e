import type { Selectable } from 'kysely'
import type { Db } from './db.ts'
import type { PreviewsTable } from './schema.ts'

export type PreviewRow = Selectable<PreviewsTable>

export async function insertPreview(db: Db, row: PreviewRow): Promise<void> {
  await db.insertInto('previews').values(row).execute()
}

export async function findPreview(db: Db, tokenHash: Buffer): Promise<PreviewRow | undefined> {
  return db.selectFrom('previews').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst()
}

/** Revokes an account's own preview; revoking twice is a no-op. False when not the account's. */
export async function revokePreview(db: Db, userId: string, tokenHash: Buffer, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('previews')
    .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(now)) }))
    .where('token_hash', '=', tokenHash)
    .where('user_id', '=', userId)
    .executeTakeFirst()
  return row.numUpdatedRows > 0n
}

/** Deletes previews that expired more than `graceMs` ago (expiry job). */
export async function purgeExpiredPreviews(db: Db, now: Date, graceMs: number): Promise<number> {
  const result = await db.deleteFrom('previews').where('expires_at', '<', new Date(now.getTime() - graceMs)).executeTakeFirst()
  return Number(result.numDeletedRows)
}
