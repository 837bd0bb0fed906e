import type { Selectable } from 'kysely'
import type { Db } from './db.ts'
import type { LoginsTable, OutboxLinkEnd, PasswordTokenPurpose, PasswordTokensTable, SessionsTable, SessionSubjectKind } from './schema.ts'

export type LoginRow = Selectable<LoginsTable>
export type SessionRow = Selectable<SessionsTable>
export type PasswordTokenRow = Selectable<PasswordTokensTable>

export async function findLoginByEmail(db: Db, emailKey: string): Promise<LoginRow | undefined> {
  return db.selectFrom('logins').selectAll().where('email_key', '=', emailKey).executeTakeFirst()
}

export async function findLoginByUser(db: Db, userId: string): Promise<LoginRow | undefined> {
  return db.selectFrom('logins').selectAll().where('user_id', '=', userId).executeTakeFirst()
}

/** Inserts a login; false when the email or the account already has one. */
export async function insertLogin(db: Db, row: LoginRow): Promise<boolean> {
  const inserted = await db.insertInto('logins').values(row).onConflict((oc) => oc.doNothing()).returning('user_id').executeTakeFirst()
  return inserted !== undefined
}

/**
 * Sets a login's password, and first ends every outstanding emailed link of the account (reset
 * and set-password: issue 34), so no caller can change a password and leave a link working. Run
 * it in the caller's transaction; on its own, a failure between the two statements leaves the
 * links ended and the password as it was, never the reverse.
 */
export async function updatePassword(db: Db, userId: string, passwordHash: string, now: Date): Promise<void> {
  await endPasswordLinks(db, userId, now, 'password_changed')
  await db.updateTable('logins').set({ password_hash: passwordHash, password_changed_at: now }).where('user_id', '=', userId).execute()
}

/**
 * Ends the account's live password links (of one purpose, or all), and removes their stored
 * copies from the outbox saying why, in one statement. Ended links count as used: they stay in
 * the store until they expire (the per-account count of reset emails reads them).
 */
export async function endPasswordLinks(db: Db, userId: string, now: Date, end: OutboxLinkEnd, purpose?: PasswordTokenPurpose): Promise<void> {
  await db
    .with('ended', (qb) => {
      let q = qb.updateTable('password_tokens').set({ used_at: now }).where('user_id', '=', userId).where('used_at', 'is', null).where('expires_at', '>', now)
      if (purpose) q = q.where('purpose', '=', purpose)
      return q.returning('token_hash')
    })
    .updateTable('outbox')
    .set({ link_sealed: null, link_ended: end })
    .where('link_sealed', 'is not', null)
    .where('link_token_hash', 'in', (eb) => eb.selectFrom('ended').select('ended.token_hash'))
    .execute()
}

/** How many links of `purpose` the account was sent after `since` (used, ended or live; kept until they expire). */
export async function countPasswordLinksSince(db: Db, userId: string, purpose: PasswordTokenPurpose, since: Date): Promise<number> {
  const row = await db
    .selectFrom('password_tokens')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function insertSession(db: Db, row: SessionRow): Promise<void> {
  await db.insertInto('sessions').values(row).execute()
}

export async function findSession(db: Db, tokenHash: Buffer, kind: SessionSubjectKind): Promise<SessionRow | undefined> {
  return db.selectFrom('sessions').selectAll().where('token_hash', '=', tokenHash).where('subject_kind', '=', kind).executeTakeFirst()
}

export async function touchSession(db: Db, tokenHash: Buffer, idleExpiresAt: Date): Promise<void> {
  await db.updateTable('sessions').set({ idle_expires_at: idleExpiresAt }).where('token_hash', '=', tokenHash).execute()
}

export async function deleteSession(db: Db, tokenHash: Buffer): Promise<void> {
  await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute()
}

/** Ends every session of a subject, or every one but `keep` (the session that changed the password). */
export async function deleteSubjectSessions(db: Db, kind: SessionSubjectKind, subjectId: string, keep?: Buffer): Promise<void> {
  let q = db.deleteFrom('sessions').where('subject_kind', '=', kind).where('subject_id', '=', subjectId)
  if (keep) q = q.where('token_hash', '!=', keep)
  await q.execute()
}

/** Forgets sessions that ended before `now` (the expiry job). */
export async function deleteExpiredSessions(db: Db, now: Date): Promise<number> {
  const result = await db
    .deleteFrom('sessions')
    .where((eb) => eb.or([eb('idle_expires_at', '<=', now), eb('expires_at', '<=', now)]))
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

/**
 * Forgets password links that expired before `now` (the expiry job). A used or ended link stays
 * until then: the count of an account's reset emails in the last hour reads it.
 */
export async function deleteExpiredPasswordTokens(db: Db, now: Date): Promise<number> {
  const result = await db.deleteFrom('password_tokens').where('expires_at', '<=', now).executeTakeFirst()
  return Number(result.numDeletedRows)
}

export async function insertPasswordToken(db: Db, row: Omit<PasswordTokenRow, 'used_at'>): Promise<void> {
  await db.insertInto('password_tokens').values({ ...row, used_at: null }).execute()
}

/** Marks a live token of `purpose` used and returns it; undefined when unknown, used or expired. One use, even under races. */
export async function consumePasswordToken(db: Db, tokenHash: Buffer, now: Date): Promise<PasswordTokenRow | undefined> {
  return db
    .updateTable('password_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst()
}

export async function findPasswordToken(db: Db, tokenHash: Buffer, now: Date): Promise<PasswordTokenRow | undefined> {
  return db
    .selectFrom('password_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst()
}

export type { PasswordTokenPurpose, SessionSubjectKind }
