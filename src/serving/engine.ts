import { randomBytes } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { Candidate, DecisionRequest } from '../domain/auction.ts'
import { assessDwell, offerExpired, UNKNOWN_IMPRESSION, type NonBillableReason, type ViewOutcome } from '../domain/delivery.ts'
import type { BlockList, SourceLimits } from '../domain/invalid-traffic.ts'
import type { Source } from '../domain/traffic-source.ts'
import { attributedTopic } from '../domain/topics.ts'
import { attestationOf, type AttestationMode, type PresentedToken } from '../domain/attestation.ts'
import type { Clock } from '../platform/clock.ts'
import type { ServingMetrics } from '../platform/metric-ports.ts'
import type { Db } from '../store/db.ts'
import { ensureStoredSecret } from '../store/settings.ts'
import { findDestination } from '../store/serving.ts'
import { AuctionIndex, type EpochFeed } from './auction-index.ts'
import { viewReportRow, type ClickResult } from './ledger-claims.ts'
import { CampaignKinds } from './campaign-kinds.ts'
import { LeaseBook } from './leases.ts'
import { LedgerWriter } from './ledger-writer.ts'
import { OfferCounter } from './offer-counter.ts'
import { OfferSealer, type Offer, type OfferKey } from './offer-token.ts'
import { TopicCounter } from './topic-counter.ts'
import { ViewerKeys } from './viewer-keys.ts'

/** How often (real time) this instance settles and renews its impression budget leases. */
const SETTLE_EVERY_MS = 1_000

/** The key id of the offer key kept in the store (used when OFFER_KEYS is not set). */
export const STORED_OFFER_KEY_ID = 0

/** A view report's Privacy Pass token as checked at the edge (src/http/routes/serve.ts), under the config's `attestation`. */
export interface PresentedView {
  mode: AttestationMode
  token: PresentedToken
  /** The token's bytes when it was one (kept with an attested billable row). */
  bytes: Buffer | null
}
const UNATTESTED: PresentedView = { mode: 'off', token: { kind: 'none' }, bytes: null }

export type ViewResult = { status: 'recorded'; outcome: ViewOutcome } | { status: 'unknown' } | { status: 'expired' }

/**
 * How a view or click request is screened for invalid traffic: the source that sent it (used for an
 * impression id sealed before ids carried their decision's source) and the operator's bounds and
 * block list in force.
 */
export interface TrafficScreen {
  source: Source
  rules: { sources: SourceLimits; blocks: BlockList }
}

/** The serving side: auction, offers, measured views and clicks. */
export class ServingEngine {
  readonly index: AuctionIndex
  readonly writer: LedgerWriter
  /** The offers this instance made, counted per minute and key and added to the store every few seconds. */
  readonly offers: OfferCounter
  /** Decisions counted per minute and topic, added to the store every few seconds (the auction quote's topic share). */
  readonly topics: TopicCounter
  readonly #sealer: OfferSealer
  readonly #viewers: ViewerKeys
  readonly #clock: Clock
  readonly #db: Db
  readonly #metrics: ServingMetrics | null
  /** Tags this instance's offers, so that only their views release what this instance counts as outstanding. */
  readonly #origin = randomBytes(4).readUInt32BE()
  readonly #settleTimer: NodeJS.Timeout
  readonly #log: FastifyBaseLogger
  /** A settlement of the timer is under way: a stalled store does not pile them up. */
  #settling = false

  private constructor(
    db: Db,
    clock: Clock,
    sealer: OfferSealer,
    viewers: ViewerKeys,
    log: FastifyBaseLogger,
    metrics: ServingMetrics | null,
    feed: EpochFeed | null,
  ) {
    this.#db = db
    this.#metrics = metrics
    this.#clock = clock
    this.#sealer = sealer
    this.#viewers = viewers
    this.offers = new OfferCounter(db, log)
    this.topics = new TopicCounter(db, log)
    const kinds = new CampaignKinds()
    this.index = new AuctionIndex(db, clock, kinds, feed)
    this.writer = new LedgerWriter(db, clock, log, new LeaseBook(), kinds, {
      // The index counts delivery: what it knew plus what this batch billed (a reload brings the store's).
      onCommit: (result) =>
        this.index.applyBilled(new Map([...result.billed].map(([id, n]) => [id, (this.index.inventoryOf(id)?.billed ?? 0) + n]))),
      ...(metrics ? { onBatch: (rows: number, seconds: number) => metrics.ledgerBatch(rows, seconds) } : {}),
    })
    // Real time: leases expire in the store's time, whatever the service clock does.
    this.#log = log
    this.#settleTimer = setInterval(() => {
      if (this.#settling) return
      this.#settling = true
      this.writer
        .settleLeases()
        .catch((err: unknown) => log.warn({ err }, 'lease settlement failed'))
        .finally(() => (this.#settling = false))
    }, SETTLE_EVERY_MS)
    this.#settleTimer.unref()
  }

  /**
   * `offerKeys` from OFFER_KEYS; null: one key kept in the store, shared by every instance on it.
   * `metrics` counts decisions, views and ledger batches (adapi_serve_*, adapi_ledger_*).
   * `feed` pushes the serving epoch (Store#onServingEpoch); null: every decision reads it.
   */
  static async create(
    db: Db,
    clock: Clock,
    log: FastifyBaseLogger,
    offerKeys: readonly OfferKey[] | null = null,
    metrics: ServingMetrics | null = null,
    feed: EpochFeed | null = null,
  ): Promise<ServingEngine> {
    const fresh = () => randomBytes(32).toString('hex')
    const secret = await ensureStoredSecret(db, 'serving_secret', fresh)
    const ring = offerKeys ?? [{ id: STORED_OFFER_KEY_ID, key: await ensureStoredSecret(db, 'offer_key', fresh) }]
    return new ServingEngine(db, clock, new OfferSealer(ring), new ViewerKeys(secret), log, metrics, feed)
  }

  viewerKey(viewerId: string): string {
    return this.#viewers.of(viewerId)
  }

  /**
   * Runs the auction, counts the offer and returns the sealed impression id. Nothing is written: the
   * id carries the whole offer (with the topic its impression is attributed to), and the counts (the
   * offer's, and the decision's topics') go to the store with the next flush. `request.topics` are
   * normalised already (domain/topics.ts#normaliseDecisionTopics).
   */
  async decide(request: DecisionRequest & { viewerKey: string; source: Source }): Promise<{ impressionId: string; winner: Candidate } | null> {
    const decision = await this.index.decide(request)
    this.#metrics?.decision(decision !== null)
    const topics = request.topics ?? []
    this.topics.count(decision?.offeredAtMs ?? this.#clock.nowMs(), topics)
    if (!decision) return null
    const { winner, offeredAtMs } = decision
    const topic = topics.length === 0 ? null : attributedTopic(winner.targetTopics, topics)
    const offer: Offer = {
      campaignId: winner.campaignId,
      creativeId: winner.creativeId,
      userId: winner.userId,
      surface: request.surface,
      country: request.country,
      viewerKey: request.viewerKey,
      source: request.source,
      offeredAtMs,
      origin: this.#origin,
      ...(topic === null ? {} : { topic }),
    }
    const impressionId = this.#sealer.seal(offer)
    this.offers.count({ offeredAtMs, userId: winner.userId, campaignId: winner.campaignId, creativeId: winner.creativeId, surface: request.surface, country: request.country })
    return { impressionId, winner }
  }

  /**
   * Records a view report; resolves once it is durable. An offer past its hour is recorded as an
   * `expired_view` and answered 410; a repeat of a measured impression as a `repeat_view`, after the
   * batch found it (both at most once per impression, never billable: `LedgerWriter#recordReport`).
   */
  async view(impressionId: string, dwellMs: number, screen: TrafficScreen, presented: PresentedView = UNATTESTED): Promise<ViewResult> {
    const opened = this.#sealer.open(impressionId)
    if (!opened) {
      this.#metrics?.view(false, UNKNOWN_IMPRESSION)
      return { status: 'unknown' }
    }
    const { offer, blocked } = screened(opened, screen)
    const nowMs = this.#clock.nowMs()
    if (offerExpired(offer.offeredAtMs, nowMs)) {
      await this.writer.recordReport(viewReportRow('expired', impressionId, offer, new Date(nowMs), dwellMs))
      this.#metrics?.view(false, 'expired')
      return { status: 'expired' }
    }
    const attested = attestationOf(presented.mode, presented.token)
    const reason: NonBillableReason | null = assessDwell(dwellMs, offer.offeredAtMs, nowMs) ?? (blocked ? 'invalid_traffic' : null) ?? attested.reason
    const token = attested.nonce !== null && presented.bytes !== null ? { bytes: presented.bytes, nonce: attested.nonce } : null
    const outcome = await this.writer.recordView({ impressionId, offer, dwellMs, reason, limits: screen.rules.sources, token })
    const repeat = !outcome.billable && outcome.reason === 'repeat'
    if (repeat) await this.writer.recordReport(viewReportRow('repeat', impressionId, offer, this.#clock.now(), dwellMs))
    this.#metrics?.view(outcome.billable, outcome.billable ? null : outcome.reason)
    // Resolved once committed (a billable one is in the campaign's billed count by now); a repeat released it already.
    if (offer.origin === this.#origin && !repeat) this.index.resolveOffer(offer.campaignId, offer.offeredAtMs)
    return { status: 'recorded', outcome }
  }

  /**
   * Records the first click of an impression (billed on a click campaign when `judgeClicks` allows)
   * and returns, once the click is durable, where to send the viewer and what became of the click.
   * A repeat, an expired offer or a click the campaign cannot bill still redirects.
   */
  async click(impressionId: string, screen: TrafficScreen): Promise<{ destination: string; outcome: ClickResult } | null> {
    const opened = this.#sealer.open(impressionId)
    if (!opened) return null
    const { offer, blocked } = screened(opened, screen)
    const destination = this.index.destinationOf(offer.campaignId) ?? (await findDestination(this.#db, offer.campaignId))
    if (!destination) return null
    const outcome = await this.writer.recordClick({ impressionId, offer, blocked, limits: screen.rules.sources })
    this.#metrics?.click(outcome.billable, outcome.billable ? null : outcome.reason)
    return { destination, outcome }
  }

  /** Commits what is queued and the offers counted, then settles and frees this instance's leases. */
  async close(): Promise<void> {
    clearInterval(this.#settleTimer)
    await this.writer.flush()
    await this.offers.close().catch((err: unknown) => this.#log.warn({ err }, 'adding the last offer counts at shutdown failed'))
    await this.topics.close().catch((err: unknown) => this.#log.warn({ err }, 'adding the last topic counts at shutdown failed'))
    // Not fatal: what this instance leased returns to the others when its leases expire.
    await this.writer.settleLeases(true).catch((err: unknown) => this.#log.warn({ err }, 'releasing leases at shutdown failed'))
  }
}

/**
 * The offer as billed: its source is the decision's (sealed in the id), else the request's. It is
 * blocked when that source, the request's own source or the viewer is on the block list.
 */
function screened(offer: Offer, screen: TrafficScreen): { offer: Offer; blocked: boolean } {
  const source = offer.source ?? screen.source
  const { blocks } = screen.rules
  const blocked = blocks.size > 0 && (blocks.blocks(source, offer.viewerKey) || blocks.blocks(screen.source, offer.viewerKey))
  return { offer: offer.source === null ? { ...offer, source } : offer, blocked }
}
