import { sql } from 'kysely'
import type { Db } from './db.ts'

// The Privacy Pass issuer's keys, the attester subjects' daily counts and the spent tokens' upkeep
// (migration 0037; docs/attestation.md). Spending a token is part of the ledger's batch statement
// (ledger.ts#writeBatch), which claims its nonce with the billable row.

export interface IssuerKeyRow {
  period: number
  token_key_id: Buffer
  token_key: Buffer
  private_key_sealed: Buffer
  not_before: Date
  issue_until: Date
  redeem_until: Date
}

/** Every key that still redeems at `now` or issues later, newest first. */
export async function readIssuerKeys(db: Db, now: Date): Promise<IssuerKeyRow[]> {
  return db.selectFrom('privacy_pass_keys').selectAll().where('redeem_until', '>', now).orderBy('period', 'desc').execute()
}

/** Every key ever used, newest first (the transparency log publishes them all). */
export async function readAllIssuerKeys(db: Db): Promise<Omit<IssuerKeyRow, 'private_key_sealed'>[]> {
  return db
    .selectFrom('privacy_pass_keys')
    .select(['period', 'token_key_id', 'token_key', 'not_before', 'issue_until', 'redeem_until'])
    .orderBy('period', 'desc')
    .execute()
}

/** Adds the key of a period unless another instance did first (its key is then the period's). */
export async function insertIssuerKey(db: Db, row: IssuerKeyRow): Promise<void> {
  await db.insertInto('privacy_pass_keys').values(row).onConflict((oc) => oc.column('period').doNothing()).execute()
}

/**
 * Counts `n` more tokens for a subject's UTC day, unless that would pass `limit`; one statement, so
 * concurrent requests on any number of instances never pass it. True: counted.
 */
export async function countSubjectTokens(db: Db, subjectHash: Buffer, day: string, n: number, limit: number): Promise<boolean> {
  const { rows } = await sql<{ tokens: number }>`
    INSERT INTO attester_subject_days AS d (subject_hash, day, tokens)
    SELECT ${subjectHash}, ${day}::date, ${n}::int WHERE ${n}::int <= ${limit}::int
    ON CONFLICT (subject_hash, day) DO UPDATE SET tokens = d.tokens + excluded.tokens
      WHERE d.tokens + excluded.tokens <= ${limit}::int
    RETURNING tokens`.execute(db)
  return rows.length > 0
}

/** Drops what no longer decides anything: spent tokens of keys past their redemption window, subjects' counts of past days. */
export async function pruneAttestation(db: Db, now: Date, today: string): Promise<void> {
  await sql`DELETE FROM spent_tokens s USING privacy_pass_keys k WHERE s.token_key_id = k.token_key_id AND k.redeem_until <= ${now}`.execute(db)
  await sql`DELETE FROM attester_subject_days WHERE day < ${today}::date`.execute(db)
}
