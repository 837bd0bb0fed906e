import { sql } from 'kysely'
import type { Db } from './db.ts'
import { rangeSpendMicros } from './lease-use.ts'
import { enqueueExhaustedCampaigns } from './webhooks.ts'

/**
 * Settling impression budget leases: folding the `used` of locked lease rows into their campaigns
 * (billed count, spend, completion, block statuses, the `campaign.exhausted` webhooks). The lease
 * transactions of leases.ts lock the campaigns and the rows, then call settleRows.
 */

/** A lease row as a lease transaction locked it (`expired`: past its TTL by the store's clock). */
export interface LockedLease {
  lease_id: number
  campaign_id: string
  holder: string | null
  first_seq: number
  size: number
  used: number
  cpm_micros: number
  expired: boolean
}

/**
 * Folds locked lease rows' `used` into their campaigns (billed count, spend, completion, block
 * statuses, as the ledger statement did per batch before leases), resets each row to its unused tail
 * (deleted when empty) and frees the rows `free` says. The caller holds the campaigns' and the rows' locks.
 */
export async function settleRows(db: Db, rows: readonly LockedLease[], free: (r: LockedLease) => boolean, now: Date): Promise<void> {
  if (rows.length === 0) return
  const perCampaign = new Map<string, { n: number; spent: number }>()
  for (const r of rows) {
    if (r.used === 0) continue
    const c = perCampaign.get(r.campaign_id) ?? { n: 0, spent: 0 }
    c.n += r.used
    c.spent += rangeSpendMicros(r.cpm_micros, r.first_seq, r.used)
    perCampaign.set(r.campaign_id, c)
  }
  const ids = rows.map((r) => r.lease_id)
  const freed = rows.filter(free).map((r) => r.lease_id)
  await sql`UPDATE impression_leases SET first_seq = first_seq + used, size = size - used, used = 0,
      holder = CASE WHEN lease_id = ANY(${freed}::int8[]) THEN NULL ELSE holder END
    WHERE lease_id = ANY(${ids}::int8[])`.execute(db)
  await sql`DELETE FROM impression_leases WHERE lease_id = ANY(${ids}::int8[]) AND size = 0`.execute(db)
  if (perCampaign.size === 0) return
  const settled = [...perCampaign]
  await sql`
    WITH billed AS (
      SELECT * FROM unnest(${settled.map(([id]) => id)}::text[], ${settled.map(([, c]) => c.n)}::int8[], ${settled.map(([, c]) => c.spent)}::int8[])
        AS b(campaign_id, n, spent)
    ),
    upd AS (
      UPDATE campaigns c SET
        impressions_billed = c.impressions_billed + b.n,
        lifetime_spent_micros = c.lifetime_spent_micros + b.spent,
        status = CASE WHEN c.impressions_billed + b.n >= c.impressions AND c.status IN ('active', 'paused') THEN 'completed' ELSE c.status END,
        completed_at = CASE WHEN c.impressions_billed + b.n >= c.impressions AND c.status IN ('active', 'paused') THEN ${now} ELSE c.completed_at END,
        updated_at = CASE WHEN c.impressions_billed + b.n >= c.impressions AND c.status IN ('active', 'paused') THEN ${now} ELSE c.updated_at END
      FROM billed b
      WHERE c.campaign_id = b.campaign_id
      RETURNING c.campaign_id, c.impressions_billed, c.activated_at,
                -- Every block of a campaign holds impressions / block_count (src/domain/campaign-order.ts).
                c.impressions_billed / (c.impressions / c.block_count) AS current_block
    )
    UPDATE blocks b SET
      status = CASE WHEN u.impressions_billed >= (b.block_index + 1) * b.impressions_target THEN 'exhausted' ELSE 'serving' END,
      started_at = coalesce(b.started_at, ${now}),
      exhausted_at = CASE WHEN u.impressions_billed >= (b.block_index + 1) * b.impressions_target
                          THEN coalesce(b.exhausted_at, ${now}) ELSE b.exhausted_at END
    FROM upd u
    -- Only blocks at or below the current one can change: an index range on blocks_open (migration 0013).
    WHERE b.campaign_id = u.campaign_id AND b.status <> 'exhausted' AND b.block_index <= u.current_block
      AND (u.impressions_billed >= (b.block_index + 1) * b.impressions_target
        OR (u.activated_at IS NOT NULL AND b.status = 'queued' AND b.block_index = u.impressions_billed / b.impressions_target))
  `.execute(db)
  // Webhooks: campaigns this settlement completed (`campaign.exhausted`), in the same transaction.
  await enqueueExhaustedCampaigns(db, settled.map(([id]) => id), now)
}
