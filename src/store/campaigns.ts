import { type Insertable, type Selectable, type Updateable } from 'kysely'
import type { Db } from './db.ts'
import type { BlocksTable, CampaignsTable, CreativesTable } from './schema.ts'
import { withLeaseUse } from './lease-use.ts'

export type CampaignRow = Selectable<CampaignsTable>
export type CreativeRow = Selectable<CreativesTable>
export type BlockRow = Selectable<BlocksTable>

export interface CampaignGraph {
  campaign: CampaignRow
  creative: CreativeRow
  blocks: BlockRow[]
}

export async function insertCampaignGraph(
  db: Db,
  graph: { campaign: Insertable<CampaignsTable>; creative: Insertable<CreativesTable>; blocks: Insertable<BlocksTable>[] },
): Promise<void> {
  await db.insertInto('campaigns').values(graph.campaign).execute()
  await db.insertInto('creatives').values(graph.creative).execute()
  await db.insertInto('blocks').values(graph.blocks).execute()
}

export async function findCreateRequest(db: Db, userId: string, key: string) {
  return db
    .selectFrom('campaign_create_requests')
    .select(['fingerprint', 'campaign_id', 'response'])
    .where('user_id', '=', userId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst()
}

export async function insertCreateRequest(
  db: Db,
  row: { user_id: string; idempotency_key: string; fingerprint: string; campaign_id: string; response: unknown; created_at: Date },
): Promise<void> {
  await db
    .insertInto('campaign_create_requests')
    .values({ ...row, response: JSON.stringify(row.response) })
    .execute()
}

/** Campaigns with their creative and blocks; billed count and spend as delivered (unsettled lease use included). */
async function attach(db: Db, settled: CampaignRow[]): Promise<CampaignGraph[]> {
  if (settled.length === 0) return []
  const campaigns = await withLeaseUse(db, settled)
  const ids = campaigns.map((c) => c.campaign_id)
  const [creatives, blocks] = await Promise.all([
    db.selectFrom('creatives').selectAll().where('campaign_id', 'in', ids).execute(),
    db.selectFrom('blocks').selectAll().where('campaign_id', 'in', ids).orderBy('campaign_id').orderBy('block_index').execute(),
  ])
  const creativeBy = new Map(creatives.map((c) => [c.campaign_id, c]))
  const blocksBy = new Map<string, BlockRow[]>()
  for (const b of blocks) {
    const list = blocksBy.get(b.campaign_id) ?? []
    list.push(b)
    blocksBy.set(b.campaign_id, list)
  }
  return campaigns.map((campaign) => {
    const creative = creativeBy.get(campaign.campaign_id)
    if (!creative) throw new Error(`campaign ${campaign.campaign_id} has no creative`)
    return { campaign, creative, blocks: blocksBy.get(campaign.campaign_id) ?? [] }
  })
}

/**
 * A page of the account's campaigns, newest first (creation order, `seq`):
 * at most `rows`, created before the campaign numbered `beforeSeq` when set.
 * A keyset scan of `campaigns_user_idx`.
 */
export async function listCampaignGraphs(db: Db, userId: string, page: { rows: number; beforeSeq: number | null }): Promise<CampaignGraph[]> {
  let query = db.selectFrom('campaigns').selectAll().where('user_id', '=', userId)
  if (page.beforeSeq !== null) query = query.where('seq', '<', page.beforeSeq)
  return attach(db, await query.orderBy('seq', 'desc').limit(page.rows).execute())
}

/** One campaign of the account; another account's id is indistinguishable from an unknown one. */
export async function findCampaignGraph(db: Db, userId: string, campaignId: string): Promise<CampaignGraph | undefined> {
  const campaign = await db
    .selectFrom('campaigns')
    .selectAll()
    .where('user_id', '=', userId)
    .where('campaign_id', '=', campaignId)
    .executeTakeFirst()
  return campaign ? (await attach(db, [campaign]))[0] : undefined
}

export async function lockCampaign(db: Db, userId: string, campaignId: string): Promise<CampaignRow | undefined> {
  return db
    .selectFrom('campaigns')
    .selectAll()
    .where('user_id', '=', userId)
    .where('campaign_id', '=', campaignId)
    .forUpdate()
    .executeTakeFirst()
}

export async function updateCampaign(db: Db, campaignId: string, changes: Updateable<CampaignsTable>): Promise<void> {
  await db.updateTable('campaigns').set(changes).where('campaign_id', '=', campaignId).execute()
}

export async function updateCreative(db: Db, campaignId: string, changes: Updateable<CreativesTable>): Promise<void> {
  await db.updateTable('creatives').set(changes).where('campaign_id', '=', campaignId).execute()
}

/** Puts the first queued block into service, when no block is serving yet. */
export async function startFirstQueuedBlock(db: Db, campaignId: string, now: Date): Promise<void> {
  await db
    .updateTable('blocks')
    .set({ status: 'serving', started_at: now })
    .where('campaign_id', '=', campaignId)
    .where('block_index', '=', (eb) =>
      eb.selectFrom('blocks').select((e) => e.fn.min('block_index').as('i')).where('campaign_id', '=', campaignId).where('status', '=', 'queued'),
    )
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('blocks').select('block_index').where('campaign_id', '=', campaignId).where('status', '=', 'serving'))),
    )
    .execute()
}

export async function findCampaignByIdForOperator(db: Db, campaignId: string): Promise<CampaignRow | undefined> {
  const row = await db.selectFrom('campaigns').selectAll().where('campaign_id', '=', campaignId).executeTakeFirst()
  return row && (await withLeaseUse(db, [row]))[0]
}

/** The account's creatives, newest first, at most `limit`. */
export async function listCreatives(db: Db, userId: string, limit: number): Promise<CampaignGraph[]> {
  const campaigns = await db
    .selectFrom('campaigns')
    .innerJoin('creatives', 'creatives.campaign_id', 'campaigns.campaign_id')
    .selectAll('campaigns')
    .where('campaigns.user_id', '=', userId)
    .orderBy('creatives.created_at', 'desc')
    .orderBy('campaigns.seq', 'desc')
    .limit(limit)
    .execute()
  return attach(db, campaigns)
}

export async function findCreativeGraph(db: Db, userId: string, creativeId: string): Promise<CampaignGraph | undefined> {
  const creative = await db
    .selectFrom('creatives')
    .select('campaign_id')
    .where('user_id', '=', userId)
    .where('creative_id', '=', creativeId)
    .executeTakeFirst()
  return creative ? findCampaignGraph(db, userId, creative.campaign_id) : undefined
}

/** A creative as the moderation queue shows it: the line, its campaign and its account's email. */
export interface ModerationQueueRow {
  creative_id: string
  campaign_id: string
  user_id: string
  email: string
  campaign_name: string
  campaign_status: CampaignRow['status']
  ad_line: string
  brand: string | null
  destination_url: string
  icon_url: string | null
  moderation_status: CreativeRow['moderation_status']
  moderation_reason: string | null
  created_at: Date
  updated_at: Date
}

/**
 * Creatives in `status` whose campaign can still serve (active or paused),
 * oldest first by the time they entered it (`updated_at`: a rewrite sends a
 * line back to review), then by campaign id; at most `rows`, after `after`.
 */
export async function listModerationQueue(
  db: Db,
  status: CreativeRow['moderation_status'],
  page: { rows: number; after: { updatedAt: Date; campaignId: string } | null },
): Promise<ModerationQueueRow[]> {
  let q = db
    .selectFrom('creatives as cr')
    .innerJoin('campaigns as c', 'c.campaign_id', 'cr.campaign_id')
    .innerJoin('accounts as a', 'a.user_id', 'cr.user_id')
    .select([
      'cr.creative_id',
      'cr.campaign_id',
      'cr.user_id',
      'a.email',
      'c.name as campaign_name',
      'c.status as campaign_status',
      'cr.ad_line',
      'cr.brand',
      'cr.destination_url',
      'cr.icon_url',
      'cr.moderation_status',
      'cr.moderation_reason',
      'cr.created_at',
      'cr.updated_at',
    ])
    .where('cr.moderation_status', '=', status)
    .where('c.status', 'in', ['active', 'paused'])
  const after = page.after
  if (after) q = q.where((eb) => eb(eb.refTuple('cr.updated_at', 'cr.campaign_id'), '>', eb.tuple(after.updatedAt, after.campaignId)))
  return q.orderBy('cr.updated_at').orderBy('cr.campaign_id').limit(page.rows).execute()
}

/** The creative of a campaign, locked for the rest of the transaction (an operator's decision on it). */
export async function lockCreativeForOperator(db: Db, campaignId: string): Promise<CreativeRow | undefined> {
  return db.selectFrom('creatives').selectAll().where('campaign_id', '=', campaignId).forUpdate().executeTakeFirst()
}

/** The creative of a campaign, whoever owns it (operator reads). */
export async function findCreativeForOperator(db: Db, campaignId: string): Promise<CreativeRow | undefined> {
  return db.selectFrom('creatives').selectAll().where('campaign_id', '=', campaignId).executeTakeFirst()
}
