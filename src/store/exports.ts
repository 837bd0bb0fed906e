import { sql, type RawBuilder } from 'kysely'
import type { Db } from './db.ts'
import type { ReportFilters } from '../domain/report-filters.ts'
import {
  CSV_BOOLEAN,
  CSV_LINE_END,
  CSV_SEPARATOR,
  EXPORT_FIELDS,
  hasBillingCountry,
  hasReasons,
  REASONED_EVENT_TYPES,
  type ExportField,
  type V3OnlyEventType,
  type ExportSchemaVersion,
} from '../domain/export-csv.ts'
import { whereLedgerFilters } from './report-filters.ts'
import { LEGACY_REASONS } from '../domain/delivery.ts'

// The ledger read for an export: the page plan and each page rendered as CSV text by the store.
// The jobs are in export-jobs.ts, their artifacts in export-chunks.ts.

export interface LedgerWindow {
  userId: string
  start: Date
  end: Date
  filters: ReportFilters
  /** Event types the export's version does not list (`eventTypesLeftOut`: v1 and v2 leave out the repeat and late view reports and the voided rows). */
  leaveOut: readonly V3OnlyEventType[]
}

function ledgerInWindow(db: Db, w: LedgerWindow) {
  const q = db
    .selectFrom('ledger_events as e')
    .where('e.user_id', '=', w.userId)
    .where('e.occurred_at', '>=', w.start)
    .where('e.occurred_at', '<', w.end)
  return whereLedgerFilters(w.leaveOut.length ? q.where('e.event_type', 'not in', w.leaveOut) : q, w.filters)
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
  if (hasBillingCountry(version)) fields.push(sql`${billingCountryField ?? ''}::text`)
  if (hasReasons(version)) fields.push(nonBillableReasonSql)
  // base64url without padding, as the domain formatter writes it (Buffer's 'base64url').
  if (version === 'ledger-export-v4') {
    fields.push(sql`CASE WHEN e.event_type = 'impression' AND e.attestation_token IS NOT NULL
      THEN translate(rtrim(encode(e.attestation_token, 'base64'), '='), E'+/\n', '-_') ELSE '' END`)
  }
  return sql<string>`concat_ws(${CSV_SEPARATOR}, ${sql.join(fields)}) || ${CSV_LINE_END}`
}

/**
 * v3's `non_billable_reason` (domain: nonBillableReasonText): the reason of a non-billable view
 * report or a voided row under its current name, blank on every other row. Reasons are tokens of the one vocabulary
 * (CHECK ledger_view_reason_known, migration 0025): no quoting needed.
 */
export const nonBillableReasonSql = sql`CASE WHEN e.event_type IN (${sql.join(REASONED_EVENT_TYPES.map((t) => sql.lit(t)))})
    THEN coalesce(CASE e.reason ${sql.join(
      Object.entries(LEGACY_REASONS).map(([old, current]) => sql`WHEN ${sql.lit(old)} THEN ${sql.lit(current)}`),
      sql` `,
    )} ELSE e.reason END, '') ELSE '' END`

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
export const instantOf = (micros: LedgerInstant) =>
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

