import { sql, type Insertable, type RawBuilder, type Selectable } from 'kysely'
import type { Db } from './db.ts'
import type { ArtifactEncoding, ExportJobsTable } from './schema-exports.ts'
import type { ReportFilters } from '../domain/report-filters.ts'
import {
  CSV_BOOLEAN,
  CSV_LINE_END,
  CSV_SEPARATOR,
  EXPORT_FIELDS,
  type ExportField,
  type ExportSchemaVersion,
} from '../domain/export-csv.ts'
import { whereLedgerFilters } from './report-filters.ts'

export type ExportJobRow = Selectable<ExportJobsTable>
export type NewExportJob = Insertable<ExportJobsTable>

export async function insertExportJob(db: Db, row: NewExportJob): Promise<ExportJobRow> {
  return db.insertInto('export_jobs').values(row).returningAll().executeTakeFirstOrThrow()
}

/** The account's own job; another account's id is simply not found. */
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
 * Appends artifact chunks (numbered from `firstSeq`, in one transaction) while the lease still holds (the job is running
 * under this claim). The job row is read FOR SHARE, so a concurrent reclaim
 * (which updates the row and deletes the chunks) is ordered before or after
 * this insert, never interleaved. False when the lease was lost.
 */
export async function appendExportChunks(db: Db, lease: ExportLease, firstSeq: number, chunks: readonly Buffer[]): Promise<boolean> {
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
    if (chunks.length > 0) {
      await trx
        .insertInto('export_chunks')
        .values(chunks.map((data, i) => ({ export_id: lease.exportId, seq: firstSeq + i, data })))
        .execute()
    }
    return true
  })
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

/**
 * The CSV text of one exported ledger line, as SQL over `ledger_events e`.
 * Generated from the contract's own field list and constants
 * (src/domain/export-csv.ts), never written by hand: each field kind maps to
 * one expression. Tokens are written as they are stored: the store's CHECK
 * constraints keep quote triggers out of them (migration 0010), which spares
 * a quoting check per field and row. The v2 billing country is the same on
 * every row, so it is formatted once by the domain formatter and passed in as
 * `billingCountryField`.
 */
export function exportLineSql(version: ExportSchemaVersion, billingCountryField: string | null): RawBuilder<string> {
  const field = (f: ExportField): RawBuilder<unknown> => {
    const column = sql.ref(`e.${f.source}`)
    switch (f.kind) {
      // Date#toISOString: UTC, milliseconds (finer digits truncated, as to_char's MS does), `Z`.
      case 'timestamp':
        return sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
      case 'token':
        return column
      case 'optional_token':
        return sql`coalesce(${column}, '')`
      case 'boolean':
        return sql`CASE WHEN ${column} THEN ${CSV_BOOLEAN.true} ELSE ${CSV_BOOLEAN.false} END`
      case 'integer':
        return sql`${column}::text`
    }
  }
  const fields = EXPORT_FIELDS.map(field)
  if (version === 'ledger-export-v2') fields.push(sql`${billingCountryField ?? ''}::text`)
  return sql<string>`concat_ws(${CSV_SEPARATOR}, ${sql.join(fields)}) || ${CSV_LINE_END}`
}

/**
 * An instant of the ledger in whole microseconds since the epoch, as decimal
 * text: the store's precision (a millisecond Date would misplace an event with
 * finer digits), and far instants exceed 2^53 µs.
 */
export type LedgerInstant = string

/** Where the pages of an export end: see planLedgerExport. */
export interface ExportPlan {
  /**
   * Matching events, at least: exact, except that events sharing a page's last
   * instant beyond the `pageRows`-th are not counted. Counting stops once it reaches the cap.
   */
  rows: number
  /** Where each page ends: the instant of the `pageRows`-th event after the previous end. */
  pageEnds: LedgerInstant[]
}

const microsOf = (at: RawBuilder<unknown>) => sql`(extract(epoch FROM ${at}) * 1000000)::bigint::text`
// Back to the exact instant: whole days plus microseconds, each small enough for the interval
// arithmetic (double precision) to be exact, on a timestamp without time zone (no DST in day steps).
const instantOf = (micros: LedgerInstant) =>
  sql`((timestamp 'epoch' + (${micros}::bigint / 86400000000) * interval '1 day' + (${micros}::bigint % 86400000000) * interval '1 microsecond') AT TIME ZONE 'UTC')`

/**
 * Where the pages of an export end, found before any is rendered, so pages
 * are independent ranges the store can render at the same time (two
 * connections on PostgreSQL): page k holds the events with
 * end k-1 < occurred_at <= end k (events sharing an instant stay together,
 * so a page can be a little longer), and the last page runs to the window's
 * end. One short query per page: the next `pageRows` instants in index order
 * (an index scan of (user_id, occurred_at) that stops there when no filter is
 * set), answering their count and the last one. It is also the row limit's
 * first count: it stops once `rows` reaches `cap`. An event recorded into the
 * window meanwhile joins the page of its instant; no event already counted is
 * skipped or repeated.
 */
export async function planLedgerExport(db: Db, w: LedgerWindow, cap: number, pageRows: number): Promise<ExportPlan> {
  const pageEnds: LedgerInstant[] = []
  let rows = 0
  while (rows < cap) {
    const after = pageEnds.at(-1)
    let next = ledgerInWindow(db, w).select('e.occurred_at')
    if (after !== undefined) next = next.where(sql<boolean>`e.occurred_at > ${instantOf(after)}`)
    const r = await sql<{ n: number; last: LedgerInstant | null }>`
      SELECT count(*) AS n, ${microsOf(sql`max(x.occurred_at)`)} AS last
      FROM ${next.orderBy('e.occurred_at').limit(pageRows)} AS x`.execute(db)
    const { n, last } = r.rows[0]!
    rows += Number(n)
    if (Number(n) < pageRows || last === null) break
    pageEnds.push(last)
  }
  return { rows, pageEnds }
}

export interface ExportTextPage {
  rows: number
  /** The page's CSV lines, concatenated in ledger order. */
  text: string
}

/**
 * One page of the export, rendered as CSV text by the store: the matching
 * events with `after` < occurred_at <= `through` (either open), in
 * (occurred_at, event_id) order, each formatted by `line` (see exportLineSql)
 * and joined in that order. A range scan of the window's index whatever the
 * page. Only exported columns are read into the text: viewer keys and
 * impression ids never leave the store.
 */
export async function readLedgerExportText(
  db: Db,
  w: LedgerWindow,
  after: LedgerInstant | null,
  through: LedgerInstant | null,
  line: RawBuilder<string>,
): Promise<ExportTextPage> {
  let q = ledgerInWindow(db, w).select(['e.occurred_at', 'e.event_id', line.as('line')])
  if (after !== null) q = q.where(sql<boolean>`e.occurred_at > ${instantOf(after)}`)
  if (through !== null) q = q.where(sql<boolean>`e.occurred_at <= ${instantOf(through)}`)
  const page = q.orderBy('e.occurred_at').orderBy('e.event_id')
  // string_agg consumes the ordered subquery in its order (a plain aggregate over it, no join): an
  // ORDER BY inside the aggregate would sort the page a second time.
  const r = await sql<{ n: number; text: string | null }>`SELECT count(*) AS n, string_agg(p.line, '') AS text FROM ${page} AS p`.execute(db)
  const row = r.rows[0]!
  return { rows: Number(row.n), text: row.text ?? '' }
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
