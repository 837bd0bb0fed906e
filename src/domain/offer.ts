import type { Surface } from './auction.ts'
import type { Source } from './traffic-source.ts'

/**
 * What one offer carries: everything the view and click paths need. The
 * serving engine seals it into the impression id (`serving/offer-token.ts`);
 * the store writes its ledger rows (`store/ledger.ts`).
 */
export interface Offer {
  campaignId: string
  creativeId: string
  userId: string
  surface: Surface
  country: string | null
  viewerKey: string
  /** The source that asked for the decision (domain/traffic-source.ts); null in ids sealed before sources were. */
  source: Source | null
  offeredAtMs: number
  /** A tag of the instance that made the offer (it counts its own outstanding offers). */
  origin: number
  /** The topic the impression is attributed to (domain/topics.ts#attributedTopic); absent or null: none. */
  topic?: string | null
}
