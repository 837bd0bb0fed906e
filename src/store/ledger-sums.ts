import { sql } from 'kysely'

/**
 * The metric sums over ledger events aliased `e`, written once and used by
 * every rollup and every live read (docs/decisions.md, Reporting: Metrics).
 * Migration 0008 keeps its own copy for the backfill: an applied migration
 * never changes.
 */
export const LEDGER_SUM = {
  /** Every ledger event: offers, measured views, billable impressions, clicks. */
  events: sql`count(*)`,
  billable: sql`count(*) FILTER (WHERE e.event_type = 'impression')`,
  /** Viewable ticks: whole seconds of measured dwell, at most ten per measured view (a view is a ten-second slot). */
  ticks: sql`coalesce(sum(least(e.dwell_ms, 10000) / 1000) FILTER (WHERE e.event_type IN ('impression', 'view')), 0)`,
  clicks: sql`count(*) FILTER (WHERE e.event_type = 'click')`,
  spend: sql`coalesce(sum(e.debit_micros), 0)`,
}

/** The rollup tables' column order: events, billable impressions, viewable ticks, clicks, spend. */
export const LEDGER_SUMS = sql.join([LEDGER_SUM.events, LEDGER_SUM.billable, LEDGER_SUM.ticks, LEDGER_SUM.clicks, LEDGER_SUM.spend])
