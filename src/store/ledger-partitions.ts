import { sql } from 'kysely'
import type { Db } from './db.ts'
import { partitionOf, type LedgerPartition } from '../domain/ledger-retention.ts'

// The ledger's monthly partitions (migration 0031; docs/decisions/0354-by-utc-month-declaratively.md, docs/decisions/0358-retention-ledger-partitions.md).

/** The first UTC day whose ledger rows are kept (YYYY-MM-DD), or null while nothing was dropped. */
export async function readRetainedFrom(db: Db): Promise<string | null> {
  const row = await db.selectFrom('ledger_retention').select(sql<string | null>`retained_from::text`.as('day')).where('id', '=', 1).executeTakeFirstOrThrow()
  return row.day
}

/** The monthly partitions, oldest first (named by ledger_ensure_partition; the DEFAULT partition is not one). */
export async function listPartitions(db: Db): Promise<LedgerPartition[]> {
  const { rows } = await sql<{ name: string }>`
    SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'ledger_events'::regclass AND c.relname ~ '^ledger_events_[0-9]{4}_[0-9]{2}$'
    ORDER BY c.relname`.execute(db)
  return rows.map((r) => partitionOf(`${r.name.slice(14, 18)}-${r.name.slice(19, 21)}-01`))
}

/** The months (first day, YYYY-MM-DD) of the rows the DEFAULT partition holds: no month partition covered them when written. */
export async function defaultPartitionMonths(db: Db): Promise<string[]> {
  const { rows } = await sql<{ month: string }>`
    SELECT DISTINCT date_trunc('month', occurred_at AT TIME ZONE 'UTC')::date::text AS month FROM ledger_events_default ORDER BY 1`.execute(db)
  return rows.map((r) => r.month)
}

/** Creates the partition of the month starting `month` unless it exists, moving that month's rows out of the DEFAULT partition; true when created. */
export async function ensurePartition(db: Db, month: string): Promise<boolean> {
  const { rows } = await sql<{ created: boolean }>`SELECT ledger_ensure_partition(${month}::date) AS created`.execute(db)
  return rows[0]!.created
}

/**
 * Drops `partitions`, the offer counts before `retainedFrom`, and moves the retained day to `retainedFrom`, in one transaction. Dropping a
 * partition locks the whole ledger for an instant: waiting longer than `lockTimeoutMs` for a long
 * read gives up (the next run tries again) rather than queueing every ledger write behind it.
 */
export async function dropPartitions(db: Db, partitions: readonly LedgerPartition[], retainedFrom: string, now: Date, lockTimeoutMs = 5000): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`SELECT set_config('lock_timeout', ${String(lockTimeoutMs)}, true)`.execute(trx)
    for (const p of partitions) await sql`DROP TABLE ${sql.table(p.name)}`.execute(trx)
    // The offer counts of the dropped days are in the rollups too (their `events`): they go with the ledger rows.
    await sql`DELETE FROM offer_counts WHERE minute < ${retainedFrom}::date`.execute(trx)
    await trx
      .updateTable('ledger_retention')
      .set({ retained_from: sql<string>`greatest(coalesce(retained_from, ${retainedFrom}::date), ${retainedFrom}::date)`, updated_at: now })
      .where('id', '=', 1)
      .execute()
  })
}

/**
 * Deletes the claims that decide nothing any more (src/domain/ledger-retention.ts#claimsPrunedBefore):
 * measured views and repeats claimed before `measured`, every claim before `all`.
 */
export async function pruneClaims(db: Db, measured: Date, all: Date | null): Promise<number> {
  const res = await db
    .deleteFrom('ledger_claims')
    .where((eb) => {
      const old = eb.and([eb('kind', 'in', ['view', 'repeat_view']), eb('claimed_at', '<', measured)])
      return all === null ? old : eb.or([old, eb('claimed_at', '<', all)])
    })
    .executeTakeFirst()
  return Number(res.numDeletedRows)
}
