import { sql, type Insertable, type Selectable } from 'kysely'
import type { Db } from './db.ts'
import type { ArtifactEncoding, ExportJobsTable } from './schema-exports.ts'

// Export jobs: queued, claimed under a lease by a worker, finished, purged. Their artifacts are
// in export-chunks.ts; the ledger rendered as CSV in exports.ts.

export type ExportJobRow = Selectable<ExportJobsTable>
export type NewExportJob = Insertable<ExportJobsTable>

export async function insertExportJob(db: Db, row: NewExportJob): Promise<ExportJobRow> {
  return db.insertInto('export_jobs').values(row).returningAll().executeTakeFirstOrThrow()
}

/**
 * A page of the account's export jobs, newest first by (created_at,
 * export_id): at most `rows`, after the job `before` in that order when set.
 * A keyset scan of `export_jobs_user_created` (migration 0016).
 */
export async function listExportJobs(
  db: Db,
  userId: string,
  page: { rows: number; before: { createdAt: Date; exportId: string } | null },
): Promise<ExportJobRow[]> {
  let query = db.selectFrom('export_jobs').selectAll().where('user_id', '=', userId)
  const before = page.before
  if (before) query = query.where((eb) => eb(eb.refTuple('created_at', 'export_id'), '<', eb.tuple(before.createdAt, before.exportId)))
  return query.orderBy('created_at', 'desc').orderBy('export_id', 'desc').limit(page.rows).execute()
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

export async function markExportReady(
  db: Db,
  lease: ExportLease,
  result: { row_count: number; size_bytes: number; sha256: string; artifact_encoding: ArtifactEncoding; finished_at: Date },
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
