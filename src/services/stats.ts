import { ApiError } from '../domain/errors.ts'
import { parseFilterLists, echoFilters, type ReportFilters } from '../domain/report-filters.ts'
import {
  bucketSpine,
  dayMs,
  resolveWindow,
  retryWindow,
  rollupEligible,
  rollupsCover,
  withCtr,
  ZERO_METRICS,
  type Granularity,
  type MetricSet,
  type Window,
} from '../domain/stats.ts'
import { invalid } from '../domain/errors.ts'
import { assertFiltersOwned } from '../store/report-filters.ts'
import { readRolledThrough } from '../store/rollups.ts'
import { readComponentStates, readConfig } from '../store/settings.ts'
import { estimateEventsPerDay, ledgerMetrics, rollupMetrics, type MetricRow } from '../store/stats.ts'
import type { Db } from '../store/db.ts'
import type { ServiceContext } from './context.ts'

export interface StatsQuery {
  start?: string
  end?: string
  last_days?: number
  granularity?: Granularity
  campaign_id?: string
  creative_id?: string
  group_by?: 'account' | 'creative'
  surface?: string
  country?: string
}

export const SERIES_CAVEAT =
  'Observed delivery, not an experiment: creatives win different auctions, viewers and hours, so differences between ' +
  'series are not causal, and small samples (see sample_size) vary widely.'

const list = (v: string | undefined) => (v === undefined ? undefined : v.split(','))
const metrics = (r: MetricRow | undefined): MetricSet =>
  r
    ? withCtr({ billable_impressions: r.billable, viewable_ticks: r.ticks, clicks: r.clicks, events: r.events, unique_viewers: r.viewers, spend_micros: r.spend })
    : ZERO_METRICS
const iso = (ms: number) => new Date(ms).toISOString()

async function creativesOf(db: Db, userId: string, ids: string[]) {
  return db.selectFrom('creatives').select(['creative_id', 'campaign_id']).where('user_id', '=', userId).where('creative_id', 'in', ids).execute()
}

export async function getStats(ctx: ServiceContext, userId: string, q: StatsQuery) {
  const [components, config, rolledThrough] = await Promise.all([readComponentStates(ctx.db), readConfig(ctx.db), readRolledThrough(ctx.db)])
  if (components.get('reporting') === 'disabled') throw new ApiError(503, 'reporting is temporarily unavailable; retry later')

  const filters: ReportFilters = parseFilterLists(
    { campaign: list(q.campaign_id), creative: list(q.creative_id), surface: list(q.surface), country: list(q.country) },
    { campaign: 'campaign_id', creative: 'creative_id', surface: 'surface', country: 'country' },
    { campaign: 100, creative: 100, surface: 20, country: 50 },
  )
  await assertFiltersOwned(ctx.db, userId, filters)
  const byCreative = q.group_by === 'creative'
  if (byCreative && !filters.creativeIds) throw invalid('creative_id', 'required_with_group_by_creative')

  const g: Granularity = q.granularity ?? 'day'
  const rolledMs = rolledThrough === null ? null : dayMs(rolledThrough)
  const w = resolveWindow(
    { start: q.start ? new Date(q.start) : null, end: q.end ? new Date(q.end) : null, lastDays: q.last_days ?? null },
    g,
    ctx.clock.nowMs(),
    rolledMs,
  )

  const fromRollups = rollupEligible(w, g, filters.countries !== null, byCreative) && rollupsCover(w, rolledMs)
  let points: MetricRow[]
  let totals: MetricRow[]
  let perCreative: MetricRow[] = []
  let perCreativeTotals: MetricRow[] = []
  if (fromRollups) {
    ;[points, totals] = await Promise.all([
      rollupMetrics(ctx.db, userId, w, g, filters, { byBucket: true }),
      rollupMetrics(ctx.db, userId, w, g, filters, { byBucket: false }),
    ])
  } else {
    await refuseCostlyScan(ctx.db, userId, w, g, filters, rolledMs, config.stats_max_live_events)
    ;[points, totals, perCreative, perCreativeTotals] = await Promise.all([
      ledgerMetrics(ctx.db, userId, w, g, filters, { byBucket: true, byCreative: false }),
      ledgerMetrics(ctx.db, userId, w, g, filters, { byBucket: false, byCreative: false }),
      byCreative ? ledgerMetrics(ctx.db, userId, w, g, filters, { byBucket: true, byCreative: true }) : Promise.resolve([]),
      byCreative ? ledgerMetrics(ctx.db, userId, w, g, filters, { byBucket: false, byCreative: true }) : Promise.resolve([]),
    ])
  }

  const response = {
    granularity: g,
    start: iso(w.startMs),
    end: iso(w.endMs),
    filters: echoFilters(filters),
    served_from: fromRollups ? ('daily_rollup' as const) : ('ledger' as const),
    totals: metrics(totals[0]),
    // Zero-activity buckets are omitted (rule 6); labels are the UTC buckets (rule 7).
    points: points
      .filter((p) => p.events > 0)
      .sort((a, b) => a.bucket! - b.bucket!)
      .map((p) => ({ bucket: iso(p.bucket!), ...metrics(p) })),
  }
  if (!byCreative) return response

  const spine = bucketSpine(w, g)
  const creatives = await creativesOf(ctx.db, userId, filters.creativeIds!)
  const campaignOf = new Map(creatives.map((c) => [c.creative_id, c.campaign_id]))
  return {
    ...response,
    series: filters.creativeIds!.map((creativeId) => {
      const rows = new Map(perCreative.filter((r) => r.creativeId === creativeId).map((r) => [r.bucket, r]))
      const total = perCreativeTotals.find((r) => r.creativeId === creativeId)
      return {
        creative_id: creativeId,
        campaign_id: campaignOf.get(creativeId)!,
        points: spine.map((b) => ({ bucket: iso(b), ...metrics(rows.get(b)) })),
        totals: metrics(total),
        sample_size: { events: total?.events ?? 0, billable_impressions: total?.billable ?? 0, unique_viewers: total?.viewers ?? 0 },
        caveat: SERIES_CAVEAT,
      }
    }),
  }
}

/** Rule 5: estimate the live scan first and refuse a provably oversized one at once. */
async function refuseCostlyScan(
  db: Db,
  userId: string,
  w: Window,
  g: Granularity,
  filters: ReportFilters,
  rolledMs: number | null,
  maxEvents: number,
): Promise<void> {
  const perDay = await estimateEventsPerDay(db, userId, w, filters, rolledMs, maxEvents)
  const estimated = [...perDay.values()].reduce((a, b) => a + b, 0)
  if (estimated <= maxEvents) return
  const retry = retryWindow(w, g, {
    rollupsCanServe: (candidate) => rollupEligible(candidate, g, filters.countries !== null, false) && rollupsCover(candidate, rolledMs),
    perDayEvents: perDay,
    maxEvents,
  })
  throw invalid('start', 'window_too_costly', {
    estimated_events: estimated,
    max_events: maxEvents,
    ...(retry ? { retry_with: { start: iso(retry.startMs), end: iso(retry.endMs), granularity: g } } : {}),
  })
}
