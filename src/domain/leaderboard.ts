import { DAY_MS, dayMs, utcMidnight, type Window } from './stats.ts'

/**
 * The public brand leaderboard (operations.md section 5, issue 22): brands
 * ranked by billable impressions over the last 30 days, counting only
 * campaigns that opted in (`optin_leaderboard`) and carry a brand. Pure: the
 * store hands over each stored brand spelling's impressions in the window,
 * these functions decide the window, which spellings are one brand, the
 * spelling shown and the order.
 */

export const LEADERBOARD_DAYS = 30
export const LEADERBOARD_MAX_ROWS = 100

/**
 * The window: 30 whole UTC days ending at the end of the last day the daily
 * rollups have closed, and never later than today's UTC midnight on the
 * service clock. Caught up, that is [today − 30 days, today); while yesterday
 * (or more) is not rolled up yet, the window slides back with the rollups, so
 * every count is a full 30-day total of closed days and never a day counted in
 * part. Before the first rollup run, there is nothing rolled up: the window
 * ends today and counts nothing.
 */
export function leaderboardWindow(nowMs: number, rolledThrough: string | null): Window {
  const today = utcMidnight(nowMs)
  const endMs = rolledThrough === null ? today : Math.min(today, dayMs(rolledThrough) + DAY_MS)
  return { startMs: endMs - LEADERBOARD_DAYS * DAY_MS, endMs }
}

/** True while the window ends before today's UTC midnight: the rollups have not closed yesterday yet. */
export const leaderboardBehind = (w: Window, nowMs: number): boolean => w.endMs < utcMidnight(nowMs)

/**
 * What makes two spellings one brand: trimmed, composed (NFC) and
 * case-folded (`toUpperCase().toLowerCase()` folds `ß` and `SS` alike, which
 * a lower-casing alone would not). Null for a brand that is empty once
 * trimmed: such a campaign has no brand to show.
 */
export function brandKey(brand: string): string | null {
  const key = brand.trim().normalize('NFC').toUpperCase().toLowerCase()
  return key === '' ? null : key
}

/** Billable impressions in the window of one stored brand spelling (summed over its campaigns). */
export interface BrandSpellingTotal {
  brand: string
  impressions: number
}

export interface LeaderboardRow {
  /** The spelling shown: the one with the most impressions in the window (ties: the first in code order). */
  brand: string
  impressions: number
}

/** Code-unit order: the same on every machine and store, whatever the locale. */
const byCode = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Merges spellings into brands (brandKey), drops brands without a billable
 * impression, and ranks: most impressions first, ties by the folded name in
 * code order; at most LEADERBOARD_MAX_ROWS rows.
 */
export function rankBrands(totals: readonly BrandSpellingTotal[], max = LEADERBOARD_MAX_ROWS): LeaderboardRow[] {
  // Stored spellings that trim to the same text are one spelling.
  const spellings = new Map<string, number>()
  for (const t of totals) {
    const spelling = t.brand.trim()
    spellings.set(spelling, (spellings.get(spelling) ?? 0) + t.impressions)
  }
  const brands = new Map<string, { impressions: number; shown: string; shownImpressions: number }>()
  for (const [spelling, impressions] of spellings) {
    const key = brandKey(spelling)
    if (key === null) continue
    const b = brands.get(key)
    if (!b) {
      brands.set(key, { impressions, shown: spelling, shownImpressions: impressions })
      continue
    }
    b.impressions += impressions
    if (impressions > b.shownImpressions || (impressions === b.shownImpressions && byCode(spelling, b.shown) < 0)) {
      b.shown = spelling
      b.shownImpressions = impressions
    }
  }
  return [...brands.entries()]
    .filter(([, b]) => b.impressions > 0)
    .sort(([ka, a], [kb, b]) => b.impressions - a.impressions || byCode(ka, kb))
    .slice(0, max)
    .map(([, b]) => ({ brand: b.shown, impressions: b.impressions }))
}
