import type { Job } from './scheduler.ts'
import { DAY_MS, dayMs, isoDay, utcMidnight } from '../domain/stats.ts'
import type { ServiceContext } from '../services/context.ts'
import { judgeTrafficDay } from '../services/traffic-quality.ts'
import { reviewTrafficDay, type TrafficReviewResult } from '../services/traffic-review.ts'
import { lastReviewedDay, nextSourcedEventAt } from '../store/traffic-review.ts'

/** The daily traffic review runs at 00:10 UTC, before the rollups close the day (00:15). */
export const TRAFFIC_REVIEW_OFFSET_MS = 10 * 60_000

/**
 * Reviews every closed UTC day after the last one reviewed, up to yesterday (yesterday alone on the
 * first run): each day with traffic is scored (`judgeTrafficDay`) and what its invalid sources and
 * viewers billed is voided and credited back (`reviewTrafficDay`). Days without traffic are skipped.
 */
export async function runTrafficReview(ctx: Pick<ServiceContext, 'db' | 'clock'>, now: Date): Promise<Record<string, unknown>> {
  const today = utcMidnight(now.getTime())
  const yesterday = today - DAY_MS
  const last = await lastReviewedDay(ctx.db)
  let cursor = last === null ? yesterday : dayMs(last) + DAY_MS
  const days: TrafficReviewResult[] = []
  while (cursor <= yesterday) {
    const next = await nextSourcedEventAt(ctx.db, cursor, today)
    if (next === null) break
    const day = isoDay(utcMidnight(next.getTime()))
    const judged = await judgeTrafficDay(ctx, day)
    days.push(
      await reviewTrafficDay(ctx, day, {
        invalidSources: judged.sources.filter((s) => s.invalid).map((s) => s.source),
        invalidViewers: judged.viewers.filter((v) => v.invalid).map((v) => v.viewerKey),
      }),
    )
    cursor = dayMs(day) + DAY_MS
  }
  return {
    days_reviewed: days.filter((d) => d.reviewed).length,
    units_voided: days.reduce((n, d) => n + d.units_voided, 0),
    credited_micros: days.reduce((n, d) => n + d.credited_micros, 0),
  }
}

export function trafficReviewJob(ctx: Pick<ServiceContext, 'db' | 'clock'>): Job {
  return {
    name: 'traffic-review',
    // Each run reviews every closed day after the last reviewed one, so one run covers any gap.
    catchUp: 'latest',
    nextDue: (after) => {
      const at = utcMidnight(after.getTime()) + TRAFFIC_REVIEW_OFFSET_MS
      return new Date(at > after.getTime() ? at : at + DAY_MS)
    },
    run: (now) => runTrafficReview(ctx, now),
  }
}
