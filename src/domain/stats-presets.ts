import { DAY_MS, utcMidnight, type Granularity, type Window } from './stats.ts'

/**
 * The stats page's ready-made windows (issue 36). Each includes today, so
 * what was delivered in the last minutes is on the page: the API's own
 * default (`last_days`, closed days only) is left to the API. Each ends on
 * the midnight after today, so the form shows whole days; the part after
 * now is empty and is not drawn. Pure: `nowMs` is the clock's now.
 */
export const STATS_PRESETS = ['today', '7d', '30d', 'month'] as const
export type StatsPreset = (typeof STATS_PRESETS)[number]

/** What the page shows when nothing is asked for. */
export const DEFAULT_STATS_PRESET: StatsPreset = 'today'

export const PRESET_TEXT: Record<StatsPreset, string> = { today: 'Today', '7d': 'Last 7 days', '30d': 'Last 30 days', month: 'This month' }

export function isStatsPreset(text: string | undefined): text is StatsPreset {
  return (STATS_PRESETS as readonly string[]).includes(text ?? '')
}

/** The window and granularity of a preset: Today by the hour; the others by the day, through today. */
export function presetWindow(preset: StatsPreset, nowMs: number): { granularity: Granularity; window: Window } {
  const today = utcMidnight(nowMs)
  const endMs = today + DAY_MS
  switch (preset) {
    case 'today':
      return { granularity: 'hour', window: { startMs: today, endMs } }
    case '7d':
      return { granularity: 'day', window: { startMs: today - 6 * DAY_MS, endMs } }
    case '30d':
      return { granularity: 'day', window: { startMs: today - 29 * DAY_MS, endMs } }
    case 'month': {
      const d = new Date(nowMs)
      return { granularity: 'day', window: { startMs: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), endMs } }
    }
  }
}

/** The preset a window and granularity are, if any (so a form sent with a preset's dates still marks it). */
export function presetOf(granularity: Granularity, w: Window, nowMs: number): StatsPreset | null {
  for (const p of STATS_PRESETS) {
    const candidate = presetWindow(p, nowMs)
    if (candidate.granularity === granularity && candidate.window.startMs === w.startMs && candidate.window.endMs === w.endMs) return p
  }
  return null
}

/**
 * Where a window's final figures end and its live ones begin. Days through
 * `closedThrough` (the daily rollups' watermark) are closed: their figures
 * are final. From `liveFromMs` (normally today's midnight; a day earlier
 * while yesterday is being rolled up) figures are read live from the ledger
 * and still grow. `partialBucketMs` is the bucket in progress at now, when
 * the window holds it.
 */
export interface LiveBoundary {
  closedThrough: string | null
  liveFromMs: number
  nowMs: number
  /** Whether the window holds closed days, live time, or both; or starts after now. */
  closedPart: boolean
  livePart: boolean
  notBegun: boolean
}

export function liveBoundary(w: Window, rolledThroughMs: number | null, nowMs: number): LiveBoundary {
  const today = utcMidnight(nowMs)
  const liveFromMs = rolledThroughMs === null ? today : Math.min(rolledThroughMs + DAY_MS, today)
  const closedThrough = new Date(liveFromMs - DAY_MS).toISOString().slice(0, 10)
  return {
    closedThrough: rolledThroughMs === null ? null : closedThrough,
    liveFromMs,
    nowMs,
    closedPart: w.startMs < liveFromMs,
    livePart: w.endMs > liveFromMs && w.startMs <= nowMs,
    notBegun: w.startMs > nowMs,
  }
}
