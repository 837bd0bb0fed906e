import { OUTSTANDING_WINDOW_MS } from '../domain/auction.ts'

const SLOT_MS = 1_000
const SLOTS = OUTSTANDING_WINDOW_MS / SLOT_MS

/**
 * One campaign's offers of the last window, counted per second of offer
 * time in a ring: adding, resolving and reading are O(1), and a second's
 * slot is emptied when the ring moves past it.
 */
class Ring {
  readonly counts = new Uint32Array(SLOTS)
  /** The second each slot counts; a slot is reused once its second leaves the window. */
  readonly seconds = new Float64Array(SLOTS).fill(-Infinity)
  total = 0
  head = -Infinity

  /**
   * Moves the window to `second`: expires the slots it passes (at most the
   * whole ring once). Time never moves the ring back; an instant before the
   * head (a system clock stepped back) counts as the head.
   */
  advance(second: number): number {
    if (second <= this.head) return this.head
    if (second - this.head >= SLOTS) {
      this.counts.fill(0)
      this.total = 0
      for (let s = second - SLOTS + 1; s <= second; s++) this.seconds[s % SLOTS] = s
    } else {
      for (let s = this.head + 1; s <= second; s++) {
        const slot = s % SLOTS
        this.total -= this.counts[slot]!
        this.counts[slot] = 0
        this.seconds[slot] = s
      }
    }
    this.head = second
    return second
  }
}

/**
 * Offers this instance made that are not resolved yet: not viewed here and
 * younger than OUTSTANDING_WINDOW_MS (to the second). The auction counts them
 * as delivered (`domain/auction.ts#mayTakeOffer`). An offer viewed on another
 * instance stays counted here until the window passes: it holds the campaign
 * back, never ahead (docs/decisions/0093-what-outstanding-means-offered-by-this-instance-not-yet.md).
 */
export class OutstandingOffers {
  readonly #rings = new Map<string, Ring>()

  count(campaignId: string, nowMs: number): number {
    const ring = this.#rings.get(campaignId)
    if (!ring) return 0
    ring.advance(Math.floor(nowMs / SLOT_MS))
    return ring.total
  }

  add(campaignId: string, nowMs: number): void {
    let ring = this.#rings.get(campaignId)
    if (!ring) this.#rings.set(campaignId, (ring = new Ring()))
    const second = ring.advance(Math.floor(nowMs / SLOT_MS))
    ring.counts[second % SLOTS]!++
    ring.total++
  }

  /** An offer made here at `offeredAtMs` was viewed: it no longer counts (if it still did). */
  resolve(campaignId: string, offeredAtMs: number, nowMs: number): void {
    const ring = this.#rings.get(campaignId)
    if (!ring) return
    ring.advance(Math.floor(nowMs / SLOT_MS))
    const second = Math.floor(offeredAtMs / SLOT_MS)
    const slot = second % SLOTS
    if (ring.seconds[slot] !== second || ring.counts[slot] === 0) return
    ring.counts[slot]!--
    ring.total--
  }

  /** Forgets campaigns that no longer serve and have nothing outstanding. */
  prune(serving: { has(campaignId: string): boolean }, nowMs: number): void {
    for (const [campaignId, ring] of this.#rings) {
      if (serving.has(campaignId)) continue
      ring.advance(Math.floor(nowMs / SLOT_MS))
      if (ring.total === 0) this.#rings.delete(campaignId)
    }
  }
}
