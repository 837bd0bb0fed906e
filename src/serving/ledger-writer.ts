import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../platform/clock.ts'
import type { Db } from '../store/db.ts'
import { EventColumns, writeViewReports, type LedgerRow } from '../store/ledger.ts'
import { commitLedgerBatch } from './ledger-batch.ts'
import { noKnownState, type BatchResult, type ClickClaim, type ClickResult, type KnownState, type ViewClaim } from './ledger-claims.ts'
import type { CampaignKinds } from './campaign-kinds.ts'
import type { LeaseBook } from './leases.ts'
import { VIEWER_FREQUENCY_MS, type ViewOutcome } from '../domain/delivery.ts'
import { boundKeysOf } from '../domain/invalid-traffic.ts'

interface Waiter<T> {
  resolve(value: T): void
  reject(err: unknown): void
}

const MAX_BATCH = 2_000
/**
 * Batches committing at once. With a batch written in one statement, one at a
 * time measured faster than two (fewer, larger batches), and no slower than
 * two pipelined on one connection: docs/performance.md. Batches of one
 * instance bill on the same lease rows, so they also run one at a time in
 * `LeaseBook#exclusive`; the store keeps concurrent batches of different
 * instances exact.
 */
const MAX_IN_FLIGHT = 1
/** How often (service time) the viewer instants older than the ten-second rule are dropped. */
const PRUNE_EVERY_MS = 5_000
/**
 * At most this many viewer instants are remembered (~15 s of 13k billable views a second). Past it
 * the oldest go first: forgetting one only costs a retry judged from the store, which re-checks the
 * ten-second rule (`viewer_last_billable`).
 */
export const MAX_KNOWN_VIEWERS = 200_000

/**
 * Group commit for the ledger. Requests queue while batches commit; each new
 * batch takes everything queued (up to MAX_IN_FLIGHT batches commit at once;
 * the store re-checks what each decided on, so they never over-bill together). A view
 * or click is answered only after the transaction holding it committed, so an
 * acknowledged billable impression survives any crash. Offers are not written
 * (src/serving/offer-counter.ts counts them).
 *
 * Batches are judged first from what this instance knows (its impression
 * budget leases, the viewers it billed in the last ten seconds and the sources' use of their
 * invalid-traffic bounds), without a
 * read; the store re-checks and a batch judged on stale knowledge is judged
 * again from the store (`commitLedgerBatch`).
 */
export class LedgerWriter {
  readonly #db: Db
  readonly #clock: Clock
  readonly #log: FastifyBaseLogger
  readonly #onCommit: (result: BatchResult) => void
  readonly #onBatch: ((rows: number, seconds: number) => void) | undefined
  readonly #known: KnownState
  readonly #book: LeaseBook
  readonly #kinds: CampaignKinds
  readonly #lastBillable = new Map<string, number>()
  #prunedAt = 0
  #clicks: { claim: ClickClaim; waiter: Waiter<ClickResult> }[] = []
  #views: { claim: ViewClaim; waiter: Waiter<ViewOutcome> }[] = []
  #reports: { row: LedgerRow; waiter: Waiter<void> }[] = []
  /** A statement of view reports is under way (their own lane: at most one at a time). */
  #reporting = false
  #inFlight = 0
  #scheduled = false
  #idle: (() => void)[] = []

  constructor(
    db: Db,
    clock: Clock,
    log: FastifyBaseLogger,
    book: LeaseBook,
    kinds: CampaignKinds,
    hooks: {
      onCommit: (result: BatchResult) => void
      /** Each batch once it committed or failed: its rows and how long the commit took (metrics). */
      onBatch?: (rows: number, seconds: number) => void
    },
  ) {
    this.#db = db
    this.#clock = clock
    this.#log = log
    this.#onCommit = hooks.onCommit
    this.#onBatch = hooks.onBatch
    this.#book = book
    this.#kinds = kinds
    this.#known = { ...noKnownState(), lastBillableMs: this.#lastBillable }
  }

  /** Resolves once the click is durable, with what became of it. */
  recordClick(claim: ClickClaim): Promise<ClickResult> {
    return new Promise((resolve, reject) => {
      this.#clicks.push({ claim, waiter: { resolve, reject } })
      this.#kick()
    })
  }

  recordView(claim: ViewClaim): Promise<ViewOutcome> {
    return new Promise((resolve, reject) => {
      this.#views.push({ claim, waiter: { resolve, reject } })
      this.#kick()
    })
  }

  /**
   * Records a repeat or a late view (`repeat_view`, `expired_view`: never billable); resolves once
   * durable. These go in their own statements, one at a time, beside the view batches rather than in
   * them: they neither wait for a batch nor make one longer or switch it to ON CONFLICT, and a flood
   * of replays costs the billable views nothing but the store's time
   * (docs/reporting.md (decision 0320)).
   */
  recordReport(row: LedgerRow): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#reports.push({ row, waiter: { resolve, reject } })
      this.#kickReports()
    })
  }

  #kickReports(): void {
    if (this.#reporting || this.#reports.length === 0) return
    this.#reporting = true
    // Next turn, so the reports of one tick share a statement.
    setImmediate(() => {
      const reports = this.#reports.splice(0, MAX_BATCH)
      const rows = new EventColumns()
      for (const r of reports) rows.push(r.row, 0, r.row.dwell_ms ?? null, r.row.reason ?? null)
      const started = performance.now()
      writeViewReports(this.#db, rows).then(
        () => {
          this.#onBatch?.(reports.length, (performance.now() - started) / 1000)
          reports.forEach((r) => r.waiter.resolve())
        },
        (err: unknown) => {
          this.#log.error({ err, reports: reports.length }, 'view reports write failed')
          reports.forEach((r) => r.waiter.reject(err))
        },
      ).finally(() => {
        this.#reporting = false
        this.#kickReports()
        this.#settle()
      })
    })
  }

  get #queued(): number {
    return this.#clicks.length + this.#views.length
  }

  /** Starts a batch on the next turn of the event loop, so requests arriving in the same tick join it. */
  #kick(): void {
    if (this.#inFlight >= MAX_IN_FLIGHT || this.#queued === 0 || this.#scheduled) return
    this.#scheduled = true
    setImmediate(() => {
      this.#scheduled = false
      this.#start()
    })
  }

  #start(): void {
    if (this.#inFlight >= MAX_IN_FLIGHT || this.#queued === 0) return this.#settle()
    const clicks = this.#clicks.splice(0, MAX_BATCH)
    const views = this.#views.splice(0, MAX_BATCH)
    this.#inFlight++
    const now = this.#clock.now()
    const started = performance.now()
    const measured = () => this.#onBatch?.(clicks.length + views.length, (performance.now() - started) / 1000)
    const batch = { clicks: clicks.map((c) => c.claim), views: views.map((v) => v.claim) }
    commitLedgerBatch(this.#db, now, batch, this.#book, this.#known, this.#kinds).then(
      (result) => {
        this.#inFlight--
        measured()
        // What this batch billed first, so the next batch is judged on it; the next batch then goes
        // to the store while this one's answers are written.
        this.#remember(result.billedSlots, now.getTime())
        for (const u of result.units) for (const key of boundKeysOf(u.source)) this.#known.sources.recordUnit(key, u.viewerKey, now.getTime())
        this.#onCommit(result)
        this.#start()
        clicks.forEach((c, i) => c.waiter.resolve(result.clicks[i]!))
        views.forEach((v, i) => v.waiter.resolve(result.views[i]!))
        this.#settle()
      },
      (err: unknown) => {
        this.#inFlight--
        measured()
        this.#start()
        this.#log.error({ err, clicks: clicks.length, views: views.length }, 'ledger batch failed')
        clicks.forEach((c) => c.waiter.reject(err))
        views.forEach((v) => v.waiter.reject(err))
        this.#settle()
      },
    )
    this.#kick()
  }

  #remember(slots: string[], atMs: number): void {
    for (const slot of slots) {
      // Deleted first, so the map's order stays the order of the instants and the bound drops the oldest.
      if ((this.#lastBillable.get(slot) ?? -Infinity) >= atMs) continue
      this.#lastBillable.delete(slot)
      this.#lastBillable.set(slot, atMs)
    }
    if (this.#lastBillable.size > MAX_KNOWN_VIEWERS) {
      let excess = this.#lastBillable.size - MAX_KNOWN_VIEWERS
      for (const slot of this.#lastBillable.keys()) {
        if (excess-- <= 0) break
        this.#lastBillable.delete(slot)
      }
    }
    if (Math.abs(atMs - this.#prunedAt) < PRUNE_EVERY_MS) return
    this.#prunedAt = atMs
    for (const [slot, at] of this.#lastBillable) if (atMs - at >= VIEWER_FREQUENCY_MS) this.#lastBillable.delete(slot)
  }

  get #idleNow(): boolean {
    return this.#inFlight === 0 && this.#queued === 0 && !this.#scheduled && !this.#reporting && this.#reports.length === 0
  }

  #settle(): void {
    if (this.#idleNow) this.#idle.splice(0).forEach((resolve) => resolve())
  }

  /**
   * The settle period's work (engine timer, ~1 s real time): settles what this instance's leases used
   * and any expired lease, renews the rest, and tops up leases running low, between batches.
   */
  async settleLeases(release = false): Promise<void> {
    await this.#book.exclusive(async () => {
      await this.#book.settle(this.#db, this.#clock.now(), release)
      if (!release) await this.#book.topUp(this.#db, this.#clock.now())
    })
  }

  /** Resolves once everything queued so far has committed (graceful shutdown). */
  flush(): Promise<void> {
    if (this.#idleNow) return Promise.resolve()
    return new Promise((resolve) => this.#idle.push(resolve))
  }
}
