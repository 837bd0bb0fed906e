import type { Db } from './db.ts'

/** The campaign a live report uuid shares, with its owner; undefined when no campaign carries it (never shared, or revoked). */
export async function findSharedCampaign(db: Db, reportUuid: string): Promise<{ user_id: string; campaign_id: string } | undefined> {
  return db.selectFrom('campaigns').select(['user_id', 'campaign_id']).where('report_uuid', '=', reportUuid).executeTakeFirst()
}
