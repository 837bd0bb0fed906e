import { invalid } from './errors.ts'
import { NON_BILLABLE_REASONS, noNonBillable, type NonBillableCounts } from './delivery.ts'

/**
 * /stats windows and routing (advertiser spec, GET /stats rules 1-7). Pure:
 * times are epoch milliseconds, all UTC.
 */
export const GRANULARITIES = ['hour', 'day', 'month'] as const
export type Granularity = (typeof GRANULARITIES)[number]

export const DAY_MS = 86_400_000
const HOUR_MS = 3_600_000

/** Maximum range per granularity: hour 31 days, day 2 years, month 10 years. */
export const MAX_RANGE_DAYS: Record<Granularity, number> = { hour: 31, day: 731, month: 3653 }

export const utcMidnight = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS
export const isMidnight = (ms: number) => ms % DAY_MS === 0
export const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)
export const dayMs = (isoDate: string) => Date.parse(`${isoDate}T00:00:00Z`)

export interface WindowInput {
  start: Date | null
  end: Date | null
  lastDays: number | null
}

export interface Window {
  startMs: number
  endMs: number
}

/**
 * Resolves the measured window. No window (or last_days=7) is the last seven
 * complete UTC days, ending at today's midnight, or a day earlier while
 * yesterday is still being rolled up. Explicit bounds are honoured verbatim:
 * only start → up to now; only end → the seven days before it.
 */
export function resolveWindow(input: WindowInput, g: Granularity, nowMs: number, rolledThroughMs: number | null): Window {
  if (input.lastDays !== null && (input.start !== null || input.end !== null)) {
    throw invalid(input.start !== null ? 'start' : 'end', 'conflicting_window')
  }
  let w: Window
  if (input.start === null && input.end === null) {
    const days = input.lastDays ?? 7
    const today = utcMidnight(nowMs)
    const rolledEnd = rolledThroughMs === null ? null : rolledThroughMs + DAY_MS
    const endMs = rolledEnd !== null && rolledEnd === today - DAY_MS ? rolledEnd : today
    w = { startMs: endMs - days * DAY_MS, endMs }
  } else {
    const endMs = input.end?.getTime() ?? nowMs
    const startMs = input.start?.getTime() ?? endMs - 7 * DAY_MS
    w = { startMs, endMs }
  }
  if (w.endMs <= w.startMs) throw invalid('end', 'end_not_after_start')
  if (w.endMs - w.startMs > MAX_RANGE_DAYS[g] * DAY_MS) {
    throw invalid(input.lastDays !== null ? 'last_days' : 'end', 'range_too_large', { granularity: g, max_days: MAX_RANGE_DAYS[g] })
  }
  return w
}

/**
 * Rule 4: day or month granularity with both bounds on UTC midnight and no
 * country filter reads the daily rollups (when they cover the window);
 * hour, partial days, country filters and group_by=creative read the ledger.
 */
export function rollupEligible(w: Window, g: Granularity, hasCountryFilter: boolean, groupByCreative: boolean): boolean {
  return g !== 'hour' && isMidnight(w.startMs) && isMidnight(w.endMs) && !hasCountryFilter && !groupByCreative
}

export function rollupsCover(w: Window, rolledThroughMs: number | null): boolean {
  return rolledThroughMs !== null && w.endMs <= rolledThroughMs + DAY_MS
}

/** How an hourly window is read: its whole closed days from the hourly rollups, the rest from the ledger. */
export interface HourlySplit {
  /** Whole UTC days, all closed (at or before the watermark). */
  days: Window
  /** The parts of the window outside `days`: a clipped first day, and a partial last day or the days after the watermark. */
  edges: Window[]
}

/**
 * granularity=hour over closed days (still `served_from: ledger`, rule 4: the
 * hourly rollups are an exact, immutable derivation of closed ledger hours).
 * Only unfiltered account windows qualify: unique viewers per hour are kept
 * per account, and a filter (campaign, creative, surface, country) or
 * group_by=creative needs distinct viewers the rollups do not keep, so those
 * windows read the ledger. Null when the window holds no whole closed day.
 */
export function hourlySplit(w: Window, g: Granularity, filtered: boolean, groupByCreative: boolean, rolledThroughMs: number | null): HourlySplit | null {
  if (g !== 'hour' || filtered || groupByCreative || rolledThroughMs === null) return null
  const fromMs = isMidnight(w.startMs) ? w.startMs : utcMidnight(w.startMs) + DAY_MS
  const toMs = Math.min(utcMidnight(w.endMs), rolledThroughMs + DAY_MS)
  if (toMs <= fromMs) return null
  const edges: Window[] = []
  if (w.startMs < fromMs) edges.push({ startMs: w.startMs, endMs: fromMs })
  if (toMs < w.endMs) edges.push({ startMs: toMs, endMs: w.endMs })
  return { days: { startMs: fromMs, endMs: toMs }, edges }
}

/** The UTC bucket containing `ms` (its label). */
export function bucketOf(ms: number, g: Granularity): number {
  if (g === 'hour') return Math.floor(ms / HOUR_MS) * HOUR_MS
  if (g === 'day') return utcMidnight(ms)
  const d = new Date(ms)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
}

export function nextBucket(ms: number, g: Granularity): number {
  if (g === 'hour') return ms + HOUR_MS
  if (g === 'day') return ms + DAY_MS
  const d = new Date(ms)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
}

/** Every bucket label of [start, end), the first and last clipped by the window (rule 7). */
export function bucketSpine(w: Window, g: Granularity): number[] {
  const out: number[] = []
  for (let b = bucketOf(w.startMs, g); b < w.endMs; b = nextBucket(b, g)) out.push(b)
  return out
}

export interface MetricSet {
  billable_impressions: number
  /** Of the billable impressions, those attested by a Privacy Pass token (docs/attestation.md). */
  attested_billable_impressions: number
  viewable_ticks: number
  clicks: number
  events: number
  unique_viewers: number
  spend_micros: number
  ctr: number
  /** Recorded views that were not billable, per reason: billable_impressions + their sum = recorded views. */
  non_billable: NonBillableCounts
}

export const ZERO_METRICS: MetricSet = {
  billable_impressions: 0,
  attested_billable_impressions: 0,
  viewable_ticks: 0,
  clicks: 0,
  events: 0,
  unique_viewers: 0,
  spend_micros: 0,
  ctr: 0,
  non_billable: noNonBillable(),
}

/** The per-reason sums of several counts (buckets of one window add up; unique viewers would not). */
export function sumNonBillable(counts: readonly NonBillableCounts[]): NonBillableCounts {
  const total = noNonBillable()
  for (const c of counts) for (const r of NON_BILLABLE_REASONS) total[r] += c[r]
  return total
}

/** ctr = clicks / billable impressions; 0 when there were none. */
export function withCtr(m: Omit<MetricSet, 'ctr'>): MetricSet {
  return { ...m, ctr: m.billable_impressions === 0 ? 0 : m.clicks / m.billable_impressions }
}

/**
 * Rule 5: a live scan is refused when it would touch more than `maxEvents`.
 * `retry_with` names a window that would work and is never the one sent: the
 * same window snapped to whole days when rollups (daily, or hourly for an
 * hour window) could serve that, else the
 * longest window ending at the same end whose estimate fits (per-day counts);
 * absent when nothing helps.
 */
export function retryWindow(
  sent: Window,
  g: Granularity,
  options: { rollupsCanServe: (w: Window) => boolean; perDayEvents: Map<number, number>; maxEvents: number },
): Window | null {
  const snapped = { startMs: utcMidnight(sent.startMs), endMs: utcMidnight(sent.endMs) }
  if (snapped.endMs > snapped.startMs && options.rollupsCanServe(snapped) && (snapped.startMs !== sent.startMs || snapped.endMs !== sent.endMs)) {
    return snapped
  }
  // Walk back whole days from the end while the estimate fits.
  let total = 0
  let startMs = sent.endMs
  for (let day = utcMidnight(sent.endMs - 1); day >= utcMidnight(sent.startMs); day -= DAY_MS) {
    const events = options.perDayEvents.get(day) ?? 0
    if (total + events > options.maxEvents) break
    total += events
    startMs = Math.max(day, sent.startMs)
  }
  if (startMs >= sent.endMs || startMs === sent.startMs) return null
  return { startMs, endMs: sent.endMs }
}

/**
 * Rollups are behind when the day before yesterday is not closed, or
 * yesterday is not closed an hour after it ended (the run is at 00:15 UTC).
 * While behind, access.reporting is `degraded` and /stats reads the ledger.
 */
export function rollupsBehind(rolledThrough: string | null, nowMs: number): boolean {
  const today = utcMidnight(nowMs)
  const yesterday = today - DAY_MS
  const through = rolledThrough === null ? Number.NEGATIVE_INFINITY : dayMs(rolledThrough)
  return through < yesterday - DAY_MS || (through < yesterday && nowMs >= today + HOUR_MS)
}
