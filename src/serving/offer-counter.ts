import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../store/db.ts'
import { addOfferCounts, type OfferCount } from '../store/offer-counts.ts'

/** How often (real time) an instance adds the offers it counted to the store. */
export const OFFER_FLUSH_EVERY_MS = 2_000
const MINUTE_MS = 60_000

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
 * Offers are counted, not stored (operations.md section 6): a decision adds one to its key's count in
 * memory, and the counts go to the store every OFFER_FLUSH_EVERY_MS, one upsert row per key, at
 * shutdown, and whenever `flush` is called (the rollup job calls it before it closes a day).
 *
 * A flush that fails puts its counts back, to go with the next one; one whose reply is lost after
 * its commit (a timeout) may so count its offers twice. A crash loses the counts of the last
 * flush period. Counts are reporting, never money: the ledger's views and clicks are what bill.
 */
export class OfferCounter {
  readonly #db: Db
  readonly #log: FastifyBaseLogger
  #pending = new Map<string, OfferCount>()
  #flushing: Promise<void> | null = null
  readonly #timer: NodeJS.Timeout

  constructor(db: Db, log: FastifyBaseLogger) {
    this.#db = db
    this.#log = log
    this.#timer = setInterval(() => {
      void this.flush().catch((err: unknown) => this.#log.warn({ err }, 'offer counts flush failed; they go with the next one'))
    }, OFFER_FLUSH_EVERY_MS)
    this.#timer.unref()
  }

  count(offer: CountedOffer): void {
    const minuteMs = offer.offeredAtMs - (offer.offeredAtMs % MINUTE_MS)
    const country = offer.country ?? ''
    const key = `${minuteMs}\u0000${offer.creativeId}\u0000${offer.surface}\u0000${country}`
    const known = this.#pending.get(key)
    if (known) known.offers++
    else
      this.#pending.set(key, {
        minuteMs,
        userId: offer.userId,
        campaignId: offer.campaignId,
        creativeId: offer.creativeId,
        surface: offer.surface,
        country,
        offers: 1,
      })
  }

  /** Keys counted and not yet in the store (tests, metrics). */
  get pendingKeys(): number {
    return this.#pending.size
  }

  /** Adds what was counted so far to the store; resolves once it is there (after any flush under way). */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing.catch(() => {})
    if (this.#pending.size === 0) return
    const counts = this.#pending
    this.#pending = new Map()
    this.#flushing = addOfferCounts(this.#db, [...counts.values()]).catch((err: unknown) => {
      for (const [key, c] of counts) {
        const known = this.#pending.get(key)
        if (known) known.offers += c.offers
        else this.#pending.set(key, c)
      }
      throw err
    })
    try {
      await this.#flushing
    } finally {
      this.#flushing = null
    }
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    clearInterval(this.#timer)
    await this.flush()
  }
}
