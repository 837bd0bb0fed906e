import { sql, type RawBuilder } from 'kysely'
import type { Db } from './db.ts'
import type { Surface } from '../domain/auction.ts'
import type { FillSample } from '../domain/quote.ts'

/**
 * The ledger reads behind an auction quote (domain/quote.ts). They read the
 * whole platform's traffic, not one account's: each returns only an
 * aggregate (a count and an instant, one price), never a row, an account, a
 * campaign or a brand.
 */

/** The traffic a bid targets: its surfaces, and its countries (null: worldwide). */
export interface Traffic {
  surfaces: readonly Surface[]
  countries: readonly string[] | null
}

function trafficSql(t: Traffic, alias: 'e' | 'o' = 'e'): RawBuilder<unknown> {
  const surfaces = sql`AND ${sql.ref(`${alias}.surface`)} IN (${sql.join([...t.surfaces])})`
  return t.countries === null ? surfaces : sql`${surfaces} AND ${sql.ref(`${alias}.country`)} IN (${sql.join([...t.countries])})`
}

/**
 * The most recent billable impressions on `traffic` in [start, end], at most
 * `limit` of them (newest first, on the ledger's time index): how many, and
 * the oldest one's instant.
 */
export async function readFillSample(db: Db, traffic: Traffic, start: Date, end: Date, limit: number): Promise<FillSample> {
  const { rows } = await sql<{ billable: number; oldest: Date | null }>`
    SELECT count(*)::int AS billable, min(s.occurred_at) AS oldest FROM (
      SELECT e.occurred_at FROM ledger_events e
      WHERE e.event_type = 'impression' AND e.occurred_at >= ${start} AND e.occurred_at <= ${end} ${trafficSql(traffic)}
      ORDER BY e.occurred_at DESC
      LIMIT ${limit}
    ) s`.execute(db)
  const row = rows[0]
  return { billable: row?.billable ?? 0, oldestMs: row?.oldest ? row.oldest.getTime() : null }
}

/**
 * The lowest CPM among campaigns that won a decision (counted offers, migration 0030) on `traffic`
 * in the minutes that start in [start, end] (the rule of the stats' `events`), or null. Walks campaigns from the cheapest up and probes each
 * one's creative on the counts' (creative, minute) key, so it never scans the window's offers; only
 * campaigns that could have served in the window are walked (active now, or stopped within it).
 */
export async function readLowestWinningCpm(db: Db, traffic: Traffic, start: Date, end: Date): Promise<number | null> {
  const { rows } = await sql<{ cpm_micros: number }>`
    SELECT c.cpm_micros FROM campaigns c
    JOIN creatives cr ON cr.campaign_id = c.campaign_id
    WHERE c.activated_at IS NOT NULL
      AND (c.status = 'active' OR c.paused_at >= ${start} OR c.completed_at >= ${start} OR c.cancelled_at >= ${start})
      AND EXISTS (
        SELECT 1 FROM offer_counts o
        WHERE o.creative_id = cr.creative_id AND o.minute >= ${start} AND o.minute <= ${end}
          ${trafficSql(traffic, 'o')}
      )
    ORDER BY c.cpm_micros
    LIMIT 1`.execute(db)
  return rows[0]?.cpm_micros ?? null
}

/**
 * Decisions counted in the minutes that start in [start, end] (migration 0035): all of them, and
 * those that carried each of `topics` (in the order given). Aggregates of the whole platform's
 * decisions, never a viewer's.
 */
export async function readTopicDecisionCounts(db: Db, topics: readonly string[], start: Date, end: Date): Promise<{ decisions: number; carrying: number[] }> {
  const { rows } = await sql<{ topic: string; decisions: string }>`
    SELECT t.topic, sum(t.decisions)::int8 AS decisions FROM topic_decision_counts t
    WHERE t.minute >= ${start} AND t.minute <= ${end} AND t.topic IN (${sql.join(['', ...topics])})
    GROUP BY t.topic`.execute(db)
  const counts = new Map(rows.map((r) => [r.topic, Number(r.decisions)]))
  return { decisions: counts.get('') ?? 0, carrying: topics.map((t) => counts.get(t) ?? 0) }
}
