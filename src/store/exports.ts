import { sql, type Insertable, type Selectable } from 'kysely'
import type { Db } from './db.ts'
import type { ExportJobsTable } from './schema-exports.ts'
import type { ReportFilters } from '../domain/report-filters.ts'
import type { ExportLedgerRow } from '../domain/export-csv.ts'
import { whereLedgerFilters } from './report-filters.ts'

export type ExportJobRow = Selectable<ExportJobsTable>
export type NewExportJob = Insertable<ExportJobsTable>

export async function insertExportJob(db: Db, row: NewExportJob): Promise<ExportJobRow> {
  return db.insertInto('export_jobs').values(row).returningAll().executeTakeFirstOrThrow()
}

/** The account's own job; another account's id is simply not found. */
export async function findExportJob(db: Db, userId: string, exportId: string): Promise<ExportJobRow | undefined> {
  return db.selectFrom('export_jobs').selectAll().where('export_id', '=', exportId).where('user_id', '=', userId).executeTakeFirst()
}

/**
 * One indexed read over unfinished jobs: is any waiting for a worker (queued,
 * or running with a lease older than `stuckBefore`), and is any unfinished at all?
 */
export async function pendingExports(db: Db, stuckBefore: Date): Promise<{ claimable: boolean; unfinished: boolean }> {
  const row = await db
    .selectFrom('export_jobs')
    .select([
      sql<boolean | null>`bool_or(status = 'queued' OR started_at < ${stuckBefore})`.as('claimable'),
      (eb) => eb.fn.countAll<number>().as('n'),
    ])
    .where('status', 'in', ['queued', 'running'])
    .executeTakeFirstOrThrow()
  return { claimable: row.claimable === true, unfinished: Number(row.n) > 0 }
}

/**
 * Claims the oldest job that waits for a worker, atomically: a queued job, or
 * one stuck in `running` since before `stuckBefore` (its worker died). The row
 * is locked with SKIP LOCKED, so concurrent workers on any instance claim
 * different jobs, and the status/lease condition is re-checked by the UPDATE.
 * The new `started_at` is the claim's lease token; partial chunks of an
 * earlier attempt are deleted in the same transaction.
 */
export async function claimExportJob(db: Db, now: Date, stuckBefore: Date): Promise<ExportJobRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const candidate = await trx
      .selectFrom('export_jobs')
      .select('export_id')
      .where((eb) => eb.or([eb('status', '=', 'queued'), eb.and([eb('status', '=', 'running'), eb('started_at', '<', stuckBefore)])]))
      .orderBy('created_at')
      .orderBy('export_id')
      .limit(1)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst()
    if (!candidate) return undefined
    const claimed = await trx
      .updateTable('export_jobs')
      .set({ status: 'running', started_at: now })
      .where('export_id', '=', candidate.export_id)
      .where((eb) => eb.or([eb('status', '=', 'queued'), eb.and([eb('status', '=', 'running'), eb('started_at', '<', stuckBefore)])]))
      .returningAll()
      .executeTakeFirst()
    if (claimed) await trx.deleteFrom('export_chunks').where('export_id', '=', claimed.export_id).execute()
    return claimed
  })
}

export interface ExportLease {
  exportId: string
  startedAt: Date
}

/**
 * Appends one artifact chunk while the lease still holds (the job is running
 * under this claim). The job row is read FOR SHARE, so a concurrent reclaim
 * (which updates the row and deletes the chunks) is ordered before or after
 * this insert, never interleaved. False when the lease was lost.
 */
export async function appendExportChunk(db: Db, lease: ExportLease, seq: number, data: Buffer): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const held = await trx
      .selectFrom('export_jobs')
      .select('export_id')
      .where('export_id', '=', lease.exportId)
      .where('status', '=', 'running')
      .where('started_at', '=', lease.startedAt)
      .forShare()
      .executeTakeFirst()
    if (!held) return false
    await trx.insertInto('export_chunks').values({ export_id: lease.exportId, seq, data }).execute()
    return true
  })
}

export async function markExportReady(
  db: Db,
  lease: ExportLease,
  result: { row_count: number; size_bytes: number; sha256: string; finished_at: Date },
): Promise<boolean> {
  const r = await db
    .updateTable('export_jobs')
    .set({ status: 'ready', ...result })
    .where('export_id', '=', lease.exportId)
    .where('status', '=', 'running')
    .where('started_at', '=', lease.startedAt)
    .executeTakeFirst()
  return r.numUpdatedRows > 0n
}

/** Ends a job `failed`; whatever artifact was written so far is deleted. */
export async function markExportFailed(db: Db, lease: ExportLease, errorCode: string, finishedAt: Date): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const r = await trx
      .updateTable('export_jobs')
      .set({ status: 'failed', error_code: errorCode, finished_at: finishedAt })
      .where('export_id', '=', lease.exportId)
      .where('status', '=', 'running')
      .where('started_at', '=', lease.startedAt)
      .executeTakeFirst()
    if (r.numUpdatedRows === 0n) return false
    await trx.deleteFrom('export_chunks').where('export_id', '=', lease.exportId).execute()
    return true
  })
}

export interface LedgerWindow {
  userId: string
  start: Date
  end: Date
  filters: ReportFilters
}

function ledgerInWindow(db: Db, w: LedgerWindow) {
  const q = db
    .selectFrom('ledger_events as e')
    .where('e.user_id', '=', w.userId)
    .where('e.occurred_at', '>=', w.start)
    .where('e.occurred_at', '<', w.end)
  return whereLedgerFilters(q, w.filters)
}

/** Counts the matching ledger events, but stops at `cap` (so the answer is min(count, cap)). */
export async function countLedgerRowsUpTo(db: Db, w: LedgerWindow, cap: number): Promise<number> {
  const bounded = ledgerInWindow(db, w).select(sql<number>`1`.as('one')).limit(cap)
  const row = await db
    .selectFrom(bounded.as('b'))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export type LedgerCursor = { occurredAt: Date; eventId: number }

/**
 * One page of exported ledger rows in (occurred_at, event_id) order, after
 * `cursor` (keyset pagination: each page is an index range scan on
 * (user_id, occurred_at), whatever the page number). Selects only the exported
 * columns: viewer keys and impression ids never leave the store.
 */
export async function readLedgerExportPage(
  db: Db,
  w: LedgerWindow,
  cursor: LedgerCursor | null,
  limit: number,
): Promise<(ExportLedgerRow & { event_id: number })[]> {
  let q = ledgerInWindow(db, w).select([
    'e.event_id',
    'e.occurred_at',
    'e.event_type',
    'e.campaign_id',
    'e.creative_id',
    'e.surface',
    'e.country',
    'e.billable',
    'e.debit_micros',
  ])
  if (cursor) {
    q = q
      .where('e.occurred_at', '>=', cursor.occurredAt)
      .where(sql<boolean>`(e.occurred_at, e.event_id) > (${cursor.occurredAt}, ${cursor.eventId})`)
  }
  return q.orderBy('e.occurred_at').orderBy('e.event_id').limit(limit).execute()
}

/** One artifact chunk, or undefined past the last one (or once purged). */
export async function readExportChunk(db: Db, exportId: string, seq: number): Promise<Buffer | undefined> {
  const row = await db.selectFrom('export_chunks').select('data').where('export_id', '=', exportId).where('seq', '=', seq).executeTakeFirst()
  return row?.data
}

export async function countExportChunks(db: Db, exportId: string): Promise<number> {
  const row = await db
    .selectFrom('export_chunks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('export_id', '=', exportId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * Expiry: deletes the artifacts of every job expired at `now`, and the job
 * rows themselves `tombstoneMs` after their expiry (chunks go by cascade).
 */
export async function purgeExpiredExports(db: Db, now: Date, tombstoneMs: number): Promise<{ artifacts_deleted: number; jobs_deleted: number }> {
  const artifacts = await db
    .deleteFrom('export_chunks')
    .where('export_id', 'in', (eb) => eb.selectFrom('export_jobs').select('export_id').where('expires_at', '<=', now))
    .returning('export_id')
    .execute()
  const jobs = await db.deleteFrom('export_jobs').where('expires_at', '<', new Date(now.getTime() - tombstoneMs)).executeTakeFirst()
  return { artifacts_deleted: new Set(artifacts.map((a) => a.export_id)).size, jobs_deleted: Number(jobs.numDeletedRows) }
}
