import { sql } from 'kysely'
import { NON_BILLABLE_REASONS, storedReasons, type NonBillableReason } from '../domain/delivery.ts'

/**
 * Recorded views that were not billable for `reason`, over ledger events aliased `e`: `view` rows,
 * repeat and late view reports and voided impressions (`invalid_traffic`, the daily traffic review)
 * whose stored reason reads as `reason` (old rows keep the names of before issue 25:
 * src/domain/delivery.ts, LEGACY_REASONS).
 */
const nonBillable = (reason: NonBillableReason) =>
  sql`count(*) FILTER (WHERE e.event_type IN ('view', 'repeat_view', 'expired_view', 'voided_impression') AND e.reason IN (${sql.join(storedReasons(reason).map((r) => sql.lit(r)))}))`

/**
 * The metric sums over ledger events aliased `e`, written once and used by
 * every rollup and every live read (docs/reporting.md (decision 0149)).
 * Migrations 0008 and 0025 keep their own copies for the backfill: an
 * applied migration never changes.
 */
export const LEDGER_SUM = {
  /**
   * Every ledger event: measured views, billable impressions, clicks, repeat and late view reports (not the voided rows,
   * which reclassify one). The `events` metric adds the offers, counted in `offer_counts` (OFFER_SUMS_AS).
   */
  events: sql`count(*) FILTER (WHERE e.event_type NOT IN ('voided_impression', 'voided_click'))`,
  /** Billable impressions, less those the daily traffic review voided (they count as invalid_traffic). */
  billable: sql`count(*) FILTER (WHERE e.event_type = 'impression') - count(*) FILTER (WHERE e.event_type = 'voided_impression')`,
  /** Viewable ticks: whole seconds of measured dwell, at most ten per measured view (a view is a ten-second slot). */
  ticks: sql`coalesce(sum(least(e.dwell_ms, 10000) / 1000) FILTER (WHERE e.event_type IN ('impression', 'view')), 0)`,
  clicks: sql`count(*) FILTER (WHERE e.event_type = 'click')`,
  /** What was debited; voided rows debit nothing (their money goes back as a credit of the account, docs/invalid-traffic.md). */
  spend: sql`coalesce(sum(e.debit_micros), 0)`,
  /** Billable impressions that carried a Privacy Pass token (migration 0037), less those voided. */
  attested: sql`count(*) FILTER (WHERE e.event_type = 'impression' AND e.attestation_token IS NOT NULL) - count(*) FILTER (WHERE e.event_type = 'voided_impression' AND e.attestation_token IS NOT NULL)`,
}

/** The rollup tables' columns of the non-billable counts, in NON_BILLABLE_REASONS order (migrations 0025, 0029). */
export const NB_COLUMNS = {
  short_dwell: 'nb_short_dwell',
  repeat: 'nb_repeat',
  too_fast: 'nb_too_fast',
  viewer_frequency: 'nb_viewer_frequency',
  expired: 'nb_expired',
  block_full: 'nb_block_full',
  invalid_traffic: 'nb_invalid_traffic',
  unattested: 'nb_unattested',
  invalid_token: 'nb_invalid_token',
} as const satisfies Record<NonBillableReason, string>

/** The per-reason sums, each `AS nb_<reason>`, in NON_BILLABLE_REASONS order. */
export const NON_BILLABLE_SUMS = sql.join(NON_BILLABLE_REASONS.map((r) => sql`${nonBillable(r)} AS ${sql.ref(NB_COLUMNS[r])}`))

const ROLLUP_NAMES = [
  'events',
  'billable_impressions',
  'viewable_ticks',
  'clicks',
  'spend_micros',
  ...NON_BILLABLE_REASONS.map((r) => NB_COLUMNS[r]),
  'attested_billable_impressions',
]

/** The rollup columns, in the order of LEDGER_SUMS_AS. */
export const ROLLUP_COLUMNS = sql.join(ROLLUP_NAMES.map((c) => sql.ref(c)))

/**
 * The rollup tables' sums over ledger events aliased `e`, each `AS` its rollup column: events, billable
 * impressions, viewable ticks, clicks, spend, then the non-billable counts.
 */
export const LEDGER_SUMS_AS = sql.join([
  sql`${LEDGER_SUM.events} AS events`,
  sql`${LEDGER_SUM.billable} AS billable_impressions`,
  sql`${LEDGER_SUM.ticks} AS viewable_ticks`,
  sql`${LEDGER_SUM.clicks} AS clicks`,
  sql`${LEDGER_SUM.spend} AS spend_micros`,
  NON_BILLABLE_SUMS,
  sql`${LEDGER_SUM.attested} AS attested_billable_impressions`,
])

/** The same columns over offer counts aliased `o` (migration 0030): offers are events, and nothing else. */
export const OFFER_SUMS_AS = sql.join(ROLLUP_NAMES.map((c) => (c === 'events' ? sql`sum(o.offers) AS events` : sql`0 AS ${sql.ref(c)}`)))

/** The rollup columns summed over a union of LEDGER_SUMS_AS and OFFER_SUMS_AS rows aliased `x`. */
export const ROLLUP_TOTALS = sql.join(ROLLUP_NAMES.map((c) => sql`sum(${sql.ref(`x.${c}`)})`))
