import { Redis } from 'ioredis'

/**
 * Window counters and timed locks for rate limits and the auth lockout.
 * Windows are indexed by service-clock time, so a manual clock drives them;
 * the store only needs to forget old windows eventually (real-time TTLs).
 */
export interface WindowCounts {
  /** Count in the current window, including this hit. */
  current: number
  /** Count in the window just before it (for sliding-window estimates). */
  previous: number
}

export interface CounterStore {
  /** Adds one to `key` in the window starting at `windowStartMs`. */
  increment(key: string, windowStartMs: number, windowMs: number): Promise<WindowCounts>
  /** Logs one event at `nowMs` and returns how many logged events lie within the last `windowMs` (a sliding log). */
  logEvent(key: string, nowMs: number, windowMs: number): Promise<number>
  /** Sets a lock on `key` until `untilMs` (service time). */
  lock(key: string, untilMs: number, ttlMs: number): Promise<void>
  /** The service time a lock on `key` holds until, or null. */
  lockedUntil(key: string): Promise<number | null>
  close(): Promise<void>
}

/**
 * Entries only expire as service time moves, so the sweep (a pass over every
 * key) runs when time has moved by this much since the last one, not every N
 * operations: at thousands of requests a second a pass per few thousand
 * operations cost more than the counting itself, and under a frozen clock
 * there is nothing to forget.
 */
const SWEEP_INTERVAL_MS = 60_000

export class MemoryCounterStore implements CounterStore {
  #counts = new Map<string, { windowStartMs: number; windowMs: number; count: number; previous: number }>()
  #locks = new Map<string, number>()
  #logs = new Map<string, number[]>()
  #latestMs = 0
  #sweptAtMs = 0

  async increment(key: string, windowStartMs: number, windowMs: number): Promise<WindowCounts> {
    this.#advance(windowStartMs)
    const entry = this.#counts.get(key)
    if (!entry || entry.windowStartMs !== windowStartMs) {
      // One entry per key: a new window keeps only the count of the window just before it.
      const previous = entry && entry.windowStartMs === windowStartMs - windowMs ? entry.count : 0
      this.#counts.set(key, { windowStartMs, windowMs, count: 1, previous })
      return { current: 1, previous }
    }
    entry.count += 1
    return { current: entry.count, previous: entry.previous }
  }

  async logEvent(key: string, nowMs: number, windowMs: number): Promise<number> {
    this.#advance(nowMs)
    const log = (this.#logs.get(key) ?? []).filter((t) => t > nowMs - windowMs)
    log.push(nowMs)
    this.#logs.set(key, log)
    return log.length
  }

  #advance(atMs: number): void {
    if (atMs <= this.#latestMs) return
    this.#latestMs = atMs
    if (atMs - this.#sweptAtMs < SWEEP_INTERVAL_MS) return
    this.#sweptAtMs = atMs
    this.#sweep()
  }

  /** Forgets windows, logs and locks that can no longer matter, so memory stays bounded by active keys. */
  #sweep(): void {
    for (const [key, log] of this.#logs) if (log.every((t) => t + 3_600_000 < this.#latestMs)) this.#logs.delete(key)
    for (const [key, e] of this.#counts) if (e.windowStartMs + 2 * e.windowMs < this.#latestMs) this.#counts.delete(key)
    for (const [key, until] of this.#locks) if (until < this.#latestMs) this.#locks.delete(key)
  }

  async lock(key: string, untilMs: number): Promise<void> {
    this.#locks.set(key, untilMs)
  }

  async lockedUntil(key: string): Promise<number | null> {
    return this.#locks.get(key) ?? null
  }

  async close(): Promise<void> {}
}

export class RedisCounterStore implements CounterStore {
  #redis: Redis

  constructor(url: string) {
    this.#redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: false })
    // Connection errors surface on each call (and are handled there); keep them out of the process's error path.
    this.#redis.on('error', () => {})
  }

  async increment(key: string, windowStartMs: number, windowMs: number): Promise<WindowCounts> {
    const k = `adapi:rl:${key}:${windowStartMs}`
    const prev = `adapi:rl:${key}:${windowStartMs - windowMs}`
    const replies = (await this.#redis.multi().incr(k).pexpire(k, windowMs * 2).get(prev).exec()) as [Error | null, unknown][]
    return { current: Number(replies[0]![1]), previous: Number(replies[2]![1] ?? 0) }
  }

  async logEvent(key: string, nowMs: number, windowMs: number): Promise<number> {
    const k = `adapi:log:${key}`
    const member = `${nowMs}:${Math.random().toString(36).slice(2, 8)}`
    const replies = (await this.#redis
      .multi()
      .zremrangebyscore(k, '-inf', nowMs - windowMs)
      .zadd(k, nowMs, member)
      .zcard(k)
      .pexpire(k, windowMs * 2)
      .exec()) as [Error | null, unknown][]
    return Number(replies[2]![1])
  }

  async lock(key: string, untilMs: number, ttlMs: number): Promise<void> {
    await this.#redis.set(`adapi:lock:${key}`, String(untilMs), 'PX', Math.max(1, ttlMs))
  }

  async lockedUntil(key: string): Promise<number | null> {
    const v = await this.#redis.get(`adapi:lock:${key}`)
    return v === null ? null : Number(v)
  }

  async close(): Promise<void> {
    this.#redis.disconnect()
  }
}
