import { bucketOf, DAY_MS, nextBucket, type Granularity, type Window } from './stats.ts'

/**
 * Where a time series goes on a chart's time axis (pages/chart.tsx draws it).
 * Pure: times are epoch milliseconds (UTC); positions are fractions of the
 * axis (0 its start, 1 its end), so the drawing can use the page's width.
 * A bucket is as wide as its period (an hour is an hour wide on a 30-day
 * axis); the bucket in progress at now is marked partial; buckets after now
 * have no value yet and are not drawn (never a drop to zero).
 */

const HOUR_MS = 3_600_000

export interface TimeBucket {
  startMs: number
  endMs: number
  value: number
}

export interface TimeMark {
  /** The bucket's index in the series. */
  index: number
  /** Its left and right edges on the axis, clipped to it (0..1). */
  x0: number
  x1: number
  value: number
  /** The bucket in progress: it holds now, so its value is still growing. */
  partial: boolean
}

export const fractionOf = (ms: number, axis: Window): number => Math.min(1, Math.max(0, (ms - axis.startMs) / (axis.endMs - axis.startMs)))

/** The buckets of a series that have happened (started at or before now), each at its true width on `axis`. */
export function timeMarks(buckets: readonly TimeBucket[], axis: Window, nowMs: number): TimeMark[] {
  const marks: TimeMark[] = []
  buckets.forEach((b, index) => {
    if (b.startMs > nowMs || b.endMs <= axis.startMs || b.startMs >= axis.endMs) return
    marks.push({ index, x0: fractionOf(b.startMs, axis), x1: fractionOf(b.endMs, axis), value: b.value, partial: b.startMs <= nowMs && nowMs < b.endMs })
  })
  return marks
}

/**
 * The buckets of [start, end) at `g`: each labelled by its UTC bucket (GET /v1/stats rule 7), with its
 * end, the last clipped by the window's end (a first bucket that starts before the window is clipped
 * where it is drawn: positions are clamped to the axis).
 */
export function bucketsOf(w: Window, g: Granularity): { startMs: number; endMs: number }[] {
  const out: { startMs: number; endMs: number }[] = []
  for (let b = bucketOf(w.startMs, g); b < w.endMs; b = nextBucket(b, g)) out.push({ startMs: b, endMs: Math.min(nextBucket(b, g), w.endMs) })
  return out
}

/**
 * The time axis of a campaign's delivery chart: its window, from the
 * campaign's start (where its caption says it starts), widened forward to at
 * least a day of hours or a week of days, so a young campaign's first hour is
 * one hour wide, not a slab across the plot. The widened part is still to
 * come: nothing is drawn after now.
 */
export function deliveryAxis(w: Window, g: Granularity): Window {
  const least = g === 'hour' ? 24 * HOUR_MS : g === 'day' ? 7 * DAY_MS : 0
  return { startMs: w.startMs, endMs: Math.max(w.endMs, w.startMs + least) }
}

export interface AxisLabelPlace {
  index: number
  /** Where the text is anchored (0..1 of the axis) and how. */
  at: number
  anchor: 'start' | 'middle' | 'end'
}

/**
 * Which time labels fit side by side on an axis `widthPx` wide, at about
 * `charPx` a character with `gapPx` between: every k-th bucket from the
 * first, with the smallest k at which all of them fit, each centred on its
 * bucket (anchored at the axis's edge when it would run off it). A regular
 * step reads as a scale; greedy packing would leave uneven gaps.
 */
export function placeTimeLabels(
  candidates: readonly { index: number; centre: number; text: string }[],
  widthPx: number,
  options: { charPx?: number; gapPx?: number; bucketMs?: number } = {},
): AxisLabelPlace[] {
  const steps = [...labelSteps(options.bucketMs ?? 0), ...Array.from({ length: Math.max(1, candidates.length) }, (_, i) => i + 1)]
  for (const every of steps) {
    const placed = fitLabels(
      candidates.filter((_, i) => i % every === 0),
      widthPx,
      options.charPx ?? 7.2,
      options.gapPx ?? 12,
    )
    if (placed) return placed
  }
  return []
}

/** Steps between labelled buckets that read as a clock or a calendar: 6 hours, a week, a quarter (then any). */
export function labelSteps(bucketMs: number): number[] {
  if (bucketMs === HOUR_MS) return [1, 2, 3, 4, 6, 12, 24, 48, 72, 168, 336]
  if (bucketMs === DAY_MS) return [1, 2, 7, 14, 28, 56, 91, 182, 364]
  if (bucketMs >= 28 * DAY_MS) return [1, 2, 3, 6, 12, 24, 60]
  return []
}

/** The labels placed, or null when two would collide. */
function fitLabels(candidates: readonly { index: number; centre: number; text: string }[], widthPx: number, charPx: number, gapPx: number): AxisLabelPlace[] | null {
  const placed: AxisLabelPlace[] = []
  let previousEnd = Number.NEGATIVE_INFINITY
  for (const c of candidates) {
    const w = c.text.length * charPx
    let left = c.centre * widthPx - w / 2
    let anchor: AxisLabelPlace['anchor'] = 'middle'
    let at = c.centre
    if (left < 0) {
      left = 0
      anchor = 'start'
      at = 0
    } else if (left + w > widthPx) {
      left = widthPx - w
      anchor = 'end'
      at = 1
    }
    if (left < previousEnd + gapPx) return candidates.length === 1 ? [{ index: c.index, at, anchor }] : null
    placed.push({ index: c.index, at, anchor })
    previousEnd = left + w
  }
  return placed
}
