import { Redis } from 'ioredis'

/**
 * Fixed-window counters and timed locks for rate limits and the auth lockout.
 * Windows are indexed by service-clock time, so a manual clock drives them;
 * the store only needs to forget old windows eventually (real-time TTLs).
 */
export interface CounterStore {
  /** Adds one to `key` in the window starting at `windowStartMs`; returns the new count. */
  increment(key: string, windowStartMs: number, windowMs: number): Promise<number>
  /** Sets a lock on `key` until `untilMs` (service time). */
  lock(key: string, untilMs: number, ttlMs: number): Promise<void>
  /** The service time a lock on `key` holds until, or null. */
  lockedUntil(key: string): Promise<number | null>
  close(): Promise<void>
}

export class MemoryCounterStore implements CounterStore {
  #counts = new Map<string, { count: number; windowStartMs: number }>()
  #locks = new Map<string, number>()

  async increment(key: string, windowStartMs: number): Promise<number> {
    const entry = this.#counts.get(key)
    if (!entry || entry.windowStartMs !== windowStartMs) {
      // Re-setting the key on a new window keeps the map at one entry per key.
      this.#counts.set(key, { count: 1, windowStartMs })
      return 1
    }
    entry.count += 1
    return entry.count
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

  async increment(key: string, windowStartMs: number, windowMs: number): Promise<number> {
    const k = `adapi:rl:${key}:${windowStartMs}`
    const [[, count]] = (await this.#redis.multi().incr(k).pexpire(k, windowMs * 2).exec()) as [[Error | null, number]]
    return count
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
