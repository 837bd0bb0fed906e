import { EligibleLists, outstandingUnits, runAuction, type Candidate, type DecisionRequest, type Surface } from '../domain/auction.ts'
import { ctrEstimates, type Fraction } from '../domain/ctr.ts'
import type { Clock } from '../platform/clock.ts'
import type { Db } from '../store/db.ts'
import { loadCandidates, readClickCtrCounts, readServingEpoch } from '../store/serving.ts'
import type { CampaignKinds } from './campaign-kinds.ts'
import { OutstandingOffers } from './outstanding-offers.ts'

/** How stale other instances' delivery counts may get before a reload (pacing and inventory). */
const DELIVERY_REFRESH_MS = 1_000
/** Epoch reads that may be in flight at once (docs/decisions/0077-the-auctions-working-set-lives-in-memory.md). */
const MAX_READS_IN_FLIGHT = 2

/** Subscribes to the serving epoch as the store pushes it (Store#onServingEpoch); returns the unsubscribe. */
export type EpochFeed = (listener: (epoch: number) => void) => () => void

/**
 * The auction's working set, in memory and ranked. It stays consistent with
 * the store through the serving epoch, which triggers bump on every change
 * that alters eligibility (create, pause, resume, cancel, rewrite,
 * moderation, completion) and announce by push (`EpochFeed`): a decision
 * runs on what is loaded, without a store read, unless a pushed epoch is
 * newer than the loaded one or the load is DELIVERY_REFRESH_MS old (the
 * periodic re-read, which also brings other instances' delivery counts and
 * makes good a notice lost while the listener reconnected). Then the
 * decisions share one read of the epoch (and a reload when it moved) that
 * started after they arrived. A change committed by this instance is pushed
 * before its commit returns, so it takes effect on the next decision; one
 * committed elsewhere within a round trip. Without a feed every decision
 * reads the epoch. Reads may overlap and return out of order; the loaded
 * state only moves forward (the epoch only grows), and each read's decisions
 * run on state at least as new as what that read saw.
 */
export class AuctionIndex {
  readonly #db: Db
  readonly #clock: Clock
  /** Click campaigns' estimated CTR per surface, from the counts read with the last reload that had a click campaign to rank. */
  #ctr = ctrEstimates(null)
  /** The ranked campaigns by surface and country, prepared at each reload (domain/auction.ts). */
  #eligible = new EligibleLists([], (c, surface) => this.#ctr(c.campaignId, surface))
  #byCampaign = new Map<string, Candidate>()
  readonly #kinds: CampaignKinds | null
  readonly #outstanding = new OutstandingOffers()
  #epoch = -1
  /** The newest epoch pushed (Infinity without a feed: every decision reads the epoch). */
  #pushed: number
  #loadedAt = 0
  /** Decisions waiting for a read of the epoch that starts after they arrived. */
  #waiting: { resolve(): void; reject(err: unknown): void }[] = []
  #readScheduled = false
  #readsInFlight = 0
  /** Reloads run one at a time, in the order their reads returned. */
  #reloads: Promise<void> = Promise.resolve()

  /** `kinds` learns each loaded campaign's kind (the ledger batches look them up there). */
  constructor(db: Db, clock: Clock, kinds: CampaignKinds | null = null, feed: EpochFeed | null = null) {
    this.#db = db
    this.#clock = clock
    this.#kinds = kinds
    this.#pushed = feed ? -1 : Infinity
    feed?.((epoch) => {
      if (epoch > this.#pushed) this.#pushed = epoch
    })
  }

  /** The loaded state may be behind: a newer epoch was pushed, or the periodic re-read is due. */
  #stale(nowMs: number): boolean {
    return this.#pushed > this.#epoch || nowMs - this.#loadedAt >= DELIVERY_REFRESH_MS || this.#loadedAt > nowMs
  }

  /**
   * Runs the auction and counts the winner's offer as outstanding in the same
   * turn, so the next decision already sees it. `offeredAtMs` is the instant
   * the offer was counted at (the offer's time).
   */
  async decide(request: DecisionRequest): Promise<{ winner: Candidate; offeredAtMs: number } | null> {
    if (this.#stale(this.#clock.nowMs())) await this.#fresh()
    const nowMs = this.#clock.nowMs()
    const winner = runAuction(this.#eligible.of(request), nowMs, (c) => {
      const offers = this.#outstanding.count(c.campaignId, nowMs)
      return c.kind === 'click' ? outstandingUnits(c.kind, offers, this.estimatedCtr(c.campaignId, request.surface)) : offers
    }, request.topics)
    if (!winner) return null
    this.#outstanding.add(winner.campaignId, nowMs)
    return { winner, offeredAtMs: nowMs }
  }

  /** A view of an offer this instance made was recorded: the offer is no longer outstanding. */
  resolveOffer(campaignId: string, offeredAtMs: number): void {
    this.#outstanding.resolve(campaignId, offeredAtMs, this.#clock.nowMs())
  }

  /** Applies authoritative billed totals from a committed ledger batch. */
  applyBilled(billed: Map<string, number>): void {
    for (const [campaignId, total] of billed) {
      const c = this.#byCampaign.get(campaignId)
      if (c && total > c.billed) c.billed = total
    }
  }

  /** Resolves once a read of the epoch that started after this call has been applied. */
  #fresh(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject })
      this.#scheduleRead()
    })
  }

  /**
   * Every decision that arrived in this turn of the event loop joins one read
   * (one round trip serves them all). A read does not wait for the one before
   * it to return: up to MAX_READS_IN_FLIGHT overlap, so a decision arriving
   * while a read is in flight waits for one round trip, not one and a half.
   */
  #scheduleRead(): void {
    if (this.#readScheduled || this.#readsInFlight >= MAX_READS_IN_FLIGHT || this.#waiting.length === 0) return
    this.#readScheduled = true
    setImmediate(() => {
      this.#readScheduled = false
      const batch = this.#waiting.splice(0)
      this.#readsInFlight++
      this.#readAndApply().then(
        () => batch.forEach((w) => w.resolve()),
        (err: unknown) => batch.forEach((w) => w.reject(err)),
      ).finally(() => {
        this.#readsInFlight--
        this.#scheduleRead()
      })
    })
  }

  async #readAndApply(): Promise<void> {
    const epoch = await readServingEpoch(this.#db)
    // The epoch only grows; reads may return out of order, so apply each against what is loaded by then.
    const apply = this.#reloads.then(async () => {
      const nowMs = this.#clock.nowMs()
      if (epoch > this.#epoch || nowMs - this.#loadedAt >= DELIVERY_REFRESH_MS || this.#loadedAt > nowMs) await this.#reload(epoch)
    })
    this.#reloads = apply.catch(() => {})
    await apply
  }

  async #reload(epoch: number): Promise<void> {
    const candidates = await loadCandidates(this.#db)
    // Keep the higher of the stored and the locally committed count (a reload may race a commit).
    for (const c of candidates) {
      const known = this.#byCampaign.get(c.campaignId)
      if (known && known.billed > c.billed) c.billed = known.billed
    }
    this.#kinds?.learn(candidates)
    // Read with every reload (at most about once a second, and at each epoch move) while a click
    // campaign serves, so new clicks move the estimates; never when none does.
    this.#ctr = ctrEstimates(candidates.some((c) => c.kind === 'click') ? await readClickCtrCounts(this.#db) : null)
    this.#eligible = new EligibleLists(candidates, (c, surface) => this.estimatedCtr(c.campaignId, surface))
    this.#byCampaign = new Map(candidates.map((c) => [c.campaignId, c]))
    this.#outstanding.prune(this.#byCampaign, this.#clock.nowMs())
    this.#epoch = Math.max(this.#epoch, epoch)
    this.#loadedAt = this.#clock.nowMs()
  }

  /** A serving campaign's inventory and price as this instance knows them (billed may lag other instances). */
  inventoryOf(campaignId: string): { impressions: number; billed: number; cpmMicros: number } | undefined {
    const c = this.#byCampaign.get(campaignId)
    return c && { impressions: c.impressions, billed: c.billed, cpmMicros: c.cpmMicros }
  }

  /**
   * A click campaign's estimated CTR on `surface` as of the last reload (`domain/ctr.ts#estimateCtr`);
   * for a campaign not loaded, the estimate of a new click campaign there.
   */
  estimatedCtr(campaignId: string, surface: Surface): Fraction {
    return this.#ctr(campaignId, surface)
  }

  destinationOf(campaignId: string): string | undefined {
    return this.#byCampaign.get(campaignId)?.destinationUrl
  }
}
