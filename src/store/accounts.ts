import { sql, type Selectable, type Updateable } from 'kysely'
import type { Db } from './db.ts'
import type { AccountsTable } from './schema.ts'

export type AccountRow = Selectable<AccountsTable>

export async function insertAccount(
  db: Db,
  row: Pick<AccountRow, 'user_id' | 'email' | 'billing_email' | 'created_at' | 'api_key_hash' | 'key_prefix' | 'key_created_at' | 'api_key_sealed'>,
): Promise<void> {
  await db.insertInto('accounts').values(row).execute()
}

/** The unique index of migration 0034: one account per email, compared lower-cased. */
export const EMAIL_INDEX = 'accounts_email_lower'

/** Whether `err` is an insert refused by the one-account-per-email index (a concurrent creation won). */
export function isEmailTaken(err: unknown): boolean {
  const e = err as { code?: unknown; constraint?: unknown } | null
  return e !== null && typeof e === 'object' && e.code === '23505' && e.constraint === EMAIL_INDEX
}

/**
 * The account whose email equals `email` lower-cased, or undefined. Compared
 * by the store's lower(), the function of the unique index (which this
 * reads): every group of accounts sharing an address from before 0034 has one
 * unmarked row, so an address in use is always found.
 */
export async function findAccountByEmail(db: Db, email: string): Promise<AccountRow | undefined> {
  return db
    .selectFrom('accounts')
    .selectAll()
    .where(sql<string>`lower(email)`, '=', sql<string>`lower(${email})`)
    .where('email_legacy_duplicate', '=', false)
    .executeTakeFirst()
}

export async function findAccount(db: Db, userId: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('user_id', '=', userId).executeTakeFirst()
}

/** Locks the account row for the rest of the transaction: serializes one account's order creation. */
export async function lockAccount(db: Db, userId: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('user_id', '=', userId).forUpdate().executeTakeFirst()
}

/** Returns false when no such account exists. */
export async function updateAccount(db: Db, userId: string, changes: Updateable<AccountsTable>): Promise<boolean> {
  const result = await db.updateTable('accounts').set(changes).where('user_id', '=', userId).executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/**
 * Sets write approval when it differs from `approved`: true when this call changed it (false when
 * it was already so, or there is no such account). Concurrent calls change it once.
 */
export async function changeWriteApproval(db: Db, userId: string, approved: boolean): Promise<boolean> {
  const result = await db.updateTable('accounts').set({ write_approved: approved }).where('user_id', '=', userId).where('write_approved', '<>', approved).executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** Records key use, at most once per `granularityMs` so auth stays one read on the hot path. */
export async function touchKeyLastUsed(db: Db, userId: string, now: Date, granularityMs: number): Promise<void> {
  const threshold = new Date(now.getTime() - granularityMs)
  await db
    .updateTable('accounts')
    .set({ key_last_used_at: now })
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('key_last_used_at', 'is', null), eb('key_last_used_at', '<=', threshold)]))
    .execute()
}

/** `%`, `_` and the escape character itself are literal in a search: LIKE's default escape is the backslash. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

/**
 * Operator search, newest first by (created_at, user_id): every account whose
 * email contains `query` (case-insensitive), or whose user id is `query`
 * exactly; every account when `query` is null. At most `rows`, after the
 * position `before` when set.
 */
export async function searchAccounts(
  db: Db,
  query: string | null,
  page: { rows: number; before: { createdAt: Date; userId: string } | null },
  pendingApproval = false,
): Promise<AccountRow[]> {
  let q = db.selectFrom('accounts').selectAll()
  if (query !== null) q = q.where((eb) => eb.or([eb('user_id', '=', query), eb('email', 'ilike', `%${likeLiteral(query)}%`)]))
  if (pendingApproval) q = q.where('write_approved', '=', false)
  const before = page.before
  if (before) q = q.where((eb) => eb(eb.refTuple('created_at', 'user_id'), '<', eb.tuple(before.createdAt, before.userId)))
  return q.orderBy('created_at', 'desc').orderBy('user_id', 'desc').limit(page.rows).execute()
}
