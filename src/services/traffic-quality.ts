import { invalid } from '../domain/errors.ts'
import { judgeDay, previousUtcDay, utcDayRange, type Scored, type SourceFigures, type ViewerFigures } from '../domain/traffic-quality.ts'
import { listTrafficBlocks } from '../store/traffic-blocks.ts'
import { findTrafficReview, listTrafficCredits, readSourceFigures, readViewerFigures } from '../store/traffic-quality.ts'
import type { ServiceContext } from './context.ts'

/**
 * The traffic quality of one UTC day (docs/invalid-traffic.md): every source and viewer of the
 * day's views and clicks scored by the review signals (domain/traffic-quality.ts), and what the
 * daily review credited back for that day. The operator API (GET /admin/v1/traffic), the console
 * (/ops/traffic) and the daily review, which voids the units of every entity judged invalid, read it.
 */

export type ScoredSource = Scored<SourceFigures>
export type ScoredViewer = Scored<ViewerFigures>

/** The daily review's record of the day. */
export interface TrafficReview {
  reviewedAt: Date
  sourcesFlagged: number
  viewersFlagged: number
  unitsVoided: number
  creditedMicros: number
}

/** What the review gave back to one campaign for the day. */
export interface TrafficCredit {
  userId: string
  email: string
  campaignId: string
  /** Null when the campaign is no longer there. */
  campaignName: string | null
  units: number
  micros: number
}

export interface TrafficDay {
  /** `YYYY-MM-DD`, UTC. */
  day: string
  /** Highest score first, then most views: every invalid source, then the highest-scoring others up to LISTED_PER_KIND in all. */
  sources: ScoredSource[]
  viewers: ScoredViewer[]
  /** How many sources and viewers had views or clicks that day (the lists may show fewer). */
  totals: { sources: number; viewers: number }
  /** Null until the daily review has run for the day. */
  review: TrafficReview | null
  /** Largest first; empty until the review credits anything. */
  credits: TrafficCredit[]
}

/**
 * Judges the UTC day `day` (`YYYY-MM-DD`) against the block list as it is now. A day that is not a
 * calendar day of the years 0001-9999 is 400 `{field: 'day', reason: 'invalid_format'}`.
 */
export async function judgeTrafficDay(ctx: Pick<ServiceContext, 'db'>, day: string): Promise<TrafficDay> {
  const range = utcDayRange(day)
  if (!range) throw invalid('day', 'invalid_format')
  const [sources, viewers, blocks, review, credits] = await Promise.all([
    readSourceFigures(ctx.db, range.startMs, range.endMs),
    readViewerFigures(ctx.db, range.startMs, range.endMs),
    listTrafficBlocks(ctx.db),
    findTrafficReview(ctx.db, day),
    listTrafficCredits(ctx.db, day),
  ])
  const judged = judgeDay(sources.rows, viewers.rows, blocks)
  return {
    day,
    sources: judged.sources,
    viewers: judged.viewers,
    totals: { sources: sources.total, viewers: viewers.total },
    review:
      review === null
        ? null
        : {
            reviewedAt: review.reviewed_at,
            sourcesFlagged: review.sources_flagged,
            viewersFlagged: review.viewers_flagged,
            unitsVoided: review.units_voided,
            creditedMicros: review.credited_micros,
          },
    credits: credits.map((c) => ({ userId: c.user_id, email: c.email, campaignId: c.campaign_id, campaignName: c.campaign_name, units: c.units, micros: c.micros })),
  }
}

/** The day the API and the console show when none is asked for: yesterday, UTC, on the service clock. */
export const defaultTrafficDay = (ctx: Pick<ServiceContext, 'clock'>): string => previousUtcDay(ctx.clock.now().getTime())
