import { bucketOf, DAY_MS, MAX_RANGE_DAYS, utcMidnight, type Granularity, type Window } from './stats.ts'

const HOUR_MS = 3_600_000

/** A campaign younger than this is drawn by the hour; an older one by the day. */
export const HOURLY_CHART_MAX_AGE_MS = 48 * HOUR_MS

/** How a campaign's delivery chart is read: one granularity, the window it spans, and the /stats windows that make it up. */
export interface DeliveryChartPlan {
  granularity: Granularity
  window: Window
  /** Adjacent windows covering `window`, each read with the same /stats query. */
  parts: Window[]
}

/**
 * The delivery chart of one campaign (the portal's campaign page, the public
 * report). Younger than 48 hours: by the hour, from the hour it was created
 * through the current hour. Older: by the day, from the day it was created
 * (at most the day granularity's range ceiling back) through today. A daily
 * chart is read in two parts, the closed days and today, so the closed days
 * can come from the daily rollups (both bounds on midnight) and only today is
 * a live ledger scan; one window ending now would scan the ledger throughout.
 */
export function deliveryChartPlan(createdMs: number, nowMs: number): DeliveryChartPlan {
  if (nowMs - createdMs < HOURLY_CHART_MAX_AGE_MS) {
    const window = { startMs: bucketOf(createdMs, 'hour'), endMs: bucketOf(nowMs, 'hour') + HOUR_MS }
    return { granularity: 'hour', window, parts: [window] }
  }
  const today = utcMidnight(nowMs)
  const startMs = Math.max(utcMidnight(createdMs), today - (MAX_RANGE_DAYS.day - 1) * DAY_MS)
  const closed = { startMs, endMs: today }
  const current = { startMs: today, endMs: today + DAY_MS }
  return { granularity: 'day', window: { startMs, endMs: current.endMs }, parts: [closed, current] }
}
