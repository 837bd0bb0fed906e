import { sql, type RawBuilder } from 'kysely'
import type { Db } from './db.ts'
import { BILLABLE_DWELL_MS, DWELL_WINDOW_FROM_MS, DWELL_WINDOW_TO_MS, LONG_GAP_MS, type SourceFigures, type ViewerFigures } from '../domain/traffic-quality.ts'

/**
 * A UTC day's traffic figures per source and per viewer for the review (domain/traffic-quality.ts),
 * read from the ledger rows with a source (views and clicks since migration 0029) through the day's
 * range of the ledger's primary key, which leads with `occurred_at` (migration 0042); and what the daily
 * review gave back for that day.
 */

/** At most this many sources (viewers) are read, most views first; the service scores and ranks them. */
export const FIGURES_READ_MAX = 2_000

/** One kind's figures, and how many there were in all (more than the rows when the bound cut them). */
export interface FiguresRead<F> {
  rows: F[]
  total: number
}

const MEASURED = sql`e.event_type IN ('impression', 'view')`

/** The counts both kinds share, over the rows `e` of one group. */
const commonCounts = sql`
  count(*) FILTER (WHERE ${MEASURED})::int8 AS views,
  count(*) FILTER (WHERE e.event_type = 'impression')::int8 AS impressions,
  count(*) FILTER (WHERE e.event_type = 'voided_impression')::int8 AS voided,
  count(*) FILTER (WHERE (e.event_type = 'view' AND e.reason = 'invalid_traffic') OR e.event_type = 'voided_impression')::int8 AS invalid_views,
  count(*) FILTER (WHERE e.event_type = 'click')::int8 AS clicks,
  coalesce(sum(e.debit_micros) FILTER (WHERE e.event_type IN ('impression', 'click')), 0)::int8 AS debit_micros,
  count(*) FILTER (WHERE e.event_type = 'impression' AND e.dwell_ms >= ${DWELL_WINDOW_FROM_MS} AND e.dwell_ms < ${DWELL_WINDOW_TO_MS})::int8 AS dwell_at_threshold,
  count(e.offer_age_ms) FILTER (WHERE ${MEASURED})::int8 AS offer_age_count,
  count(*) FILTER (WHERE ${MEASURED} AND e.topic IS NOT NULL)::int8 AS topic_views,
  count(*) FILTER (WHERE ${MEASURED} AND e.dwell_ms < ${BILLABLE_DWELL_MS})::int8 AS short_views,
  count(e.gap_ms)::int8 AS gaps,
  count(*) FILTER (WHERE e.gap_ms >= ${LONG_GAP_MS})::int8 AS long_gaps`

/**
 * The day's rows with a source (an index range of the primary key, `occurred_at` first), each measured view with
 * `gap_ms`: the time from its viewer's previous decision to its own (a decision is its view's time
 * less the offer age; the viewer's first has none).
 */
const dayRows = (startMs: number, endMs: number): RawBuilder<unknown> => sql`
  SELECT d.*, d.decided_ms - lag(d.decided_ms) OVER (PARTITION BY d.viewer_key, d.decided_ms IS NULL ORDER BY d.decided_ms) AS gap_ms
  FROM (
    SELECT source, viewer_key, event_type, reason, dwell_ms, debit_micros, offer_age_ms, topic,
      CASE WHEN event_type IN ('impression', 'view') AND offer_age_ms IS NOT NULL
        THEN extract(epoch FROM occurred_at)::float8 * 1000 - offer_age_ms END AS decided_ms
    FROM ledger_events
    WHERE source IS NOT NULL AND occurred_at >= ${new Date(startMs)} AND occurred_at < ${new Date(endMs)}
  ) d`

interface CommonRow {
  views: number
  impressions: number
  voided: number
  invalid_views: number
  clicks: number
  debit_micros: number
  dwell_at_threshold: number
  offer_age_count: number
  offer_age_mean_ms: number | null
  offer_age_stddev_ms: number | null
  topic_views: number
  short_views: number
  gaps: number
  long_gaps: number
  total: number
}

const common = (r: CommonRow) => ({
  views: r.views,
  impressions: r.impressions,
  voided: r.voided,
  invalidViews: r.invalid_views,
  clicks: r.clicks,
  debitMicros: r.debit_micros,
  dwellAtThreshold: r.dwell_at_threshold,
  offerAgeCount: r.offer_age_count,
  offerAgeMeanMs: r.offer_age_mean_ms,
  offerAgeStddevMs: r.offer_age_stddev_ms,
  topicViews: r.topic_views,
  shortViews: r.short_views,
  gaps: r.gaps,
  longGaps: r.long_gaps,
})

/**
 * Per source over [startMs, endMs): the shared figures, distinct viewers, and the day's impressions of
 * its busiest viewer. The rows are grouped once by (source, viewer) and the sources summed from those
 * groups (a third faster than distinct counts over the rows: 2.2 s for a million rows on PostgreSQL);
 * the offer ages' mean and population deviation come from their sums and sums of squares.
 */
export async function readSourceFigures(db: Db, startMs: number, endMs: number): Promise<FiguresRead<SourceFigures>> {
  const result = await sql<CommonRow & { source: string; viewers: number; top_viewer_impressions: number }>`
    WITH pairs AS MATERIALIZED (
      SELECT e.source, e.viewer_key, ${commonCounts},
        sum(e.offer_age_ms::float8) FILTER (WHERE ${MEASURED}) AS age_sum,
        sum(e.offer_age_ms::float8 * e.offer_age_ms) FILTER (WHERE ${MEASURED}) AS age_squares
      FROM (${dayRows(startMs, endMs)}) e
      GROUP BY e.source, e.viewer_key
    ),
    viewer_impressions AS (SELECT viewer_key, sum(impressions) AS impressions FROM pairs GROUP BY viewer_key),
    per_source AS (
      SELECT p.source,
        sum(p.views)::int8 AS views, sum(p.impressions)::int8 AS impressions, sum(p.voided)::int8 AS voided,
        sum(p.invalid_views)::int8 AS invalid_views, sum(p.clicks)::int8 AS clicks, sum(p.debit_micros)::int8 AS debit_micros,
        sum(p.dwell_at_threshold)::int8 AS dwell_at_threshold, sum(p.offer_age_count)::int8 AS offer_age_count,
        sum(p.topic_views)::int8 AS topic_views, sum(p.short_views)::int8 AS short_views, sum(p.gaps)::int8 AS gaps, sum(p.long_gaps)::int8 AS long_gaps,
        sum(p.age_sum) AS age_sum, sum(p.age_squares) AS age_squares,
        count(*) FILTER (WHERE p.views > 0)::int8 AS viewers,
        coalesce(max(v.impressions), 0)::int8 AS top_viewer_impressions
      FROM pairs p JOIN viewer_impressions v ON v.viewer_key = p.viewer_key
      GROUP BY p.source
    )
    SELECT s.source, s.views, s.impressions, s.voided, s.invalid_views, s.clicks, s.debit_micros, s.dwell_at_threshold, s.offer_age_count,
      s.topic_views, s.short_views, s.gaps, s.long_gaps,
      s.age_sum / nullif(s.offer_age_count, 0) AS offer_age_mean_ms,
      sqrt(greatest(0, s.age_squares / nullif(s.offer_age_count, 0) - (s.age_sum / nullif(s.offer_age_count, 0)) ^ 2)) AS offer_age_stddev_ms,
      s.viewers, s.top_viewer_impressions, count(*) OVER ()::int8 AS total
    FROM per_source s
    ORDER BY s.views DESC, s.source
    LIMIT ${FIGURES_READ_MAX}`.execute(db)
  return {
    rows: result.rows.map((r) => ({ source: r.source, ...common(r), viewers: r.viewers, topViewerImpressions: r.top_viewer_impressions })),
    total: result.rows[0]?.total ?? 0,
  }
}

/** Per viewer key over [startMs, endMs): the shared figures and how many sources its views came from. */
export async function readViewerFigures(db: Db, startMs: number, endMs: number): Promise<FiguresRead<ViewerFigures>> {
  const result = await sql<CommonRow & { viewer_key: string; sources: number }>`
    SELECT e.viewer_key, ${commonCounts},
      (avg(e.offer_age_ms) FILTER (WHERE ${MEASURED}))::float8 AS offer_age_mean_ms,
      (stddev_pop(e.offer_age_ms) FILTER (WHERE ${MEASURED}))::float8 AS offer_age_stddev_ms,
      count(DISTINCT e.source) FILTER (WHERE ${MEASURED})::int8 AS sources, count(*) OVER ()::int8 AS total
    FROM (${dayRows(startMs, endMs)}) e
    GROUP BY e.viewer_key
    ORDER BY views DESC, e.viewer_key
    LIMIT ${FIGURES_READ_MAX}`.execute(db)
  return {
    rows: result.rows.map((r) => ({ viewerKey: r.viewer_key, ...common(r), sources: r.sources })),
    total: result.rows[0]?.total ?? 0,
  }
}

/** The daily review's record of a day (migration 0029), when it has run. */
export interface TrafficReviewRow {
  day: string
  reviewed_at: Date
  sources_flagged: number
  viewers_flagged: number
  units_voided: number
  credited_micros: number
}

export async function findTrafficReview(db: Db, day: string): Promise<TrafficReviewRow | null> {
  return (await db.selectFrom('traffic_reviews').selectAll().where('day', '=', day).executeTakeFirst()) ?? null
}

/** What the review gave back for a day, per campaign, with the account's email and the campaign's name; largest first. */
export interface TrafficCreditRow {
  user_id: string
  email: string
  campaign_id: string
  campaign_name: string | null
  units: number
  micros: number
}

export async function listTrafficCredits(db: Db, day: string): Promise<TrafficCreditRow[]> {
  return db
    .selectFrom('traffic_credits as t')
    .innerJoin('accounts as a', 'a.user_id', 't.user_id')
    .leftJoin('campaigns as c', 'c.campaign_id', 't.campaign_id')
    .select(['t.user_id', 'a.email', 't.campaign_id', 'c.name as campaign_name', 't.units', 't.micros'])
    .where('t.day', '=', day)
    .orderBy('t.micros', 'desc')
    .orderBy('t.campaign_id')
    .execute()
}

/** What one source billed over a day, what the review voided of it, and what the bounds refused when it was served. */
export interface SourceOutcome {
  source: string
  /** Billable impressions and clicks as served, voided ones included, and their debits. */
  billedUnits: number
  billedMicros: number
  /** Of those, voided by the review, and the debits it gave back. */
  voidedUnits: number
  voidedMicros: number
  /** Views refused at serving time as invalid traffic (the per-source bounds, the block list). */
  refusedViews: number
}

/**
 * Per source over [startMs, endMs): billed, voided and refused units (the review simulation's
 * read-out, tools/simulate/review). A voided unit's money is the debit of the row it voids (the one
 * with its `impression_key` and kind).
 */
export async function readSourceOutcomes(db: Db, startMs: number, endMs: number): Promise<SourceOutcome[]> {
  const result = await sql<{ source: string; billed_units: number; billed_micros: number; voided_units: number; voided_micros: number; refused_views: number }>`
    WITH day AS MATERIALIZED (${dayRowsWithKey(startMs, endMs)}),
    voided AS (SELECT impression_key, event_type FROM day WHERE event_type IN ('voided_impression', 'voided_click'))
    SELECT d.source,
      count(*) FILTER (WHERE d.billable AND d.event_type IN ('impression', 'click'))::int8 AS billed_units,
      coalesce(sum(d.debit_micros) FILTER (WHERE d.billable AND d.event_type IN ('impression', 'click')), 0)::int8 AS billed_micros,
      count(v.impression_key)::int8 AS voided_units,
      coalesce(sum(d.debit_micros) FILTER (WHERE v.impression_key IS NOT NULL), 0)::int8 AS voided_micros,
      count(*) FILTER (WHERE d.event_type = 'view' AND d.reason = 'invalid_traffic')::int8 AS refused_views
    FROM day d
    LEFT JOIN voided v ON d.billable AND v.impression_key = d.impression_key
      AND v.event_type = CASE d.event_type WHEN 'impression' THEN 'voided_impression' WHEN 'click' THEN 'voided_click' END
    GROUP BY d.source
    ORDER BY d.source`.execute(db)
  return result.rows.map((r) => ({
    source: r.source,
    billedUnits: r.billed_units,
    billedMicros: r.billed_micros,
    voidedUnits: r.voided_units,
    voidedMicros: r.voided_micros,
    refusedViews: r.refused_views,
  }))
}

const dayRowsWithKey = (startMs: number, endMs: number): RawBuilder<unknown> => sql`
  SELECT source, impression_key, event_type, billable, reason, debit_micros FROM ledger_events
  WHERE source IS NOT NULL AND occurred_at >= ${new Date(startMs)} AND occurred_at < ${new Date(endMs)}`
