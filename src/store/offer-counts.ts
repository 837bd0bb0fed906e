import { sql } from 'kysely'
import { executePrepared, type Db } from './db.ts'

/** The offers one serving instance made in one UTC minute for one creative, surface and country (migration 0030). */
export interface OfferCount {
  minuteMs: number
  userId: string
  campaignId: string
  creativeId: string
  surface: string
  /** '' when the decision named no country. */
  country: string
  offers: number
}

/**
 * Adds counted offers to `offer_counts`, one row per key, in one statement. The keys of one call are
 * distinct (src/serving/offer-counter.ts sums them first): an upsert may touch a row once.
 */
export async function addOfferCounts(db: Db, counts: readonly OfferCount[]): Promise<void> {
  if (counts.length === 0) return
  await executePrepared(
    db,
    sql`
    INSERT INTO offer_counts AS o (minute, user_id, campaign_id, creative_id, surface, country, offers)
    SELECT timestamptz 'epoch' + r.minute_ms * interval '1 millisecond', r.user_id, r.campaign_id, r.creative_id, r.surface, r.country, r.offers
    FROM unnest(
      ${counts.map((c) => c.minuteMs)}::int8[], ${counts.map((c) => c.userId)}::text[], ${counts.map((c) => c.campaignId)}::text[],
      ${counts.map((c) => c.creativeId)}::text[], ${counts.map((c) => c.surface)}::text[], ${counts.map((c) => c.country)}::text[],
      ${counts.map((c) => c.offers)}::int8[]
    ) AS r(minute_ms, user_id, campaign_id, creative_id, surface, country, offers)
    ON CONFLICT (creative_id, minute, surface, country) DO UPDATE SET offers = o.offers + excluded.offers`.compile(db),
  )
}
