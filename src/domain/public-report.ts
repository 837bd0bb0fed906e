import { MAX_RANGE_DAYS, type Granularity } from './stats.ts'

/**
 * What a shareable report shows (operations.md section 5, "Public pages"):
 * the campaign's delivery since it was created, on the coarsest bucket that
 * still draws a useful chart, within the /stats windows.
 */
const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS

/** A report uuid as the service writes it: a random (v4) UUID in lower case. */
export const REPORT_UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const floorTo = (ms: number, unit: number) => Math.floor(ms / unit) * unit
const ceilTo = (ms: number, unit: number) => Math.ceil(ms / unit) * unit
const monthStart = (ms: number) => Date.UTC(new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth(), 1)

/**
 * The chart's window, in whole UTC buckets from the campaign's creation to
 * now: hourly up to two days of age, daily up to two years, then monthly.
 * A window longer than /stats allows keeps its most recent part.
 */
export function reportWindow(createdAt: Date, now: Date): { granularity: Granularity; start: Date; end: Date } {
  const age = now.getTime() - createdAt.getTime()
  const granularity: Granularity = age <= 2 * DAY_MS ? 'hour' : age < 730 * DAY_MS ? 'day' : 'month'
  const unit = granularity === 'hour' ? HOUR_MS : DAY_MS
  const endMs = ceilTo(now.getTime() + 1, unit)
  let startMs = granularity === 'month' ? monthStart(createdAt.getTime()) : floorTo(createdAt.getTime(), unit)
  const maxMs = MAX_RANGE_DAYS[granularity] * DAY_MS
  if (endMs - startMs > maxMs) startMs = granularity === 'month' ? monthStart(endMs - maxMs + 31 * DAY_MS) : endMs - maxMs
  return { granularity, start: new Date(startMs), end: new Date(endMs) }
}
