import type { Static } from 'typebox'
import type { ScoredSourceSchema, ScoredViewerSchema, TrafficBlockSchema, TrafficDaySchema } from './schemas/admin/traffic.ts'
import type { TrafficBlockRow } from '../services/read-models.ts'
import type { ScoredSource, ScoredViewer, TrafficDay } from '../services/traffic-quality.ts'
import type { TrafficFigures, Verdict } from '../domain/traffic-quality.ts'

// Traffic quality and the block list as the operator API shows them (snake_case, explicit fields).

function judged(f: TrafficFigures & Verdict) {
  return {
    views: f.views,
    impressions: f.impressions,
    billable: Math.max(0, f.impressions - f.voided),
    voided: f.voided,
    invalid_views: f.invalidViews,
    clicks: f.clicks,
    debit_micros: f.debitMicros,
    dwell_at_threshold: f.dwellAtThreshold,
    offer_age: { count: f.offerAgeCount, mean_ms: f.offerAgeMeanMs, stddev_ms: f.offerAgeStddevMs },
    score: f.score,
    signals: f.signals,
    invalid: f.invalid,
  }
}

export function presentScoredSource(s: ScoredSource): Static<typeof ScoredSourceSchema> {
  return { source: s.source, viewers: s.viewers, top_viewer_impressions: s.topViewerImpressions, ...judged(s) }
}

export function presentScoredViewer(v: ScoredViewer): Static<typeof ScoredViewerSchema> {
  return { viewer_key: v.viewerKey, sources: v.sources, ...judged(v) }
}

export function presentTrafficDay(d: TrafficDay): Static<typeof TrafficDaySchema> {
  return {
    day: d.day,
    sources: d.sources.map(presentScoredSource),
    viewers: d.viewers.map(presentScoredViewer),
    totals: { sources: d.totals.sources, viewers: d.totals.viewers },
    review:
      d.review === null
        ? null
        : {
            reviewed_at: d.review.reviewedAt.toISOString(),
            sources_flagged: d.review.sourcesFlagged,
            viewers_flagged: d.review.viewersFlagged,
            units_voided: d.review.unitsVoided,
            credited_micros: d.review.creditedMicros,
          },
    credits: d.credits.map((c) => ({ user_id: c.userId, email: c.email, campaign_id: c.campaignId, campaign_name: c.campaignName, units: c.units, micros: c.micros })),
  }
}

export function presentTrafficBlock(b: TrafficBlockRow): Static<typeof TrafficBlockSchema> {
  return { block_id: b.block_id, kind: b.kind, value: b.value, note: b.note, created_at: b.created_at.toISOString(), created_by: b.created_by }
}
