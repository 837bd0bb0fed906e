import { rank, runAuction, type Candidate, type DecisionRequest } from '../domain/auction.ts'
import type { Clock } from '../platform/clock.ts'
import type { Db } from '../store/db.ts'
import { loadCandidates, readServingEpoch } from '../store/serving.ts'

/** How stale other instances' delivery counts may get before a reload (pacing and inventory). */
const DELIVERY_REFRESH_MS = 1_000

/**
 * The auction's working set, in memory and ranked. It stays consistent with
 * the store through the serving epoch, which triggers bump on every change
 * that alters eligibility (create, pause, resume, cancel, rewrite,
 * moderation, completion): each decision reads the epoch (one tiny row) and
 * reloads when it moved, so a change made on any instance takes effect on the
 * next decision. Concurrent decisions share one epoch read that started after
 * they arrived.
 */
export class AuctionIndex {
  readonly #db: Db
  readonly #clock: Clock
  #ranked: Candidate[] = []
  #byCampaign = new Map<string, Candidate>()
  #epoch = -1
  #loadedAt = 0
  #waiting: { resolve(): void; reject(err: unknown): void }[] = []
  #reading = false

  constructor(db: Db, clock: Clock) {
    this.#db = db
    this.#clock = clock
  }

  async decide(request: DecisionRequest): Promise<Candidate | null> {
    await this.#fresh()
    return runAuction(this.#ranked, request, this.#clock.nowMs())
  }

  /** Applies authoritative billed totals from a committed ledger batch. */
  applyBilled(billed: Map<string, number>): void {
    for (const [campaignId, total] of billed) {
      const c = this.#byCampaign.get(campaignId)
      if (c && total > c.billed) c.billed = total
    }
  }

  #fresh(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject })
      if (!this.#reading) void this.#readLoop()
    })
  }

  async #readLoop(): Promise<void> {
    this.#reading = true
    while (this.#waiting.length > 0) {
      // Let every decision that arrived in this turn of the event loop join the read: one round trip serves them all.
      await new Promise<void>((resolve) => setImmediate(resolve))
      const batch = this.#waiting.splice(0)
      try {
        const epoch = await readServingEpoch(this.#db)
        if (epoch !== this.#epoch || this.#clock.nowMs() - this.#loadedAt >= DELIVERY_REFRESH_MS || this.#loadedAt > this.#clock.nowMs()) {
          await this.#reload(epoch)
        }
        batch.forEach((w) => w.resolve())
      } catch (err) {
        batch.forEach((w) => w.reject(err))
      }
    }
    this.#reading = false
  }

  async #reload(epoch: number): Promise<void> {
    const candidates = await loadCandidates(this.#db)
    // Keep the higher of the stored and the locally committed count (a reload may race a commit).
    for (const c of candidates) {
      const known = this.#byCampaign.get(c.campaignId)
      if (known && known.billed > c.billed) c.billed = known.billed
    }
    this.#ranked = rank(candidates)
    this.#byCampaign = new Map(candidates.map((c) => [c.campaignId, c]))
    this.#epoch = epoch
    this.#loadedAt = this.#clock.nowMs()
  }

  /** A serving campaign's inventory and price as this instance knows them (billed may lag other instances). */
  inventoryOf(campaignId: string): { impressions: number; billed: number; cpmMicros: number } | undefined {
    const c = this.#byCampaign.get(campaignId)
    return c && { impressions: c.impressions, billed: c.billed, cpmMicros: c.cpmMicros }
  }

  destinationOf(campaignId: string): string | undefined {
    return this.#byCampaign.get(campaignId)?.destinationUrl
  }
}
