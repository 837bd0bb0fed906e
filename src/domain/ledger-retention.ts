import { invalid } from './errors.ts'
import { OFFER_TTL_MS } from './delivery.ts'

// The ledger's monthly partitions and their retention (docs/decisions/0354-by-utc-month-declaratively.md, docs/decisions/0358-retention-ledger-partitions.md).

const DAY_MS = 86_400_000

/** Months created ahead of the current one, so that a row never waits for its partition. */
export const PARTITION_MONTHS_AHEAD = 2

/** One monthly partition: its first day and the first day after it (UTC, YYYY-MM-DD). */
export interface LedgerPartition {
  name: string
  fromDay: string
  toDay: string
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`)

/** The first day (YYYY-MM-DD) of the UTC month of `ms`, `plus` months later. */
export function monthStart(ms: number, plus = 0): string {
  const d = new Date(ms)
  return isoDay(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + plus, 1))
}

/** The months whose partitions must exist at `nowMs`: the current one and the next `PARTITION_MONTHS_AHEAD`. */
export function monthsAhead(nowMs: number): string[] {
  return Array.from({ length: PARTITION_MONTHS_AHEAD + 1 }, (_, i) => monthStart(nowMs, i))
}

/** The partition of the month starting `fromDay` (as ledger_ensure_partition, migration 0031, names it). */
export function partitionOf(fromDay: string): LedgerPartition {
  return { name: `ledger_events_${fromDay.slice(0, 7).replace('-', '_')}`, fromDay, toDay: monthStart(dayMs(fromDay), 1) }
}

/**
 * The first day whose rows are beyond retention at `nowMs` is the one `retentionDays` before today:
 * days before `retentionCutoff` may be dropped.
 */
export function retentionCutoff(nowMs: number, retentionDays: number): string {
  return isoDay(dayMs(isoDay(nowMs)) - retentionDays * DAY_MS)
}

/**
 * The partitions to drop at `nowMs`: those whose every day is rolled up (through `rolledThrough`)
 * and before the retention cutoff. Their days' stats come from the rollups, which stay.
 */
export function partitionsToDrop(
  partitions: readonly LedgerPartition[],
  nowMs: number,
  retentionDays: number,
  rolledThrough: string | null,
): LedgerPartition[] {
  if (rolledThrough === null) return []
  const cutoff = retentionCutoff(nowMs, retentionDays)
  const rolledBefore = isoDay(dayMs(rolledThrough) + DAY_MS)
  return partitions.filter((p) => p.toDay <= cutoff && p.toDay <= rolledBefore)
}

/** The first day kept once `dropped` are gone (`current`: the day kept before). */
export function retainedFromAfter(dropped: readonly LedgerPartition[], current: string | null): string | null {
  return dropped.reduce<string | null>((from, p) => (from === null || p.toDay > from ? p.toDay : from), current)
}

/**
 * Claims that decide nothing any more (migration 0031), by the instant they were claimed:
 *  - `view` and `repeat_view` claims a day old: a view is only measured (or found a repeat) within
 *    its offer's hour, and a claim is never older than its offer, so any later report of that
 *    impression is an `expired_view` (the day's margin covers clocks that disagree);
 *  - every other claim (`click`, `expired_view`, the voids) once its row's days are dropped
 *    (`retainedFrom`): a replay of an impression older than the ledger may then be written once
 *    more, never billable (a click past its offer's hour bills nothing).
 */
export function claimsPrunedBefore(nowMs: number, retainedFrom: string | null): { measured: Date; all: Date | null } {
  return {
    measured: new Date(nowMs - Math.max(DAY_MS, OFFER_TTL_MS)),
    all: retainedFrom === null ? null : new Date(dayMs(retainedFrom)),
  }
}

/**
 * Refuses a read of ledger rows from `startMs` on when rows before it were dropped: 400
 * `{field, reason: "beyond_retention", oldest_available_day}`. `retainedFrom` null: nothing dropped.
 */
export function assertLedgerRetained(field: string, startMs: number, retainedFrom: string | null): void {
  if (retainedFrom !== null && startMs < dayMs(retainedFrom)) {
    throw invalid(field, 'beyond_retention', { oldest_available_day: retainedFrom })
  }
}
