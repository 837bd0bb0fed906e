import { auditPath, byAccountId, DayChain, leafBytes, leafHash, treeHash, ZERO_ROOT } from '../domain/ledger-chain.ts'
import { decodeCursor, encodeCursor } from '../domain/pagination.ts'
import { invalid, notFound } from '../domain/errors.ts'
import { DAY_MS, dayMs, isoDay, utcMidnight } from '../domain/stats.ts'
import type { Db } from '../store/db.ts'
import {
  accountsWithRows,
  chainRowPage,
  dayLeaves,
  insertLedgerDays,
  insertTreeHead,
  ledgerDayOf,
  listLedgerDays,
  listTreeHeads,
  previousRoot,
  closedThrough,
  nextLedgerRowAt,
  writeClosedThrough,
  treeHeadOf,
  type LedgerDayRow,
  type RowKey,
  type TreeHeadRow,
} from '../store/ledger-days.ts'
import { isDayReviewed, lastReviewedDay, nextSourcedEventAt } from '../store/traffic-review.ts'

// The verifiable ledger (issue 39, docs/ledger-verification.md): closing days into per-account roots
// and a public tree per day, and the reads the advertiser verifies them with.

/** Rows read per query while a day's chain is computed: memory stays bounded however busy the day. */
const CHAIN_PAGE_ROWS = 5_000

/**
 * Whether the daily traffic review may still void rows of `day` (it runs at 00:10, before the close at
 * 00:15, but a failed or late review catches up later): the day has rows with a source and is not
 * reviewed, and the review's own catch-up would reach it (after the last reviewed day; on its first
 * run it reviews yesterday alone). A day is closed only once nothing can add rows to it.
 */
async function reviewStillOwed(db: Db, day: string, yesterday: string): Promise<boolean> {
  const last = await lastReviewedDay(db)
  const reachable = last === null ? day >= yesterday : day > last
  if (!reachable || (await isDayReviewed(db, day))) return false
  return (await nextSourcedEventAt(db, dayMs(day), dayMs(day) + DAY_MS)) !== null
}

/**
 * Closes every UTC day after the last closed one up to yesterday (called by the rollups job at 00:15,
 * after the rollups): each day with ledger rows gets its accounts' roots and its tree head, in day order,
 * in one transaction per day; days without rows are stepped over (they have no head). Stops before a day
 * the traffic review still owes (the next run closes it). A day is closed once: a rerun or an overlapping
 * instance writes nothing new (the head's primary key), and the watermark only moves forward.
 */
export async function sealLedgerDays(db: Db, now: Date): Promise<{ days_sealed: number; sealed_through: string | null }> {
  const today = utcMidnight(now.getTime())
  const yesterday = isoDay(today - DAY_MS)
  const through = await closedThrough(db)
  let cursor = through === null ? Number.NEGATIVE_INFINITY : dayMs(through) + DAY_MS
  let sealed = 0
  let last = through
  while (cursor <= today - DAY_MS) {
    const next = await nextLedgerRowAt(db, new Date(Number.isFinite(cursor) ? cursor : -62_135_596_800_000), new Date(today))
    // No rows up to yesterday: every day to it is closed (and empty).
    const day = next === null ? null : isoDay(utcMidnight(next.getTime()))
    if (day === null) {
      last = yesterday
      break
    }
    if (await reviewStillOwed(db, day, yesterday)) {
      // Closed up to the day before the one the review owes.
      last = isoDay(dayMs(day) - DAY_MS)
      break
    }
    await sealDay(db, day, now)
    sealed++
    last = day
    cursor = dayMs(day) + DAY_MS
  }
  if (last !== null && (through === null || last > through)) await writeClosedThrough(db, last, now)
  const after = last !== null && (through === null || last > through) ? last : through
  return { days_sealed: sealed, sealed_through: after }
}

async function sealDay(db: Db, day: string, now: Date): Promise<void> {
  const start = new Date(dayMs(day))
  const end = new Date(dayMs(day) + DAY_MS)
  await db.transaction().execute(async (trx) => {
    if (await treeHeadOf(trx, day)) return
    const accounts = (await accountsWithRows(trx, start, end)).sort(byAccountId)
    const days: LedgerDayRow[] = []
    for (const [leafIndex, userId] of accounts.entries()) {
      const prev = (await previousRoot(trx, userId, day)) ?? ZERO_ROOT
      const chain = new DayChain(userId, day, prev)
      const figures = { rows: 0, billable_impressions: 0, clicks: 0, debit_micros: 0 }
      let after: RowKey | null = null
      for (;;) {
        const page = await chainRowPage(trx, userId, start, end, after, CHAIN_PAGE_ROWS)
        for (const row of page.rows) {
          chain.add(row)
          figures.rows++
          if (row.billable_impression) figures.billable_impressions++
          if (row.click) figures.clicks++
          figures.debit_micros += row.debit
        }
        if (page.rows.length < CHAIN_PAGE_ROWS) break
        after = page.last
      }
      days.push({ user_id: userId, day, ...figures, root: chain.root, previous_root: prev, leaf_index: leafIndex, sealed_at: now })
    }
    await insertLedgerDays(trx, days)
    const root = treeHash(days.map((d) => leafHash(leafBytes(d.user_id, d.root))))
    await insertTreeHead(trx, { day, tree_size: days.length, root_hash: root.toString('hex'), sealed_at: now })
  })
}

/** A date (YYYY-MM-DD) that is a real calendar day, else 400 naming the field. */
function calendarDay(field: string, value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(dayMs(value)) || isoDay(dayMs(value)) !== value) throw invalid(field, 'invalid_date')
  return value
}

export const LEDGER_DAYS_PAGE_DEFAULT = 100
export const LEDGER_DAYS_PAGE_MAX = 400

export interface LedgerDaysQuery {
  from: string
  to: string
  cursor?: string
  limit?: number
}

/** The account's closed days in [from, to], oldest first, paged by day (GET /v1/ledger/days). */
export async function readLedgerDays(
  ctx: { db: Db },
  userId: string,
  q: LedgerDaysQuery,
): Promise<{ days: (LedgerDayRow & { invoiced_micros: number })[]; nextCursor: string | null; closedThrough: string | null }> {
  const from = calendarDay('from', q.from)
  const to = calendarDay('to', q.to)
  if (to < from) throw invalid('to', 'to_before_from')
  const afterDay = q.cursor ? decodeCursor('ledger_days', q.cursor, (k) => (typeof k[0] === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(k[0]) ? k[0] : null)) : null
  const limit = q.limit ?? LEDGER_DAYS_PAGE_DEFAULT
  const [rows, closed] = await Promise.all([listLedgerDays(ctx.db, userId, { from, to, afterDay, limit }), closedThrough(ctx.db)])
  if (rows.length <= limit) return { days: rows, nextCursor: null, closedThrough: closed }
  const days = rows.slice(0, limit)
  return { days, nextCursor: encodeCursor('ledger_days', [days.at(-1)!.day]), closedThrough: closed }
}

export interface InclusionProof {
  day: LedgerDayRow
  head: TreeHeadRow
  leafHash: string
  auditPath: string[]
}

/** The account's inclusion proof in a closed day's tree (RFC 6962 / 9162 audit path); 404 when the account has no root that day. */
export async function readInclusionProof(ctx: { db: Db }, userId: string, date: string): Promise<InclusionProof> {
  const day = calendarDay('date', date)
  const [own, head] = await Promise.all([ledgerDayOf(ctx.db, userId, day), treeHeadOf(ctx.db, day)])
  if (!own || !head) throw notFound('closed ledger day of this account')
  const leaves = (await dayLeaves(ctx.db, day)).map((l) => leafHash(leafBytes(l.user_id, l.root)))
  return {
    day: own,
    head,
    leafHash: leaves[own.leaf_index]!.toString('hex'),
    auditPath: auditPath(own.leaf_index, leaves).map((h) => h.toString('hex')),
  }
}

export const TRANSPARENCY_DAYS = 400

/** The published tree heads, newest first: the last TRANSPARENCY_DAYS closed days with rows (the public log), and the last day closed. */
export async function readTreeHeads(ctx: { db: Db }, range?: { from: string; to: string }): Promise<{ heads: TreeHeadRow[]; closedThrough: string | null }> {
  const to = range?.to ?? '9999-12-31'
  const from = range?.from ?? '0001-01-01'
  const [heads, closed] = await Promise.all([listTreeHeads(ctx.db, from, to, TRANSPARENCY_DAYS), closedThrough(ctx.db)])
  return { heads, closedThrough: closed }
}
