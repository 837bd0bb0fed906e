import type { FastifyBaseLogger } from 'fastify'

/** How often (real time) an instance adds what it counted to the store. */
export const FLUSH_EVERY_MS = 2_000
const MINUTE_MS = 60_000

/** One count as a flush writes it: the UTC minute, the counted thing's id and key, how many. */
export interface MinuteCount<K> {
  minuteMs: number
  id: string
  /** What the store's row needs of the counted thing besides its minute and count. */
  key: K
  count: number
}

/**
 * Things counted per UTC minute in memory, not stored one by one: the offers (offer-counter.ts) and
 * the decisions by topic (topic-counter.ts). A count adds to its minute's entry for its id; the
 * counts go to the store (`write`, one row per minute and id) every FLUSH_EVERY_MS, on `flush` and
 * on `close`.
 *
 * Flushes run one at a time. A flush that fails puts its counts back, to go with the next one; one
 * whose reply is lost after its commit (a timeout) may so count twice. A crash loses the counts of
 * the last flush period. Counts are reporting and estimates, never money.
 */
export class MinuteCounter<K> {
  readonly #write: (counts: MinuteCount<K>[]) => Promise<void>
  /** Counts per UTC minute, then per id. */
  #pending = new Map<number, Map<string, { key: K; count: number }>>()
  /** The minute counted last and its map: a count costs one comparison and a map update. */
  #minuteMs = -1
  #minute: Map<string, { key: K; count: number }> | null = null
  #flushing: Promise<void> | null = null
  readonly #timer: NodeJS.Timeout

  /** `what` names the counts in the log line of a failed timed flush ("offer counts"); `everyMs` is for tests. */
  constructor(what: string, write: (counts: MinuteCount<K>[]) => Promise<void>, log: Pick<FastifyBaseLogger, 'warn'>, everyMs = FLUSH_EVERY_MS) {
    this.#write = write
    this.#timer = setInterval(() => {
      void this.flush().catch((err: unknown) => log.warn({ err }, `${what} flush failed; they go with the next one`))
    }, everyMs)
    this.#timer.unref()
  }

  /** Adds `count` to `id`'s count in the UTC minute of `atMs`; `key` is kept from its first count there. */
  protected add(atMs: number, id: string, key: K, count = 1): void {
    const minuteMs = atMs - (atMs % MINUTE_MS)
    let minute = this.#minute
    if (minute === null || minuteMs !== this.#minuteMs) {
      minute = this.#pending.get(minuteMs) ?? new Map()
      this.#pending.set(minuteMs, minute)
      this.#minute = minute
      this.#minuteMs = minuteMs
    }
    const known = minute.get(id)
    if (known) known.count += count
    else minute.set(id, { key, count })
  }

  /** Minute and id pairs counted and not yet in the store (tests, metrics). */
  get pendingKeys(): number {
    let keys = 0
    for (const minute of this.#pending.values()) keys += minute.size
    return keys
  }

  /** Adds what was counted so far to the store; resolves once it is there (after any flush under way). */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing.catch(() => {})
    if (this.#pending.size === 0) return
    const counts: MinuteCount<K>[] = []
    for (const [minuteMs, minute] of this.#pending) for (const [id, { key, count }] of minute) counts.push({ minuteMs, id, key, count })
    this.#pending = new Map()
    this.#minute = null
    this.#flushing = this.#write(counts).catch((err: unknown) => {
      for (const c of counts) this.add(c.minuteMs, c.id, c.key, c.count)
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
