import { sql } from 'kysely'
import type { Db } from './db.ts'
import type { BrandSpellingTotal } from '../domain/leaderboard.ts'
import { isoDay, type Window } from '../domain/stats.ts'

/**
 * Billable impressions in a window of whole UTC days, per stored brand
 * spelling, from the daily rollups (never the ledger): only campaigns that
 * opted in to the leaderboard and whose creative has a brand. The one query
 * over every account's data, on purpose: the leaderboard is public and shows
 * brands and counts only. The rollups are summed per campaign first (the
 * window's rows, found by `daily_rollups_day`), then joined to the few
 * campaigns that delivered.
 */
export async function brandImpressions(db: Db, w: Window): Promise<BrandSpellingTotal[]> {
  const { rows } = await sql<{ brand: string; impressions: number }>`
    SELECT cr.brand, sum(t.impressions)::int8 AS impressions
    FROM (
      SELECT campaign_id, sum(billable_impressions) AS impressions
      FROM daily_rollups
      WHERE day >= ${isoDay(w.startMs)}::date AND day < ${isoDay(w.endMs)}::date
      GROUP BY campaign_id
    ) t
    JOIN campaigns c ON c.campaign_id = t.campaign_id
    JOIN creatives cr ON cr.campaign_id = t.campaign_id
    WHERE c.optin_leaderboard AND cr.brand IS NOT NULL AND t.impressions > 0
    GROUP BY cr.brand`.execute(db)
  return rows
}
