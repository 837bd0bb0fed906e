import { sql, type RawBuilder } from 'kysely'
import type { Db } from './db.ts'
import { LEDGER_SUM, NON_BILLABLE_SUMS } from './ledger-sums.ts'
import { nbColumns, nbSums, toMetricRow, type MetricResultRow, type MetricRow } from './metric-rows.ts'
import { noNonBillable } from '../domain/delivery.ts'
import type { ReportFilters } from '../domain/report-filters.ts'
import type { Granularity, Window } from '../domain/stats.ts'
import { isoDay } from '../domain/stats.ts'

/**
 * The reads behind a stats window (services/stats.ts): its metrics from the ledger or the
 * rollups, its exact distinct viewers over closed days and their edges, the cost estimate of a
 * live scan, and the campaigns of the creatives it is filtered on.
 */

function ledgerFilterSql(f: ReportFilters, alias: 'e' | 'o' = 'e'): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = []
  const col = (name: string) => sql.ref(`${alias}.${name}`)
  if (f.campaignIds) parts.push(sql`AND ${col('campaign_id')} IN (${sql.join(f.campaignIds)})`)
  if (f.creativeIds) parts.push(sql`AND ${col('creative_id')} IN (${sql.join(f.creativeIds)})`)
  if (f.surfaces) parts.push(sql`AND ${col('surface')} IN (${sql.join(f.surfaces)})`)
  if (f.countries) parts.push(sql`AND ${col('country')} IN (${sql.join(f.countries)})`)
  return parts.length ? sql.join(parts, sql` `) : sql``
}

/** The filters over offer counts aliased `o` (a decision without a country is counted under '', which no filter names). */
const offerFilterSql = (f: ReportFilters) => ledgerFilterSql(f, 'o')

function rollupFilterSql(f: ReportFilters): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = []
  if (f.campaignIds) parts.push(sql`AND r.campaign_id IN (${sql.join(f.campaignIds)})`)
  if (f.creativeIds) parts.push(sql`AND r.creative_id IN (${sql.join(f.creativeIds)})`)
  if (f.surfaces) parts.push(sql`AND r.surface IN (${sql.join(f.surfaces)})`)
  return parts.length ? sql.join(parts, sql` `) : sql``
}

/**
 * Metrics straight from the ledger over [start, end): per bucket (and per
 * creative) when `byBucket`, else interval totals. unique viewers are
 * distinct within each group.
 */
export async function ledgerMetrics(
  db: Db,
  userId: string,
  w: Window,
  g: Granularity,
  f: ReportFilters,
  options: { byBucket: boolean; byCreative: boolean },
): Promise<MetricRow[]> {
  const bucket = options.byBucket ? sql`date_trunc(${g}, e.occurred_at, 'UTC')` : sql`NULL::timestamptz`
  const creative = options.byCreative ? sql`e.creative_id` : sql`NULL::text`
  const groupBy = [...(options.byBucket ? [sql`1`] : []), ...(options.byCreative ? [sql`2`] : [])]
  const result = await sql<MetricResultRow>`
    SELECT ${bucket} AS bucket, ${creative} AS creative_id,
      ${LEDGER_SUM.events} AS events,
      ${LEDGER_SUM.billable} AS billable,
      ${LEDGER_SUM.ticks} AS ticks,
      ${LEDGER_SUM.clicks} AS clicks,
      ${LEDGER_SUM.spend} AS spend,
      ${LEDGER_SUM.attested} AS attested,
      count(DISTINCT e.viewer_key) AS viewers,
      ${NON_BILLABLE_SUMS}
    FROM ledger_events e
    WHERE e.user_id = ${userId} AND e.occurred_at >= ${new Date(w.startMs)} AND e.occurred_at < ${new Date(w.endMs)}
      ${ledgerFilterSql(f)}
    ${groupBy.length ? sql`GROUP BY ${sql.join(groupBy)}` : sql``}`.execute(db)
  const rows = result.rows.map(toMetricRow)
  // The window's offers are counts (migration 0030): each adds to its group's events, or makes a group of its own.
  const byKey = new Map(rows.map((r) => [groupKey(r.bucket, r.creativeId), r]))
  const offers = await sql<{ bucket: Date | null; creative_id: string | null; offers: string }>`
    SELECT ${options.byBucket ? sql`date_trunc(${g}, o.minute, 'UTC')` : sql`NULL::timestamptz`} AS bucket,
      ${options.byCreative ? sql`o.creative_id` : sql`NULL::text`} AS creative_id, sum(o.offers) AS offers
    FROM offer_counts o
    WHERE o.user_id = ${userId} AND o.minute >= ${new Date(w.startMs)} AND o.minute < ${new Date(w.endMs)}
      ${offerFilterSql(f)}
    ${groupBy.length ? sql`GROUP BY ${sql.join(groupBy)}` : sql``}`.execute(db)
  for (const o of offers.rows) {
    const bucket = o.bucket === null ? null : new Date(o.bucket).getTime()
    const known = byKey.get(groupKey(bucket, o.creative_id))
    if (known) known.events += Number(o.offers)
    else rows.push({ ...noMetrics(bucket, o.creative_id), events: Number(o.offers) })
  }
  return rows.filter((r) => r.events > 0)
}

const groupKey = (bucket: number | null, creativeId: string | null) => `${bucket ?? ''}|${creativeId ?? ''}`

const noMetrics = (bucket: number | null, creativeId: string | null): MetricRow => ({
  bucket,
  creativeId,
  events: 0,
  billable: 0,
  ticks: 0,
  clicks: 0,
  spend: 0,
  attested: 0,
  viewers: 0,
  nonBillable: noNonBillable(),
})

/** The same metrics from the daily rollups (whole UTC days only; no country dimension). */
export async function rollupMetrics(
  db: Db,
  userId: string,
  w: Window,
  g: Granularity,
  f: ReportFilters,
  options: { byBucket: boolean },
): Promise<MetricRow[]> {
  const from = isoDay(w.startMs)
  const to = isoDay(w.endMs)
  if (g === 'hour') throw new RangeError('hourly points come from hourlyRollupPoints')
  // The bucket's first day, without date_trunc over timestamptz (a time-zone conversion per row).
  const bucketDay = g === 'day' ? sql`r.day` : sql`date_trunc('month', r.day::timestamp)::date`
  // Grouped by the date itself; the label is formatted once per bucket, outside (not once per row).
  const bucket = options.byBucket ? bucketDay : sql`NULL::date`
  const groupBy = options.byBucket ? sql`GROUP BY 1` : sql``
  const unfiltered = !f.campaignIds && !f.creativeIds && !f.surfaces
  if (unfiltered && options.byBucket && g === 'day') {
    // One stored row per day: its sums and its exact distinct viewers.
    const days = await sql<MetricResultRow>`
      SELECT r.day::text AS bucket, NULL::text AS creative_id, r.events, r.billable_impressions AS billable, r.viewable_ticks AS ticks,
        r.clicks, r.spend_micros AS spend, r.attested_billable_impressions AS attested, r.viewers, ${nbColumns('r')}
      FROM daily_account_rollups r
      WHERE r.user_id = ${userId} AND r.day >= ${from}::date AND r.day < ${to}::date`.execute(db)
    return days.rows.filter((r) => Number(r.events) > 0).map(toMetricRow)
  }
  // Sums: the account's day totals when unfiltered, else the (campaign, creative, surface) rows.
  const sumsTable = unfiltered ? sql`daily_account_rollups` : sql`daily_rollups`
  // Unfiltered: a viewer counts once, on its first active day in the bucket (or window), so
  // sum the day's viewers whose previous active day lies before that bucket's start. Exact.
  const bucketStart = options.byBucket ? sql`greatest(${bucketDay}, ${from}::date)` : sql`${from}::date`
  const [sums, viewers] = await Promise.all([
    sql<MetricResultRow>`
      SELECT s.bucket::text AS bucket, NULL::text AS creative_id, s.events, s.billable, s.ticks, s.clicks, s.spend, s.attested, 0 AS viewers, ${nbColumns('s')} FROM (
        SELECT ${bucket} AS bucket, sum(r.events) AS events, sum(r.billable_impressions) AS billable, sum(r.viewable_ticks) AS ticks,
          sum(r.clicks) AS clicks, sum(r.spend_micros) AS spend, sum(r.attested_billable_impressions) AS attested, ${nbSums('r')}
        FROM ${sumsTable} r
        WHERE r.user_id = ${userId} AND r.day >= ${from}::date AND r.day < ${to}::date ${unfiltered ? sql`` : rollupFilterSql(f)}
        ${groupBy}
      ) s`.execute(db),
    unfiltered
      ? sql<{ bucket: string | null; viewers: string }>`
          SELECT s.bucket::text AS bucket, s.viewers FROM (
            SELECT ${bucket} AS bucket, coalesce(sum(r.viewers), 0) AS viewers
            FROM daily_viewer_returns r
            WHERE r.user_id = ${userId} AND r.day >= ${from}::date AND r.day < ${to}::date
              AND (r.prev_day IS NULL OR r.prev_day < ${bucketStart})
            ${groupBy}
          ) s`.execute(db)
      : sql<{ bucket: string | null; viewers: string }>`
          SELECT s.bucket::text AS bucket, s.viewers FROM (
            SELECT ${bucket} AS bucket, count(DISTINCT r.viewer_key) AS viewers
            FROM daily_viewers r
            WHERE r.user_id = ${userId} AND r.day >= ${from}::date AND r.day < ${to}::date ${rollupFilterSql(f)}
            ${groupBy}
          ) s`.execute(db),
  ])
  const viewersBy = new Map<MetricResultRow['bucket'], number>(viewers.rows.map((v) => [v.bucket, Number(v.viewers)]))
  return sums.rows
    .filter((r) => r.events !== null && Number(r.events) > 0)
    .map((r) => toMetricRow({ ...r, viewers: String(viewersBy.get(r.bucket) ?? 0) }))
}

/**
 * Hourly points over whole closed UTC days (hourly rollups, unfiltered):
 * sums per hour, and the account's distinct viewers of that hour.
 */
export async function hourlyRollupPoints(db: Db, userId: string, days: Window): Promise<MetricRow[]> {
  const result = await sql<MetricResultRow>`
    SELECT s.bucket, NULL::text AS creative_id, s.events, s.billable, s.ticks, s.clicks, s.spend, s.attested, coalesce(v.viewers, 0) AS viewers, ${nbColumns('s')}
    FROM (
      SELECT r.hour AS bucket, sum(r.events) AS events, sum(r.billable_impressions) AS billable, sum(r.viewable_ticks) AS ticks,
        sum(r.clicks) AS clicks, sum(r.spend_micros) AS spend, sum(r.attested_billable_impressions) AS attested, ${nbSums('r')}
      FROM hourly_rollups r
      WHERE r.user_id = ${userId} AND r.hour >= ${new Date(days.startMs)} AND r.hour < ${new Date(days.endMs)}
      GROUP BY r.hour
    ) s
    LEFT JOIN hourly_viewers v ON v.user_id = ${userId} AND v.hour = s.bucket`.execute(db)
  return result.rows.filter((r) => Number(r.events) > 0).map(toMetricRow)
}

/**
 * Exact distinct viewers of the account over whole closed UTC days: each
 * viewer counts once, on its first active day of the window (0006).
 */
export async function dayWindowViewers(db: Db, userId: string, days: Window): Promise<number> {
  const from = isoDay(days.startMs)
  const r = await sql<{ viewers: string }>`
    SELECT coalesce(sum(r.viewers), 0) AS viewers FROM daily_viewer_returns r
    WHERE r.user_id = ${userId} AND r.day >= ${from}::date AND r.day < ${isoDay(days.endMs)}::date
      AND (r.prev_day IS NULL OR r.prev_day < ${from}::date)`.execute(db)
  return Number(r.rows[0]?.viewers ?? 0)
}

/**
 * Distinct viewers of the account with an event in `edges` (read from the
 * ledger) and none on any of the closed `days` (account_viewer_days: one
 * index probe per viewer). Added to dayWindowViewers(days), this is the exact
 * number of distinct viewers over days ∪ edges.
 */
export async function edgeViewersNotIn(db: Db, userId: string, edges: readonly Window[], days: Window): Promise<number> {
  if (edges.length === 0) return 0
  const scans = edges.map(
    (e) => sql`SELECT e.viewer_key FROM ledger_events e
      WHERE e.user_id = ${userId} AND e.occurred_at >= ${new Date(e.startMs)} AND e.occurred_at < ${new Date(e.endMs)}`,
  )
  const r = await sql<{ viewers: string }>`
    SELECT count(*) AS viewers FROM (SELECT DISTINCT x.viewer_key FROM (${sql.join(scans, sql` UNION ALL `)}) x) v
    WHERE NOT EXISTS (
      SELECT 1 FROM account_viewer_days a
      WHERE a.user_id = ${userId} AND a.viewer_key = v.viewer_key AND a.day >= ${isoDay(days.startMs)}::date AND a.day < ${isoDay(days.endMs)}::date
    )`.execute(db)
  return Number(r.rows[0]?.viewers ?? 0)
}

/**
 * Events a live scan of the window would touch, per UTC day: closed days
 * from the rollups (country filters ignored: an upper bound), the days after
 * the watermark counted from the ledger but never past `cap` rows.
 */
export async function estimateEventsPerDay(
  db: Db,
  userId: string,
  w: Window,
  f: ReportFilters,
  rolledThroughMs: number | null,
  cap: number,
): Promise<Map<number, number>> {
  const perDay = new Map<number, number>()
  const liveFromMs = rolledThroughMs === null ? w.startMs : Math.max(w.startMs, rolledThroughMs + 86_400_000)
  if (rolledThroughMs !== null && liveFromMs > w.startMs) {
    const rolled = await sql<{ day: string; events: string }>`
      SELECT r.day::text AS day, sum(r.events) AS events FROM daily_rollups r
      WHERE r.user_id = ${userId} AND r.day >= ${isoDay(w.startMs)}::date AND r.day < ${isoDay(liveFromMs - 1)}::date + 1
        ${rollupFilterSql(f)}
      GROUP BY r.day`.execute(db)
    for (const r of rolled.rows) perDay.set(Date.parse(`${r.day}T00:00:00Z`), Number(r.events))
  }
  if (liveFromMs < w.endMs) {
    const live = await sql<{ day: Date; events: string }>`
      SELECT date_trunc('day', x.occurred_at, 'UTC') AS day, count(*) AS events FROM (
        SELECT e.occurred_at FROM ledger_events e
        WHERE e.user_id = ${userId} AND e.occurred_at >= ${new Date(liveFromMs)} AND e.occurred_at < ${new Date(w.endMs)}
          ${ledgerFilterSql(f)}
        LIMIT ${cap + 1}
      ) x GROUP BY 1`.execute(db)
    for (const r of live.rows) perDay.set(new Date(r.day).getTime(), (perDay.get(new Date(r.day).getTime()) ?? 0) + Number(r.events))
  }
  return perDay
}

/** The campaign of each of the account's creatives among `creativeIds` (creative id → campaign id). */
export async function campaignsOfCreatives(db: Db, userId: string, creativeIds: readonly string[]): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('creatives')
    .select(['creative_id', 'campaign_id'])
    .where('user_id', '=', userId)
    .where('creative_id', 'in', creativeIds)
    .execute()
  return new Map(rows.map((c) => [c.creative_id, c.campaign_id]))
}

/**
 * One campaign's billable impressions over [start, end) by attributed topic (ledger_events.topic,
 * migration 0036; null: none), voided ones deducted, as /v1/stats group_by=topic reads them.
 */
export async function billableByTopic(db: Db, userId: string, campaignId: string, w: Window): Promise<{ topic: string | null; billable: number }[]> {
  const { rows } = await sql<{ topic: string | null; billable: string }>`
    SELECT e.topic, ${LEDGER_SUM.billable} AS billable
    FROM ledger_events e
    WHERE e.user_id = ${userId} AND e.campaign_id = ${campaignId}
      AND e.event_type IN ('impression', 'voided_impression')
      AND e.occurred_at >= ${new Date(w.startMs)} AND e.occurred_at < ${new Date(w.endMs)}
    GROUP BY e.topic`.execute(db)
  return rows.map((r) => ({ topic: r.topic, billable: Number(r.billable) }))
}
