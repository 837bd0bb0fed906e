import { sql } from 'kysely'
import type { Db } from './db.ts'

/** The last UTC day (YYYY-MM-DD) closed and rolled up, or null before the first run. */
export async function readRolledThrough(db: Db): Promise<string | null> {
  const row = await db.selectFrom('rollup_state').select('rolled_through').where('id', '=', 1).executeTakeFirstOrThrow()
  return row.rolled_through
}

export async function writeRolledThrough(db: Db, day: string, now: Date): Promise<void> {
  await db.updateTable('rollup_state').set({ rolled_through: day, updated_at: now }).where('id', '=', 1).execute()
}

/** The first instant at or after `fromMs` (and before `beforeMs`) with a ledger event, or null. */
export async function nextEventAt(db: Db, fromMs: number, beforeMs: number): Promise<Date | null> {
  const row = await db
    .selectFrom('ledger_events')
    .select(sql<Date | null>`min(occurred_at)`.as('at'))
    .where('occurred_at', '>=', new Date(fromMs))
    .where('occurred_at', '<', new Date(beforeMs))
    .executeTakeFirstOrThrow()
  return row.at ? new Date(row.at) : null
}

/**
 * Replaces the rollup rows of one UTC day with absolute totals from the
 * ledger ("set, don't increment"): a rerun converges to the same rows.
 * viewable_ticks counts whole seconds of measured dwell, at most ten per view.
 */
export async function rollUpDay(db: Db, day: string): Promise<number> {
  const start = new Date(`${day}T00:00:00Z`)
  const end = new Date(start.getTime() + 86_400_000)
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('daily_rollups').where('day', '=', day).execute()
    await trx.deleteFrom('daily_viewers').where('day', '=', day).execute()
    const inserted = await sql`
      INSERT INTO daily_rollups (day, user_id, campaign_id, creative_id, surface, events, billable_impressions, viewable_ticks, clicks, spend_micros)
      SELECT ${day}::date, user_id, campaign_id, creative_id, surface,
        count(*),
        count(*) FILTER (WHERE event_type = 'impression'),
        coalesce(sum(least(dwell_ms, 10000) / 1000) FILTER (WHERE event_type IN ('impression', 'view')), 0),
        count(*) FILTER (WHERE event_type = 'click'),
        coalesce(sum(debit_micros), 0)
      FROM ledger_events
      WHERE occurred_at >= ${start} AND occurred_at < ${end}
      GROUP BY user_id, campaign_id, creative_id, surface`.execute(trx)
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
    return Number(inserted.numAffectedRows ?? 0)
  })
}
