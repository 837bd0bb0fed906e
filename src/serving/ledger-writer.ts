import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../platform/clock.ts'
import type { Db } from '../store/db.ts'
import { commitLedgerBatch, type BatchResult, type LedgerRow, type ViewClaim, type ViewOutcome } from '../store/ledger.ts'

interface Waiter<T> {
  resolve(value: T): void
  reject(err: unknown): void
}

const MAX_BATCH = 2_000

/**
 * Group commit for the ledger. Requests queue while a batch commits; the next
 * batch takes everything queued. A view or click is answered only after the
 * transaction holding it committed, so an acknowledged billable impression
 * survives any crash. Offers are not awaited by the decision path: losing the
 * offers of the last few milliseconds in a crash loses no money.
 */
export class LedgerWriter {
  readonly #db: Db
  readonly #clock: Clock
  readonly #log: FastifyBaseLogger
  readonly #onCommit: (result: BatchResult) => void
  #offers: LedgerRow[] = []
  #clicks: { row: LedgerRow; waiter: Waiter<void> }[] = []
  #views: { claim: ViewClaim; waiter: Waiter<ViewOutcome> }[] = []
  #flushing: Promise<void> | null = null

  constructor(db: Db, clock: Clock, log: FastifyBaseLogger, onCommit: (result: BatchResult) => void) {
    this.#db = db
    this.#clock = clock
    this.#log = log
    this.#onCommit = onCommit
  }

  recordOffer(row: LedgerRow): void {
    this.#offers.push(row)
    this.#kick()
  }

  recordClick(row: LedgerRow): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#clicks.push({ row, waiter: { resolve, reject } })
      this.#kick()
    })
  }

  recordView(claim: ViewClaim): Promise<ViewOutcome> {
    return new Promise((resolve, reject) => {
      this.#views.push({ claim, waiter: { resolve, reject } })
      this.#kick()
    })
  }

  #kick(): void {
    if (this.#flushing) return
    this.#flushing = this.#drain().finally(() => {
      this.#flushing = null
    })
  }

  async #drain(): Promise<void> {
    // Let the requests that arrive in the same tick join the first batch.
    await new Promise((r) => setImmediate(r))
    while (this.#offers.length + this.#clicks.length + this.#views.length > 0) {
      const offers = this.#offers.splice(0, MAX_BATCH)
      const clicks = this.#clicks.splice(0, MAX_BATCH)
      const views = this.#views.splice(0, MAX_BATCH)
      try {
        const result = await commitLedgerBatch(this.#db, this.#clock.now(), {
          offers,
          clicks: clicks.map((c) => c.row),
          views: views.map((v) => v.claim),
        })
        this.#onCommit(result)
        clicks.forEach((c) => c.waiter.resolve())
        views.forEach((v, i) => v.waiter.resolve(result.views[i]!))
      } catch (err) {
        this.#log.error({ err, offers: offers.length, clicks: clicks.length, views: views.length }, 'ledger batch failed')
        clicks.forEach((c) => c.waiter.reject(err))
        views.forEach((v) => v.waiter.reject(err))
      }
    }
  }

  /** Commits whatever is queued (graceful shutdown). */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing
  }
}
