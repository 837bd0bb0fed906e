import { sql } from 'kysely'
import type { Db } from './db.ts'
import type { Source } from '../domain/traffic-source.ts'

// The daily traffic review's writes (docs/invalid-traffic.md; migration 0029): voided rows in the
// ledger, what each campaign got back, the review's own row.

/** What the review voided on one campaign. */
export interface VoidedOnCampaign {
  user_id: string
  campaign_id: string
  units: number
  micros: number
}

/** Whether the day was reviewed already (a rerun changes nothing). */
export async function isDayReviewed(db: Db, day: string): Promise<boolean> {
  return (await db.selectFrom('traffic_reviews').select('day').where('day', '=', day).executeTakeFirst()) !== undefined
}

/** The last reviewed day (YYYY-MM-DD), or null before the first review. */
export async function lastReviewedDay(db: Db): Promise<string | null> {
  const row = await db.selectFrom('traffic_reviews').select(sql<string | null>`max(day)::text`.as('day')).executeTakeFirstOrThrow()
  return row.day
}

/** The first instant at or after `fromMs` (and before `beforeMs`) of a ledger row with a source, or null. */
export async function nextSourcedEventAt(db: Db, fromMs: number, beforeMs: number): Promise<Date | null> {
  const row = await db
    .selectFrom('ledger_events')
    .select(sql<Date | null>`min(occurred_at)`.as('at'))
    .where('source', 'is not', null)
    .where('occurred_at', '>=', new Date(fromMs))
    .where('occurred_at', '<', new Date(beforeMs))
    .executeTakeFirstOrThrow()
  return row.at ? new Date(row.at) : null
}

/**
 * Voids the billable units of one UTC day that came from `sources` or `viewers`: every billable
 * impression gets a `voided_impression` row and every billable click a `voided_click` row, dated
 * like the row it voids and with its `impression_key` (migration 0040), reason invalid_traffic, debit 0; a unit voided already is left as it is
 * (its claim, `ledger_claims`, migration 0031). Returns what was voided per campaign, with the debits it gives back, and
 * records it in `traffic_credits`.
 *
 * Every part reads the one `targets` list and none joins another: the planner cannot estimate a
 * CTE, and on a store whose statistics are stale (the embedded one has no autovacuum) a join of two
 * CTEs became a nested loop (230 s for 16,700 units; 3 s without). A unit claimed by a concurrent
 * review after `targets` was read fails the claim's key, and with it this whole review, which the
 * job runs again: never voided twice.
 */
export async function voidUnits(db: Db, day: string, sources: readonly Source[], viewers: readonly string[]): Promise<VoidedOnCampaign[]> {
  if (sources.length === 0 && viewers.length === 0) return []
  const start = new Date(`${day}T00:00:00Z`)
  const end = new Date(start.getTime() + 86_400_000)
  const { rows } = await sql<{ user_id: string; campaign_id: string; units: number; micros: number }>`
    WITH targets AS MATERIALIZED (
      SELECT e.occurred_at, e.event_type, e.impression_key, e.user_id, e.campaign_id, e.creative_id, e.surface, e.country,
             e.viewer_key, e.source, e.debit_micros, e.topic, e.attestation_token,
             CASE e.event_type WHEN 'impression' THEN 'voided_impression' ELSE 'voided_click' END AS kind
      FROM ledger_events e
      WHERE e.source IS NOT NULL AND e.occurred_at >= ${start} AND e.occurred_at < ${end}
        AND e.billable AND e.event_type IN ('impression', 'click')
        -- IN (SELECT unnest(...)) is a hashed lookup; = ANY(array) would compare every row with every key.
        AND (e.source IN (SELECT unnest(${sources}::text[])) OR e.viewer_key IN (SELECT unnest(${viewers}::text[])))
        AND NOT EXISTS (
          SELECT 1 FROM ledger_claims c
          WHERE c.impression_key = e.impression_key AND c.kind = CASE e.event_type WHEN 'impression' THEN 'voided_impression' ELSE 'voided_click' END
        )
    ),
    claimed AS (
      INSERT INTO ledger_claims (impression_key, kind, claimed_at)
      SELECT impression_key, kind, occurred_at FROM targets
    ),
    voided AS (
      INSERT INTO ledger_events (occurred_at, event_type, impression_key, user_id, campaign_id, creative_id, surface, country,
                                 billable, debit_micros, reason, viewer_key, source, topic, attestation_token)
      SELECT t.occurred_at, t.kind, t.impression_key, t.user_id, t.campaign_id, t.creative_id, t.surface, t.country, false, 0,
             'invalid_traffic', t.viewer_key, t.source, t.topic, t.attestation_token
      FROM targets t
    ),
    per_campaign AS (
      SELECT t.user_id, t.campaign_id, count(*)::int AS units, sum(t.debit_micros)::int8 AS micros
      FROM targets t
      GROUP BY t.user_id, t.campaign_id
    ),
    recorded AS (
      INSERT INTO traffic_credits (day, user_id, campaign_id, units, micros)
      SELECT ${day}::date, user_id, campaign_id, units, micros FROM per_campaign
      ON CONFLICT (day, campaign_id) DO UPDATE SET units = traffic_credits.units + excluded.units, micros = traffic_credits.micros + excluded.micros
    )
    SELECT p.user_id, p.campaign_id, p.units, p.micros FROM per_campaign p ORDER BY p.user_id, p.campaign_id
  `.execute(db)
  return rows.map((r) => ({ ...r, units: Number(r.units), micros: Number(r.micros) }))
}

export async function insertTrafficReview(
  db: Db,
  row: { day: string; reviewed_at: Date; sources_flagged: number; viewers_flagged: number; units_voided: number; credited_micros: number },
): Promise<void> {
  await db.insertInto('traffic_reviews').values(row).execute()
}

/** What the review gave back on an account's campaigns, newest day first (the portal's campaign and billing pages). */
export async function listTrafficCredits(db: Db, userId: string, campaignId?: string): Promise<{ day: string; campaign_id: string; units: number; micros: number }[]> {
  let q = db.selectFrom('traffic_credits').select([sql<string>`day::text`.as('day'), 'campaign_id', 'units', 'micros']).where('user_id', '=', userId)
  if (campaignId) q = q.where('campaign_id', '=', campaignId)
  return q.orderBy('day', 'desc').orderBy('campaign_id').limit(400).execute()
}
