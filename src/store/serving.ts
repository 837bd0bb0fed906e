import { sql, type CompiledQuery } from 'kysely'
import { executePrepared, type Db } from './db.ts'
import { SURFACES, type Candidate, type Surface } from '../domain/auction.ts'
import type { CampaignKind } from '../domain/campaign-order.ts'
import type { ClickCtrCounts, CtrCounts } from '../domain/ctr.ts'

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
      'c.kind',
      'c.target_surface',
      'c.target_countries',
      'c.target_topics',
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
    kind: r.kind,
    targetSurface: r.target_surface,
    targetCountries: r.target_countries ? new Set(r.target_countries) : null,
    targetTopics: r.target_topics && r.target_topics.length > 0 ? new Set(r.target_topics) : null,
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

/** The kinds of these campaigns (a campaign's kind never changes); unknown ids are absent. */
export async function readCampaignKinds(db: Db, campaignIds: readonly string[]): Promise<Map<string, CampaignKind>> {
  if (campaignIds.length === 0) return new Map()
  const rows = await db.selectFrom('campaigns').select(['campaign_id', 'kind']).where('campaign_id', 'in', [...new Set(campaignIds)]).execute()
  return new Map(rows.map((r) => [r.campaign_id, r.kind]))
}

const noCounts = (): Record<Surface, CtrCounts> => ({ extension: { impressions: 0, clicks: 0 }, terminal: { impressions: 0, clicks: 0 } })

/**
 * The CTR estimator's inputs (src/domain/ctr.ts), summed over the serving instances' rows of
 * `click_ctr_counts` (migration 0024): a small table, one row per click campaign, surface and
 * instance, counted by the ledger statement that writes the rows it counts.
 */
export async function readClickCtrCounts(db: Db): Promise<ClickCtrCounts> {
  const { rows } = await sql<{ campaign_id: string | null; surface: string; impressions: number; clicks: number }>`
    SELECT k.campaign_id, k.surface, sum(k.impressions)::int8 AS impressions, sum(k.clicks)::int8 AS clicks
      FROM click_ctr_counts k JOIN campaigns c ON c.campaign_id = k.campaign_id
      WHERE c.status = 'active' GROUP BY k.campaign_id, k.surface
    UNION ALL
    SELECT NULL, surface, sum(impressions)::int8, sum(clicks)::int8 FROM click_ctr_counts GROUP BY surface`.execute(db)
  const counts = { campaigns: new Map<string, Record<Surface, CtrCounts>>(), platform: noCounts() }
  for (const r of rows) {
    const surface = SURFACES.find((s) => s === r.surface)
    if (!surface) continue
    let into = counts.platform
    if (r.campaign_id !== null) {
      into = counts.campaigns.get(r.campaign_id) ?? noCounts()
      counts.campaigns.set(r.campaign_id, into)
    }
    into[surface] = { impressions: r.impressions, clicks: r.clicks }
  }
  return counts
}
