import { sql } from 'kysely'
import { NB_COLUMNS } from './ledger-sums.ts'
import { NON_BILLABLE_REASONS, type NonBillableCounts } from '../domain/delivery.ts'

/**
 * The metric row every stats read answers (stats.ts over a window, creative-metrics.ts over a
 * creative's lifetime), how a query's result row becomes one, and the rollups' non-billable
 * columns it is read from.
 */

export interface MetricRow {
  /** Bucket label (ms), or null for interval totals. */
  bucket: number | null
  creativeId: string | null
  events: number
  billable: number
  ticks: number
  clicks: number
  spend: number
  /** Billable impressions that carried a valid Privacy Pass token (docs/attestation.md). */
  attested: number
  viewers: number
  /** Recorded views that were not billable, per reason. */
  nonBillable: NonBillableCounts
}

/** The non-billable columns of a result row (`nb_<reason>`, as text or number). */
export type NbRow = Record<(typeof NB_COLUMNS)[keyof typeof NB_COLUMNS], string | number>

export const nonBillableOf = (r: NbRow): NonBillableCounts => ({
  short_dwell: Number(r.nb_short_dwell),
  repeat: Number(r.nb_repeat),
  too_fast: Number(r.nb_too_fast),
  viewer_frequency: Number(r.nb_viewer_frequency),
  expired: Number(r.nb_expired),
  block_full: Number(r.nb_block_full),
  invalid_traffic: Number(r.nb_invalid_traffic),
  unattested: Number(r.nb_unattested),
  invalid_token: Number(r.nb_invalid_token),
})

/** `sum(<alias>.nb_x) AS nb_x` for every reason: the rollups' counts summed over their rows. */
export const nbSums = (alias: string) => sql.join(NON_BILLABLE_REASONS.map((reason) => sql`sum(${sql.ref(`${alias}.${NB_COLUMNS[reason]}`)}) AS ${sql.ref(NB_COLUMNS[reason])}`))
/** The `nb_x` columns of a rollup row or subquery (aliased `alias`). */
export const nbColumns = (alias: string) => sql.join(NON_BILLABLE_REASONS.map((reason) => sql.ref(`${alias}.${NB_COLUMNS[reason]}`)))

/** A metrics query's result row: the sums as text (int8), the bucket as a timestamp or a day. */
export type MetricResultRow = {
  bucket: Date | string | null
  creative_id: string | null
  events: string
  billable: string
  ticks: string
  clicks: string
  spend: string
  attested: string
  viewers: string
} & NbRow

export function toMetricRow(r: MetricResultRow): MetricRow {
  const bucket = r.bucket === null ? null : typeof r.bucket === 'string' ? Date.parse(`${r.bucket.slice(0, 10)}T00:00:00Z`) : r.bucket.getTime()
  return {
    bucket,
    creativeId: r.creative_id,
    events: Number(r.events),
    billable: Number(r.billable),
    ticks: Number(r.ticks),
    clicks: Number(r.clicks),
    spend: Number(r.spend),
    attested: Number(r.attested),
    viewers: Number(r.viewers),
    nonBillable: nonBillableOf(r),
  }
}
