import { parseFilterLists, echoFilters, NO_FILTERS, type ReportFilters } from '../domain/report-filters.ts'
import {
  bucketSpine,
  dayMs,
  hourlySplit,
  resolveWindow,
  retryWindow,
  rollupEligible,
  rollupsCover,
  sumNonBillable,
  withCtr,
  ZERO_METRICS,
  type Granularity,
  type HourlySplit,
  type MetricSet,
  type Window,
} from '../domain/stats.ts'
import { invalid } from '../domain/errors.ts'
import { topicReport } from '../domain/topics.ts'
import { liveBoundary, type LiveBoundary } from '../domain/stats-presets.ts'
import { assertLedgerRetained } from '../domain/ledger-retention.ts'
import { readRetainedFrom } from '../store/ledger-partitions.ts'
import { assertFiltersOwned } from '../store/report-filters.ts'
import { readRolledThrough } from '../store/rollups.ts'
import { readConfig } from '../store/settings.ts'
import {
  billableByTopic,
  campaignsOfCreatives,
  dayWindowViewers,
  edgeViewersNotIn,
  estimateEventsPerDay,
  hourlyRollupPoints,
  ledgerMetrics,
  rollupMetrics,
} from '../store/stats.ts'
import type { MetricRow } from '../store/metric-rows.ts'
import type { Db } from '../store/db.ts'
import type { ServiceContext } from './context.ts'
import { requireComponent } from './status.ts'
import { rolledUpRead } from './lag-tolerant.ts'

export interface StatsQuery {
  start?: string
  end?: string
  last_days?: number
  granularity?: Granularity
  campaign_id?: string
  creative_id?: string
  group_by?: 'account' | 'creative' | 'topic'
  surface?: string
  country?: string
}

export const SERIES_CAVEAT =
  'Observed delivery, not an experiment: creatives win different auctions, viewers and hours, so differences between ' +
  'series are not causal, and small samples (see sample_size) vary widely.'

const list = (v: string | undefined) => (v === undefined ? undefined : v.split(','))
const metrics = (r: MetricRow | undefined): MetricSet =>
  r
    ? withCtr({
        billable_impressions: r.billable,
        attested_billable_impressions: r.attested,
        viewable_ticks: r.ticks,
        clicks: r.clicks,
        events: r.events,
        unique_viewers: r.viewers,
        spend_micros: r.spend,
        non_billable: r.nonBillable,
      })
    : ZERO_METRICS
const iso = (ms: number) => new Date(ms).toISOString()

/** Where a window's final figures end and its live ones begin: the clock's now and the daily rollups' watermark (the portal's stats page says it). */
export async function readLiveBoundary(ctx: ServiceContext, w: Window): Promise<LiveBoundary> {
  const rolledThrough = await readRolledThrough(ctx.db)
  return liveBoundary(w, rolledThrough === null ? null : dayMs(rolledThrough), ctx.clock.nowMs())
}

export async function getStats(ctx: ServiceContext, userId: string, q: StatsQuery) {
  const [, config, rolledThrough, retainedFrom] = await Promise.all([
    requireComponent(ctx, 'reporting'),
    readConfig(ctx.db),
    readRolledThrough(ctx.db),
    readRetainedFrom(ctx.db),
  ])

  const filters: ReportFilters = parseFilterLists(
    { campaign: list(q.campaign_id), creative: list(q.creative_id), surface: list(q.surface), country: list(q.country) },
    { campaign: 'campaign_id', creative: 'creative_id', surface: 'surface', country: 'country' },
    { campaign: 100, creative: 100, surface: 20, country: 50 },
  )
  await assertFiltersOwned(ctx.db, userId, filters)
  const byCreative = q.group_by === 'creative'
  if (byCreative && !filters.creativeIds) throw invalid('creative_id', 'required_with_group_by_creative')
  const byTopic = q.group_by === 'topic'
  if (byTopic && filters.campaignIds?.length !== 1) throw invalid('campaign_id', 'required_with_group_by_topic')

  const g: Granularity = q.granularity ?? 'day'
  const rolledMs = rolledThrough === null ? null : dayMs(rolledThrough)
  const w = resolveWindow(
    { start: q.start ? new Date(q.start) : null, end: q.end ? new Date(q.end) : null, lastDays: q.last_days ?? null },
    g,
    ctx.clock.nowMs(),
    rolledMs,
  )

  const filtered = filters.campaignIds !== null || filters.creativeIds !== null || filters.surfaces !== null || filters.countries !== null
  const fromRollups = rollupEligible(w, g, filters.countries !== null, byCreative) && rollupsCover(w, rolledMs)
  // Hourly: whole closed days from the hourly rollups, the rest from the ledger (still served_from: ledger).
  const split = fromRollups ? null : hourlySplit(w, g, filtered, byCreative, rolledMs)
  const rollupsCanServe = (candidate: Window) =>
    g === 'hour'
      ? hourlySplit(candidate, g, filtered, byCreative, rolledMs)?.edges.length === 0
      : rollupEligible(candidate, g, filters.countries !== null, false) && rollupsCover(candidate, rolledMs)
  let points: MetricRow[]
  let totals: MetricRow[]
  let perCreative: MetricRow[] = []
  let perCreativeTotals: MetricRow[] = []
  // Rolled-up days only (the rollups, or an hourly window of whole closed days) may be read on the replica
  // (services/lag-tolerant.ts); anything from the ledger, and the ownership checks above, on the primary.
  if (fromRollups) {
    ;[points, totals] = await rolledUpRead(ctx, rolledThrough, (db) =>
      Promise.all([rollupMetrics(db, userId, w, g, filters, { byBucket: true }), rollupMetrics(db, userId, w, g, filters, { byBucket: false })]),
    )
  } else if (split && split.edges.length === 0) {
    ;({ points, totals } = await rolledUpRead(ctx, rolledThrough, (db) => hourlyMetrics(db, userId, split)))
  } else if (split) {
    // Rows before the retained day were dropped (LEDGER_RETENTION_DAYS): a ledger-read edge there would count nothing.
    for (const edge of split.edges) assertLedgerRetained('start', edge.startMs, retainedFrom)
    await refuseCostlyScan(ctx.db, userId, w, g, filters, rolledMs, config.stats_max_live_events, split.edges, rollupsCanServe)
    ;({ points, totals } = await hourlyMetrics(ctx.db, userId, split))
  } else {
    assertLedgerRetained('start', w.startMs, retainedFrom)
    await refuseCostlyScan(ctx.db, userId, w, g, filters, rolledMs, config.stats_max_live_events, [w], rollupsCanServe)
    ;[points, totals, perCreative, perCreativeTotals] = await Promise.all([
      ledgerMetrics(ctx.db, userId, w, g, filters, { byBucket: true, byCreative: false }),
      ledgerMetrics(ctx.db, userId, w, g, filters, { byBucket: false, byCreative: false }),
      byCreative ? ledgerMetrics(ctx.db, userId, w, g, filters, { byBucket: true, byCreative: true }) : Promise.resolve([]),
      byCreative ? ledgerMetrics(ctx.db, userId, w, g, filters, { byBucket: false, byCreative: true }) : Promise.resolve([]),
    ])
  }

  let topics: ReturnType<typeof topicReport> | null = null
  if (byTopic) {
    // One campaign's billable impressions by topic, from the ledger (the rollups keep no topic).
    assertLedgerRetained('start', w.startMs, retainedFrom)
    if (fromRollups || split) await refuseCostlyScan(ctx.db, userId, w, g, filters, rolledMs, config.stats_max_live_events, [w], () => false)
    topics = topicReport(await billableByTopic(ctx.db, userId, filters.campaignIds![0]!, w))
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
    ...(topics === null ? {} : { topics }),
  }
  if (!byCreative) return response

  const spine = bucketSpine(w, g)
  const campaignOf = await campaignsOfCreatives(ctx.db, userId, filters.creativeIds!)
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

/**
 * An unfiltered hourly window split by hourlySplit: hours of the closed days
 * from the hourly rollups, hours of the edges from the ledger (no bucket is in
 * both). Sums add up; unique viewers over the window are the days' exact count
 * plus the edges' viewers not seen on those days.
 */
async function hourlyMetrics(db: Db, userId: string, split: HourlySplit): Promise<{ points: MetricRow[]; totals: MetricRow[] }> {
  const [rolled, dayViewers, edgeViewers, ...edgePoints] = await Promise.all([
    hourlyRollupPoints(db, userId, split.days),
    dayWindowViewers(db, userId, split.days),
    edgeViewersNotIn(db, userId, split.edges, split.days),
    ...split.edges.map((e) => ledgerMetrics(db, userId, e, 'hour', NO_FILTERS, { byBucket: true, byCreative: false })),
  ])
  const points = [...edgePoints.flat(), ...rolled]
  if (points.length === 0) return { points, totals: [] }
  const sum = (f: (r: MetricRow) => number) => points.reduce((n, r) => n + f(r), 0)
  const totals: MetricRow = {
    bucket: null,
    creativeId: null,
    events: sum((r) => r.events),
    billable: sum((r) => r.billable),
    ticks: sum((r) => r.ticks),
    clicks: sum((r) => r.clicks),
    spend: sum((r) => r.spend),
    attested: sum((r) => r.attested),
    viewers: dayViewers + edgeViewers,
    nonBillable: sumNonBillable(points.map((r) => r.nonBillable)),
  }
  return { points, totals: [totals] }
}

/**
 * Rule 5: estimate the live scan first and refuse a provably oversized one at
 * once. `scanned` are the parts of the window read from the ledger (all of it,
 * or an hourly window's edges).
 */
async function refuseCostlyScan(
  db: Db,
  userId: string,
  w: Window,
  g: Granularity,
  filters: ReportFilters,
  rolledMs: number | null,
  maxEvents: number,
  scanned: readonly Window[],
  rollupsCanServe: (candidate: Window) => boolean,
): Promise<void> {
  let estimated = 0
  let perDay: Map<number, number> | null = null
  for (const part of scanned) {
    const parts = await estimateEventsPerDay(db, userId, part, filters, rolledMs, maxEvents)
    if (part === w) perDay = parts
    for (const n of parts.values()) estimated += n
    if (estimated > maxEvents) break
  }
  if (estimated <= maxEvents) return
  // The walk back to a window that fits uses the whole window's per-day estimate.
  perDay ??= await estimateEventsPerDay(db, userId, w, filters, rolledMs, maxEvents)
  const retry = retryWindow(w, g, { rollupsCanServe, perDayEvents: perDay, maxEvents })
  throw invalid('start', 'window_too_costly', {
    estimated_events: estimated,
    max_events: maxEvents,
    ...(retry ? { retry_with: { start: iso(retry.startMs), end: iso(retry.endMs), granularity: g } } : {}),
  })
}
