import type { Job } from './scheduler.ts'
import type { Db } from '../store/db.ts'
import { DAY_MS, dayMs, isoDay, utcMidnight } from '../domain/stats.ts'
import { nextEventAt, readRolledThrough, rollUpDay, writeRolledThrough } from '../store/rollups.ts'
import { sealLedgerDays } from '../services/ledger-days.ts'

/** Daily rollups close each UTC day shortly after midnight (00:15 UTC). */
export const ROLLUP_OFFSET_MS = 15 * 60_000

/**
 * Rolls up every closed day after the watermark, up to yesterday: days with
 * ledger events are aggregated, empty days only move the watermark. Reruns
 * and catch-ups converge (each day is replaced, never added to). Then the
 * closed days are sealed into the verifiable ledger (services/ledger-days.ts).
 */
export async function runRollups(db: Db, now: Date): Promise<Record<string, unknown>> {
  const today = utcMidnight(now.getTime())
  const yesterday = today - DAY_MS
  const through = await readRolledThrough(db)
  let cursor = through === null ? null : dayMs(through) + DAY_MS
  if (cursor === null) {
    const first = await nextEventAt(db, 0, today)
    cursor = first ? utcMidnight(first.getTime()) : yesterday
  }
  let rolled = 0
  while (cursor <= yesterday) {
    const next = await nextEventAt(db, cursor, today)
    if (next === null) break
    const day = utcMidnight(next.getTime())
    await rollUpDay(db, isoDay(day))
    await writeRolledThrough(db, isoDay(day), now)
    rolled++
    cursor = day + DAY_MS
  }
  if (through === null || dayMs(through) < yesterday) await writeRolledThrough(db, isoDay(yesterday), now)
  const sealed = await sealLedgerDays(db, now)
  return { days_rolled: rolled, rolled_through: isoDay(yesterday), ledger_days_sealed: sealed.days_sealed, ledger_sealed_through: sealed.sealed_through }
}

export function rollupsJob(db: Db): Job {
  return {
    name: 'rollups',
    // Each run rolls up every closed day after its own watermark, so one run covers any gap.
    catchUp: 'latest',
    nextDue: (after) => {
      const at = utcMidnight(after.getTime()) + ROLLUP_OFFSET_MS
      return new Date(at > after.getTime() ? at : at + DAY_MS)
    },
    run: (now) => runRollups(db, now),
  }
}
