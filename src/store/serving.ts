import { sql, type CompiledQuery } from 'kysely'
import { executePrepared, type Db } from './db.ts'
import type { Candidate } from '../domain/auction.ts'

/** The epoch read, compiled once per store (it runs before every wave of decisions). */
const epochQueries = new WeakMap<Db, CompiledQuery<{ epoch: number }>>()

export async function readServingEpoch(db: Db): Promise<number> {
  let query = epochQueries.get(db)
  if (!query) epochQueries.set(db, (query = db.selectFrom('serving_epoch').select('epoch').where('id', '=', 1).compile()))
  // Prepared (src/store/db.ts#executePrepared): parsed and planned once per connection.
  const { rows } = await executePrepared(db, query)
  if (!rows[0]) throw new Error('serving_epoch has no row')
  return rows[0].epoch
}

/** Every campaign that may win an auction now: active, approved, with inventory left, on an account in good standing. */
export async function loadCandidates(db: Db): Promise<Candidate[]> {
  const rows = await db
    .selectFrom('campaigns as c')
    .innerJoin('creatives as cr', 'cr.campaign_id', 'c.campaign_id')
    .innerJoin('accounts as a', 'a.user_id', 'c.user_id')
    // Delivered: settled plus what leases billed and did not settle yet.
    .leftJoin('campaign_lease_use as u', 'u.campaign_id', 'c.campaign_id')
    .select([
      'c.campaign_id',
      'c.user_id',
      'cr.creative_id',
      'c.seq',
      'c.cpm_micros',
      'c.target_surface',
      'c.target_countries',
      'c.pace_minutes',
      'c.impressions',
      sql<number>`c.impressions_billed + coalesce(u.used, 0)`.as('delivered'),
      'c.activated_at',
      'c.paused_ms',
      'cr.ad_line',
      'cr.brand',
      'cr.icon_url',
      'cr.destination_url',
    ])
    .where('c.status', '=', 'active')
    .where('cr.moderation_status', '=', 'approved')
    // domain/collection.ts#deliveryStops: a declined card or an operator's `disabled` stops serving.
    .where('a.collection_status', '<>', 'payment_failed')
    .where((eb) => eb.or([eb('a.collection_hold', 'is', null), eb('a.collection_hold', '<>', 'disabled')]))
    .where(sql<boolean>`c.impressions_billed + coalesce(u.used, 0) < c.impressions`)
    .execute()
  return rows.map((r) => ({
    campaignId: r.campaign_id,
    userId: r.user_id,
    creativeId: r.creative_id,
    seq: r.seq,
    cpmMicros: r.cpm_micros,
    targetSurface: r.target_surface,
    targetCountries: r.target_countries ? new Set(r.target_countries) : null,
    paceMinutes: r.pace_minutes,
    impressions: r.impressions,
    billed: r.delivered,
    activatedAtMs: r.activated_at?.getTime() ?? null,
    pausedMs: r.paused_ms,
    adLine: r.ad_line,
    brand: r.brand,
    iconUrl: r.icon_url,
    destinationUrl: r.destination_url,
  }))
}

export async function findDestination(db: Db, campaignId: string): Promise<string | undefined> {
  const row = await db.selectFrom('creatives').select('destination_url').where('campaign_id', '=', campaignId).executeTakeFirst()
  return row?.destination_url
}
