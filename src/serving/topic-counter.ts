import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../store/db.ts'
import { addTopicDecisionCounts, type TopicDecisionCount } from '../store/topic-counts.ts'
import { OFFER_FLUSH_EVERY_MS } from './offer-counter.ts'

const MINUTE_MS = 60_000
/** The key of every decision, whatever its topics (the share's denominator). */
export const ALL_DECISIONS = ''

/**
 * Decisions counted by topic, not stored (migration 0036), the way offers are (offer-counter.ts):
 * each decision adds one to its UTC minute's count of all decisions and one to each topic it
 * carried (normalised: at most 5), in memory; the counts go to the store every
 * OFFER_FLUSH_EVERY_MS, one upsert row per (minute, topic), at shutdown and on `flush`. The
 * auction quote reads them (`store/quote.ts#readTopicDecisionCounts`). A failed flush puts its
 * counts back; a crash loses at most one flush period. Counts are estimates, never money.
 */
export class TopicCounter {
  readonly #db: Db
  readonly #log: FastifyBaseLogger
  /** Counts per UTC minute, then per topic (ALL_DECISIONS included). */
  #pending = new Map<number, Map<string, number>>()
  /** The minute counted last and its map: a decision costs one comparison and a map update or two. */
  #minuteMs = -1
  #minute: Map<string, number> | null = null
  #flushing: Promise<void> | null = null
  readonly #timer: NodeJS.Timeout

  constructor(db: Db, log: FastifyBaseLogger) {
    this.#db = db
    this.#log = log
    this.#timer = setInterval(() => {
      void this.flush().catch((err: unknown) => this.#log.warn({ err }, 'topic counts flush failed; they go with the next one'))
    }, OFFER_FLUSH_EVERY_MS)
    this.#timer.unref()
  }

  /** Counts one decision at `atMs` carrying `topics` (already normalised). */
  count(atMs: number, topics: readonly string[]): void {
    const minuteMs = atMs - (atMs % MINUTE_MS)
    let minute = this.#minute
    if (minute === null || minuteMs !== this.#minuteMs) {
      minute = this.#pending.get(minuteMs) ?? new Map<string, number>()
      this.#pending.set(minuteMs, minute)
      this.#minute = minute
      this.#minuteMs = minuteMs
    }
    minute.set(ALL_DECISIONS, (minute.get(ALL_DECISIONS) ?? 0) + 1)
    for (const topic of topics) minute.set(topic, (minute.get(topic) ?? 0) + 1)
  }

  #putBack(counts: readonly TopicDecisionCount[]): void {
    for (const c of counts) {
      let minute = this.#pending.get(c.minuteMs)
      if (!minute) this.#pending.set(c.minuteMs, (minute = new Map<string, number>()))
      minute.set(c.topic, (minute.get(c.topic) ?? 0) + c.decisions)
    }
  }

  /** Adds what was counted so far to the store; resolves once it is there (after any flush under way). */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing.catch(() => {})
    if (this.#pending.size === 0) return
    const counts: TopicDecisionCount[] = []
    for (const [minuteMs, minute] of this.#pending) for (const [topic, decisions] of minute) counts.push({ minuteMs, topic, decisions })
    this.#pending = new Map()
    this.#minute = null
    this.#flushing = addTopicDecisionCounts(this.#db, counts).catch((err: unknown) => {
      this.#putBack(counts)
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
