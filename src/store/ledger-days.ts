import { sql } from 'kysely'
import type { Db } from './db.ts'
import { CSV_BOOLEAN } from '../domain/export-csv.ts'
import type { ChainRow } from '../domain/ledger-chain.ts'
import { instantOf, nonBillableReasonSql } from './exports.ts'

// The verifiable ledger's store (migration 0035): closed days' roots per account and the public
// tree heads. The rows a root is computed from are read here exactly as the export writes them.

export interface LedgerDayRow {
  user_id: string
  day: string
  rows: number
  billable_impressions: number
  clicks: number
  debit_micros: number
  root: string
  previous_root: string
  leaf_index: number
  sealed_at: Date
}

export interface TreeHeadRow {
  day: string
  tree_size: number
  root_hash: string
  sealed_at: Date
}

const dayText = sql<string>`day::text`.as('day')

/** The last UTC day closed, or null before the first close. */
export async function closedThrough(db: Db): Promise<string | null> {
  const row = await db.selectFrom('ledger_close_state').select(sql<string | null>`closed_through::text`.as('day')).where('id', '=', 1).executeTakeFirstOrThrow()
  return row.day
}

/** Moves the close watermark forward (never back: an overlapping run that closed less leaves it). */
export async function writeClosedThrough(db: Db, day: string, now: Date): Promise<void> {
  await db
    .updateTable('ledger_close_state')
    .set({ closed_through: day, updated_at: now })
    .where('id', '=', 1)
    .where((eb) => eb.or([eb('closed_through', 'is', null), eb('closed_through', '<', day)]))
    .execute()
}

/** The first instant with a ledger row in [from, before), or null. */
export async function nextLedgerRowAt(db: Db, from: Date, before: Date): Promise<Date | null> {
  const row = await db
    .selectFrom('ledger_events')
    .select(sql<Date | null>`min(occurred_at)`.as('at'))
    .where('occurred_at', '>=', from)
    .where('occurred_at', '<', before)
    .executeTakeFirstOrThrow()
  return row.at ? new Date(row.at) : null
}

export async function treeHeadOf(db: Db, day: string): Promise<TreeHeadRow | undefined> {
  return db.selectFrom('ledger_tree_heads').select([dayText, 'tree_size', 'root_hash', 'sealed_at']).where('day', '=', day).executeTakeFirst()
}

/** The accounts with ledger rows in [start, end), in no particular order (the caller sorts by bytes). */
export async function accountsWithRows(db: Db, start: Date, end: Date): Promise<string[]> {
  const rows = await db
    .selectFrom('ledger_events')
    .select('user_id')
    .distinct()
    .where('occurred_at', '>=', start)
    .where('occurred_at', '<', end)
    .execute()
  return rows.map((r) => r.user_id)
}

/** The account's latest root before `day` (null when it has none). */
export async function previousRoot(db: Db, userId: string, day: string): Promise<string | null> {
  const row = await db
    .selectFrom('ledger_days')
    .select('root')
    .where('user_id', '=', userId)
    .where('day', '<', day)
    .orderBy('day', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row?.root ?? null
}

/** Where a page of an account's day rows ended: the row's instant (µs since the epoch, text) and ledger order. */
export interface RowKey {
  micros: string
  eventId: number
}

export interface ChainRowPage {
  rows: (ChainRow & { billable_impression: boolean; click: boolean; debit: number })[]
  last: RowKey | null
}

/**
 * One page of an account's rows in [start, end), in export order (occurred_at, then event_id), each
 * field as the v3 export writes it (src/store/exports.ts#exportLineSql), so a root computed here and one
 * recomputed from a download hash the same text.
 */
export async function chainRowPage(db: Db, userId: string, start: Date, end: Date, after: RowKey | null, limit: number): Promise<ChainRowPage> {
  // On the exact instant (µs), so the index on (user_id, occurred_at) serves every page.
  const afterCond = after
    ? sql`AND e.occurred_at >= ${instantOf(after.micros)} AND (e.occurred_at > ${instantOf(after.micros)} OR e.event_id > ${after.eventId})`
    : sql``
  const { rows } = await sql<{
    timestamp: string
    event_type: string
    campaign_id: string
    creative_id: string
    surface: string
    country: string
    billable: string
    debit_micros: string
    non_billable_reason: string
    debit: number
    micros: string
    event_id: number
  }>`
    SELECT to_char(e.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS timestamp,
           e.event_type, e.campaign_id, e.creative_id, e.surface, coalesce(e.country, '') AS country,
           CASE WHEN e.billable THEN ${CSV_BOOLEAN.true} ELSE ${CSV_BOOLEAN.false} END AS billable,
           e.debit_micros::text AS debit_micros, ${nonBillableReasonSql} AS non_billable_reason,
           e.debit_micros AS debit, (extract(epoch FROM e.occurred_at) * 1000000)::bigint::text AS micros, e.event_id
    FROM ledger_events e
    WHERE e.user_id = ${userId} AND e.occurred_at >= ${start} AND e.occurred_at < ${end} ${afterCond}
    ORDER BY e.occurred_at, e.event_id
    LIMIT ${limit}`.execute(db)
  const lastRow = rows.at(-1)
  return {
    rows: rows.map((r) => ({
      timestamp: r.timestamp,
      event_type: r.event_type,
      campaign_id: r.campaign_id,
      creative_id: r.creative_id,
      surface: r.surface,
      country: r.country,
      billable: r.billable,
      debit_micros: r.debit_micros,
      non_billable_reason: r.non_billable_reason,
      billable_impression: r.event_type === 'impression' && r.billable === CSV_BOOLEAN.true,
      click: r.event_type === 'click',
      debit: Number(r.debit),
    })),
    last: lastRow ? { micros: lastRow.micros, eventId: Number(lastRow.event_id) } : null,
  }
}

export async function insertLedgerDays(db: Db, rows: LedgerDayRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('ledger_days').values(rows).execute()
}

export async function insertTreeHead(db: Db, head: TreeHeadRow): Promise<void> {
  await db.insertInto('ledger_tree_heads').values(head).execute()
}

/** The account's closed days in [from, to] (dates), oldest first, after `afterDay`, at most `limit` + 1 (the extra row tells a next page). */
export async function listLedgerDays(
  db: Db,
  userId: string,
  range: { from: string; to: string; afterDay: string | null; limit: number },
): Promise<(LedgerDayRow & { invoiced_micros: number })[]> {
  let q = db
    .selectFrom('ledger_days as d')
    .select(['d.user_id', sql<string>`d.day::text`.as('day'), 'd.rows', 'd.billable_impressions', 'd.clicks', 'd.debit_micros', 'd.root', 'd.previous_root', 'd.leaf_index', 'd.sealed_at'])
    .select(sql<string>`coalesce((SELECT sum(i.micros) FROM invoice_days i WHERE i.user_id = d.user_id AND i.day = d.day), 0)`.as('invoiced_micros'))
    .where('d.user_id', '=', userId)
    .where('d.day', '>=', range.from)
    .where('d.day', '<=', range.to)
  if (range.afterDay) q = q.where('d.day', '>', range.afterDay)
  const rows = await q.orderBy('d.day').limit(range.limit + 1).execute()
  return rows.map((r) => ({ ...r, invoiced_micros: Number(r.invoiced_micros) }))
}

export async function ledgerDayOf(db: Db, userId: string, day: string): Promise<LedgerDayRow | undefined> {
  return db
    .selectFrom('ledger_days')
    .select(['user_id', dayText, 'rows', 'billable_impressions', 'clicks', 'debit_micros', 'root', 'previous_root', 'leaf_index', 'sealed_at'])
    .where('user_id', '=', userId)
    .where('day', '=', day)
    .executeTakeFirst()
}

/** A closed day's leaves, in leaf order. */
export async function dayLeaves(db: Db, day: string): Promise<{ user_id: string; root: string }[]> {
  return db.selectFrom('ledger_days').select(['user_id', 'root']).where('day', '=', day).orderBy('leaf_index').execute()
}

/** The tree heads of [from, to], newest first, at most `limit`. */
export async function listTreeHeads(db: Db, from: string, to: string, limit: number): Promise<TreeHeadRow[]> {
  return db
    .selectFrom('ledger_tree_heads')
    .select([dayText, 'tree_size', 'root_hash', 'sealed_at'])
    .where('day', '>=', from)
    .where('day', '<=', to)
    .orderBy('day', 'desc')
    .limit(limit)
    .execute()
}
