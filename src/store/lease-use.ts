import type { Db } from './db.ts'
import { impressionsCostMicros } from '../domain/money.ts'

/**
 * What impression budget leases used and did not settle yet, read into a campaign's delivered
 * count and spend (docs/serving.md (decision 0101)): a range's spend,
 * and campaign rows as delivered. The view `campaign_lease_use` is the same sum in SQL.
 */

/** Billed but unsettled: a lease range's spend, exact (floor(b·c/1000) − floor((a−1)·c/1000)). */
export function rangeSpendMicros(cpmMicros: number, firstSeq: number, used: number): number {
  return used === 0 ? 0 : impressionsCostMicros(cpmMicros, firstSeq + used - 1) - impressionsCostMicros(cpmMicros, firstSeq - 1)
}

/**
 * Campaign rows as delivered: the settled billed count and spend plus what leases used and did not
 * settle yet. Every read of a campaign's delivered count or spend goes through this or the view.
 * Both halves are read again in ONE statement (one snapshot): read apart, a settlement committing
 * between them moves `used` into the campaign row unseen, and the delivered count reads low.
 */
export async function withLeaseUse<T extends { campaign_id: string; impressions_billed: number; lifetime_spent_micros: number }>(
  db: Db,
  rows: T[],
): Promise<T[]> {
  if (rows.length === 0) return rows
  const delivered = await db
    .selectFrom('campaigns as c')
    .leftJoin('campaign_lease_use as u', 'u.campaign_id', 'c.campaign_id')
    .select(['c.campaign_id', 'c.impressions_billed', 'c.lifetime_spent_micros', 'u.used', 'u.spent_micros'])
    .where('c.campaign_id', 'in', [...new Set(rows.map((r) => r.campaign_id))])
    .execute()
  const by = new Map(delivered.map((d) => [d.campaign_id, d]))
  return rows.map((r) => {
    const d = by.get(r.campaign_id)
    if (!d) return r
    return { ...r, impressions_billed: d.impressions_billed + (d.used ?? 0), lifetime_spent_micros: d.lifetime_spent_micros + (d.spent_micros ?? 0) }
  })
}
