import { sql } from 'kysely'
import type { Db } from './db.ts'
import { NON_BILLABLE_REASONS } from '../domain/delivery.ts'
import { LEDGER_SUMS_AS, NB_COLUMNS, OFFER_SUMS_AS, ROLLUP_COLUMNS, ROLLUP_TOTALS } from './ledger-sums.ts'

const nbColumns = NON_BILLABLE_REASONS.map((r) => sql.ref(NB_COLUMNS[r]))
/** The account's day totals of the non-billable counts, summed from its daily rows (aliased `r`). */
const nbDaySums = sql.join(NON_BILLABLE_REASONS.map((r) => sql`sum(${sql.ref(`r.${NB_COLUMNS[r]}`)})`))

/** The last UTC day (YYYY-MM-DD) closed and rolled up, or null before the first run. */
export async function readRolledThrough(db: Db): Promise<string | null> {
  const row = await db.selectFrom('rollup_state').select('rolled_through').where('id', '=', 1).executeTakeFirstOrThrow()
  return row.rolled_through
}

export async function writeRolledThrough(db: Db, day: string, now: Date): Promise<void> {
  await db.updateTable('rollup_state').set({ rolled_through: day, updated_at: now }).where('id', '=', 1).execute()
}

/** The first instant at or after `fromMs` (and before `beforeMs`) with a ledger event or counted offers, or null. */
export async function nextEventAt(db: Db, fromMs: number, beforeMs: number): Promise<Date | null> {
  const from = new Date(fromMs)
  const before = new Date(beforeMs)
  const { rows } = await sql<{ at: Date | null }>`
    SELECT least(
      (SELECT min(occurred_at) FROM ledger_events WHERE occurred_at >= ${from} AND occurred_at < ${before}),
      (SELECT min(minute) FROM offer_counts WHERE minute >= date_trunc('minute', ${from}::timestamptz) AND minute < ${before})
    ) AS at`.execute(db)
  const at = rows[0]?.at
  return at ? new Date(Math.max(at.getTime(), fromMs)) : null
}

/**
 * Replaces the rollup rows of one UTC day with absolute totals from the
 * ledger ("set, don't increment"): a rerun converges to the same rows.
 * Daily rows (per dimension, with their viewer sets), the account's viewer
 * days and returns (exact unique viewers over day windows), and hourly rows
 * (per dimension, plus the account's distinct viewers per hour) and the
 * account's unfiltered day totals are written
 * in one transaction, so the watermark covers them all.
 */
export async function rollUpDay(db: Db, day: string): Promise<number> {
  return db.transaction().execute((trx) => rewriteDayRollups(trx, day))
}

/** `rollUpDay` inside a transaction the caller holds (the traffic review re-rolls a day it voided units of). */
export async function rewriteDayRollups(trx: Db, day: string): Promise<number> {
  const start = new Date(`${day}T00:00:00Z`)
  const end = new Date(start.getTime() + 86_400_000)
  await trx.deleteFrom('daily_rollups').where('day', '=', day).execute()
  await trx.deleteFrom('daily_viewers').where('day', '=', day).execute()
  const inserted = await sql`
    INSERT INTO daily_rollups (day, user_id, campaign_id, creative_id, surface, ${ROLLUP_COLUMNS})
    SELECT ${day}::date, x.user_id, x.campaign_id, x.creative_id, x.surface, ${ROLLUP_TOTALS} FROM (
      SELECT e.user_id, e.campaign_id, e.creative_id, e.surface, ${LEDGER_SUMS_AS}
      FROM ledger_events e
      WHERE e.occurred_at >= ${start} AND e.occurred_at < ${end}
      GROUP BY 1, 2, 3, 4
      UNION ALL
      SELECT o.user_id, o.campaign_id, o.creative_id, o.surface, ${OFFER_SUMS_AS}
      FROM offer_counts o
      WHERE o.minute >= ${start} AND o.minute < ${end}
      GROUP BY 1, 2, 3, 4
    ) x
    GROUP BY 1, 2, 3, 4, 5`.execute(trx)
  await sql`
    INSERT INTO daily_viewers (day, user_id, campaign_id, creative_id, surface, viewer_key)
    SELECT DISTINCT ${day}::date, user_id, campaign_id, creative_id, surface, viewer_key
    FROM ledger_events
    WHERE occurred_at >= ${start} AND occurred_at < ${end}`.execute(trx)
  // Account-level viewer days and their "previous active day" counts (exact unique viewers; see 0006).
  await trx.deleteFrom('account_viewer_days').where('day', '=', day).execute()
  await trx.deleteFrom('daily_viewer_returns').where('day', '=', day).execute()
  await sql`
    INSERT INTO account_viewer_days (user_id, viewer_key, day)
    SELECT DISTINCT user_id, viewer_key, ${day}::date
    FROM ledger_events
    WHERE occurred_at >= ${start} AND occurred_at < ${end}`.execute(trx)
  await sql`
    INSERT INTO daily_viewer_returns (user_id, day, prev_day, viewers)
    SELECT a.user_id, a.day,
      (SELECT max(p.day) FROM account_viewer_days p WHERE p.user_id = a.user_id AND p.viewer_key = a.viewer_key AND p.day < a.day),
      count(*)
    FROM account_viewer_days a WHERE a.day = ${day}::date
    GROUP BY 1, 2, 3`.execute(trx)
  // Unfiltered account totals of the day, with its distinct viewers (see 0008).
  await sql`DELETE FROM daily_account_rollups WHERE day = ${day}::date`.execute(trx)
  await sql`
    INSERT INTO daily_account_rollups (user_id, day, events, billable_impressions, viewable_ticks, clicks, spend_micros, attested_billable_impressions, viewers, ${sql.join(nbColumns)})
    SELECT r.user_id, r.day, sum(r.events), sum(r.billable_impressions), sum(r.viewable_ticks), sum(r.clicks), sum(r.spend_micros), sum(r.attested_billable_impressions),
      (SELECT count(*) FROM account_viewer_days a WHERE a.user_id = r.user_id AND a.day = r.day), ${nbDaySums}
    FROM daily_rollups r WHERE r.day = ${day}::date
    GROUP BY r.user_id, r.day`.execute(trx)
  // Hourly rows (see 0008): per dimension, and the account's distinct viewers per hour.
  await sql`DELETE FROM hourly_rollups WHERE hour >= ${start} AND hour < ${end}`.execute(trx)
  await sql`DELETE FROM hourly_viewers WHERE hour >= ${start} AND hour < ${end}`.execute(trx)
  await sql`
    INSERT INTO hourly_rollups (hour, user_id, campaign_id, creative_id, surface, ${ROLLUP_COLUMNS})
    SELECT x.hour, x.user_id, x.campaign_id, x.creative_id, x.surface, ${ROLLUP_TOTALS} FROM (
      SELECT date_trunc('hour', e.occurred_at, 'UTC') AS hour, e.user_id, e.campaign_id, e.creative_id, e.surface, ${LEDGER_SUMS_AS}
      FROM ledger_events e
      WHERE e.occurred_at >= ${start} AND e.occurred_at < ${end}
      GROUP BY 1, 2, 3, 4, 5
      UNION ALL
      SELECT date_trunc('hour', o.minute, 'UTC'), o.user_id, o.campaign_id, o.creative_id, o.surface, ${OFFER_SUMS_AS}
      FROM offer_counts o
      WHERE o.minute >= ${start} AND o.minute < ${end}
      GROUP BY 1, 2, 3, 4, 5
    ) x
    GROUP BY 1, 2, 3, 4, 5`.execute(trx)
  await sql`
    INSERT INTO hourly_viewers (user_id, hour, viewers)
    SELECT e.user_id, date_trunc('hour', e.occurred_at, 'UTC'), count(DISTINCT e.viewer_key)
    FROM ledger_events e
    WHERE e.occurred_at >= ${start} AND e.occurred_at < ${end}
    GROUP BY 1, 2`.execute(trx)
  return Number(inserted.numAffectedRows ?? 0)
}
