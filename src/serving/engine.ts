import { randomBytes } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { Candidate, DecisionRequest } from '../domain/auction.ts'
import { assessDwell, offerExpired, type NotBillable } from '../domain/delivery.ts'
import type { Clock } from '../platform/clock.ts'
import type { Db } from '../store/db.ts'
import { clickRow, offerRow, type ViewOutcome } from '../store/ledger.ts'
import { ensureServingSecret } from '../store/settings.ts'
import { findDestination } from '../store/serving.ts'
import { AuctionIndex } from './auction-index.ts'
import { LedgerWriter } from './ledger-writer.ts'
import { OfferSigner, type Offer } from './offer-token.ts'

export type ViewResult = { status: 'recorded'; outcome: ViewOutcome } | { status: 'unknown' } | { status: 'expired' }

/** The serving side: auction, offers, measured views and clicks. */
export class ServingEngine {
  readonly index: AuctionIndex
  readonly writer: LedgerWriter
  readonly #signer: OfferSigner
  readonly #clock: Clock
  readonly #db: Db

  private constructor(db: Db, clock: Clock, signer: OfferSigner, log: FastifyBaseLogger) {
    this.#db = db
    this.#clock = clock
    this.#signer = signer
    this.index = new AuctionIndex(db, clock)
    this.writer = new LedgerWriter(db, clock, log, {
      onCommit: (result) => this.index.applyBilled(result.billed),
      campaign: (campaignId) => this.index.inventoryOf(campaignId),
    })
  }

  static async create(db: Db, clock: Clock, log: FastifyBaseLogger): Promise<ServingEngine> {
    const secret = await ensureServingSecret(db, () => randomBytes(32).toString('hex'))
    return new ServingEngine(db, clock, new OfferSigner(secret), log)
  }

  viewerKey(viewerId: string): string {
    return this.#signer.viewerKey(viewerId)
  }

  /** Runs the auction; records the offer (not awaited) and returns the signed impression id. */
  async decide(request: DecisionRequest & { viewerKey: string }): Promise<{ impressionId: string; winner: Candidate } | null> {
    const winner = await this.index.decide(request)
    if (!winner) return null
    const now = this.#clock.now()
    const offer: Offer = {
      campaignId: winner.campaignId,
      creativeId: winner.creativeId,
      userId: winner.userId,
      surface: request.surface,
      country: request.country,
      viewerKey: request.viewerKey,
      offeredAtMs: now.getTime(),
    }
    const impressionId = this.#signer.sign(offer)
    this.writer.recordOffer(offerRow(impressionId, offer, now))
    return { impressionId, winner }
  }

  /** Records a measured view; resolves once it is durable. */
  async view(impressionId: string, dwellMs: number): Promise<ViewResult> {
    const offer = this.#signer.verify(impressionId)
    if (!offer) return { status: 'unknown' }
    const nowMs = this.#clock.nowMs()
    if (offerExpired(offer.offeredAtMs, nowMs)) return { status: 'expired' }
    const reason: NotBillable | null = assessDwell(dwellMs, offer.offeredAtMs, nowMs)
    const outcome = await this.writer.recordView({ impressionId, offer, dwellMs, reason })
    return { status: 'recorded', outcome }
  }

  /** Records the first click of an impression and returns where to send the viewer. */
  async click(impressionId: string): Promise<string | null> {
    const offer = this.#signer.verify(impressionId)
    if (!offer) return null
    const destination = this.index.destinationOf(offer.campaignId) ?? (await findDestination(this.#db, offer.campaignId))
    if (!destination) return null
    await this.writer.recordClick(clickRow(impressionId, offer, this.#clock.now()))
    return destination
  }

  async close(): Promise<void> {
    await this.writer.flush()
  }
}
