import { sql } from 'kysely'
import type { Db } from './db.ts'
import { readRetainedFrom } from './ledger-partitions.ts'
import { LEDGER_SUM, NB_COLUMNS, NON_BILLABLE_SUMS } from './ledger-sums.ts'
import { nbSums, nonBillableOf, type MetricRow, type NbRow } from './metric-rows.ts'
import { NON_BILLABLE_REASONS } from '../domain/delivery.ts'

/**
 * A creative's all-time metrics (GET /creatives/{id}), across the ledger partitions retention
 * dropped (docs/ARCHITECTURE.md (decision 0360)).
 */

export interface CreativeMetrics extends Omit<MetricRow, 'bucket' | 'creativeId'> {
  first: Date | null
  last: Date | null
}

/**
 * Exact all-time metrics of one creative, with its first and last billable impression: from the
 * ledger and the offer counts, and, for the days whose ledger partitions retention dropped (before
 * `ledger_retention.retained_from`), from the rollups (sums from the daily rows, viewers from the
 * daily viewer sets, the served instants to the hour from the hourly rows).
 */
export async function creativeLifetimeMetrics(db: Db, creativeId: string): Promise<CreativeMetrics> {
  const from = await readRetainedFrom(db)
  const r = await sql<
    {
      events: string
      billable: string
      ticks: string
      clicks: string
      spend: string
      attested: string
      first: Date | null
      last: Date | null
    } & NbRow
  >`
    SELECT ${LEDGER_SUM.events} AS events,
      ${LEDGER_SUM.billable} AS billable,
      ${LEDGER_SUM.ticks} AS ticks,
      ${LEDGER_SUM.clicks} AS clicks,
      ${LEDGER_SUM.spend} AS spend,
      ${LEDGER_SUM.attested} AS attested,
      ${NON_BILLABLE_SUMS},
      min(e.occurred_at) FILTER (WHERE e.event_type = 'impression') AS first,
      max(e.occurred_at) FILTER (WHERE e.event_type = 'impression') AS last
    FROM ledger_events e WHERE e.creative_id = ${creativeId}`.execute(db)
  const row = r.rows[0]!
  const kept = from === null ? sql`` : sql`AND o.minute >= ${from}::date`
  const offers = await sql<{ offers: string | null }>`SELECT sum(o.offers) AS offers FROM offer_counts o WHERE o.creative_id = ${creativeId} ${kept}`.execute(db)
  const viewers = await sql<{ viewers: string }>`
    SELECT count(*) AS viewers FROM (
      SELECT e.viewer_key FROM ledger_events e WHERE e.creative_id = ${creativeId}
      ${from === null ? sql`` : sql`UNION SELECT v.viewer_key FROM daily_viewers v WHERE v.creative_id = ${creativeId} AND v.day < ${from}::date`}
    ) x`.execute(db)
  const metrics: CreativeMetrics = {
    events: Number(row.events) + Number(offers.rows[0]?.offers ?? 0),
    billable: Number(row.billable),
    ticks: Number(row.ticks),
    clicks: Number(row.clicks),
    spend: Number(row.spend),
    attested: Number(row.attested),
    viewers: Number(viewers.rows[0]?.viewers ?? 0),
    nonBillable: nonBillableOf(row),
    first: row.first ? new Date(row.first) : null,
    last: row.last ? new Date(row.last) : null,
  }
  if (from === null) return metrics
  const old = await sql<
    {
      events: string | null
      billable: string | null
      ticks: string | null
      clicks: string | null
      spend: string | null
      attested: string | null
      first: Date | null
      last: Date | null
    } & NbRow
  >`
    SELECT sum(r.events) AS events, sum(r.billable_impressions) AS billable, sum(r.viewable_ticks) AS ticks, sum(r.clicks) AS clicks,
      sum(r.spend_micros) AS spend, sum(r.attested_billable_impressions) AS attested, ${nbSums('r')},
      min(r.hour) FILTER (WHERE r.billable_impressions > 0) AS first, max(r.hour) FILTER (WHERE r.billable_impressions > 0) AS last
    FROM hourly_rollups r WHERE r.creative_id = ${creativeId} AND r.hour < ${from}::date`.execute(db)
  const o = old.rows[0]
  if (!o || o.events === null) return metrics
  const nonBillable = { ...metrics.nonBillable }
  for (const reason of NON_BILLABLE_REASONS) nonBillable[reason] += Number(o[NB_COLUMNS[reason]] ?? 0)
  return {
    events: metrics.events + Number(o.events),
    billable: metrics.billable + Number(o.billable),
    ticks: metrics.ticks + Number(o.ticks),
    clicks: metrics.clicks + Number(o.clicks),
    spend: metrics.spend + Number(o.spend),
    attested: metrics.attested + Number(o.attested),
    viewers: metrics.viewers,
    nonBillable,
    first: o.first ? new Date(o.first) : metrics.first,
    last: metrics.last ?? (o.last ? new Date(o.last) : null),
  }
}
