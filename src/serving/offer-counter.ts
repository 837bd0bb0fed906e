import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../store/db.ts'
import { addOfferCounts } from '../store/offer-counts.ts'
import { MinuteCounter } from './minute-counter.ts'

/** What a counted offer is keyed by (migration 0030). */
export interface CountedOffer {
  offeredAtMs: number
  userId: string
  campaignId: string
  creativeId: string
  surface: string
  country: string | null
}

/**
 * Offers are counted, not stored (operations.md section 6): a decision adds one to the count of its
 * UTC minute, creative, surface and country, and the counts go to `offer_counts` as
 * minute-counter.ts flushes them (every 2 s, one upsert row per key, at shutdown, and whenever
 * `flush` is called: the rollup job calls it before it closes a day; a failed flush puts its counts
 * back). The ledger's views and clicks are what bill.
 */
export class OfferCounter extends MinuteCounter<CountedOffer> {
  constructor(db: Db, log: FastifyBaseLogger) {
    super(
      'offer counts',
      (counts) =>
        addOfferCounts(
          db,
          counts.map(({ minuteMs, key, count }) => ({
            minuteMs,
            userId: key.userId,
            campaignId: key.campaignId,
            creativeId: key.creativeId,
            surface: key.surface,
            country: key.country ?? '',
            offers: count,
          })),
        ),
      log,
    )
  }

  /** Counts one offer; the first of its key in a minute is kept until the flush (pass only these fields). */
  count(offer: CountedOffer): void {
    this.add(offer.offeredAtMs, `${offer.creativeId}\u0000${offer.surface}\u0000${offer.country ?? ''}`, offer)
  }
}
