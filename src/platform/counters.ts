import { Redis } from 'ioredis'
import { TIMEOUTS } from './timeouts.ts'

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
  /** The count of `key` in the window starting at `windowStartMs`, without adding to it. */
  peek(key: string, windowStartMs: number, windowMs: number): Promise<number>
  /** Takes back one `increment` of that window (never below zero): a spent unit refunded. */
  decrement(key: string, windowStartMs: number, windowMs: number): Promise<void>
  /** Logs one event at `nowMs` and returns how many logged events lie within the last `windowMs` (a sliding log). */
  logEvent(key: string, nowMs: number, windowMs: number): Promise<number>
  /** Sets a lock on `key` until `untilMs` (service time). */
  lock(key: string, untilMs: number, ttlMs: number): Promise<void>
  /** The service time a lock on `key` holds until, or null. */
  lockedUntil(key: string): Promise<number | null>
  /** Forgets the lock and the event log kept under `key` (an operator lifting a lockout). */
  unlock(key: string): Promise<void>
  close(): Promise<void>
}

/**
 * Logs and locks only expire as service time moves, so their sweep (a pass
 * over every key) runs when time has moved by this much since the last one,
 * not every N operations: under a frozen clock there is nothing to forget.
 */
const SWEEP_INTERVAL_MS = 60_000

/**
 * The counts of one window length: the current window's and the one just
 * before it, one number per key. A new window replaces the maps whole, so
 * counts are forgotten without a pass over the keys (a sweep over every key
 * blocked the event loop for ~240 ms per million keys; the serving endpoints
 * count two keys a decision, docs/performance.md).
 */
interface CountWindows {
  startMs: number
  current: Map<string, number>
  previous: Map<string, number>
}

export class MemoryCounterStore implements CounterStore {
  /** By window length. */
  #windows = new Map<number, CountWindows>()
  #locks = new Map<string, number>()
  #logs = new Map<string, number[]>()
  #latestMs = 0
  #sweptAtMs = 0

  async increment(key: string, windowStartMs: number, windowMs: number): Promise<WindowCounts> {
    this.#advance(windowStartMs)
    let w = this.#windows.get(windowMs)
    if (!w) this.#windows.set(windowMs, (w = { startMs: windowStartMs, current: new Map(), previous: new Map() }))
    if (windowStartMs > w.startMs) {
      // A new window: the one just before it keeps its counts, anything older is forgotten.
      w.previous = windowStartMs - w.startMs === windowMs ? w.current : new Map<string, number>()
      w.current = new Map()
      w.startMs = windowStartMs
    } else if (windowStartMs < w.startMs) {
      // A caller whose clock reading predates the newest window: it counts in the window just before, if that is its own.
      if (w.startMs - windowStartMs !== windowMs) return { current: 1, previous: 0 }
      const late = (w.previous.get(key) ?? 0) + 1
      w.previous.set(key, late)
      return { current: late, previous: 0 }
    }
    const current = (w.current.get(key) ?? 0) + 1
    w.current.set(key, current)
    return { current, previous: w.previous.get(key) ?? 0 }
  }

  async peek(key: string, windowStartMs: number, windowMs: number): Promise<number> {
    return this.#counts(windowStartMs, windowMs)?.get(key) ?? 0
  }

  async decrement(key: string, windowStartMs: number, windowMs: number): Promise<void> {
    const counts = this.#counts(windowStartMs, windowMs)
    const n = counts?.get(key)
    if (counts === undefined || n === undefined) return
    if (n > 1) counts.set(key, n - 1)
    else counts.delete(key)
  }

  /** The counts kept for that window (the current one or the one just before it), if any. */
  #counts(windowStartMs: number, windowMs: number): Map<string, number> | undefined {
    const w = this.#windows.get(windowMs)
    if (!w) return undefined
    if (windowStartMs === w.startMs) return w.current
    return w.startMs - windowStartMs === windowMs ? w.previous : undefined
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

  /** Forgets logs and locks that can no longer matter, so memory stays bounded by active keys. */
  #sweep(): void {
    for (const [key, log] of this.#logs) if (log.every((t) => t + 3_600_000 < this.#latestMs)) this.#logs.delete(key)
    for (const [key, until] of this.#locks) if (until < this.#latestMs) this.#locks.delete(key)
  }

  async lock(key: string, untilMs: number): Promise<void> {
    this.#locks.set(key, untilMs)
  }

  async lockedUntil(key: string): Promise<number | null> {
    return this.#locks.get(key) ?? null
  }

  async unlock(key: string): Promise<void> {
    this.#locks.delete(key)
    this.#logs.delete(key)
  }

  async close(): Promise<void> {}
}

const DECREMENT_IF_POSITIVE = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n > 0 then return redis.call('DECR', KEYS[1]) end
return 0`

export class RedisCounterStore implements CounterStore {
  #redis: Redis

  /**
   * Bounded by src/platform/timeouts.ts: a connect attempt gives up after
   * `connectMs`, a command after `commandMs`; with the offline queue off a
   * call while disconnected fails at once instead of waiting for the
   * reconnect, which goes on in the background with a capped backoff.
   */
  constructor(url: string) {
    const t = TIMEOUTS.redis
    this.#redis = new Redis(url, {
      lazyConnect: false,
      connectTimeout: t.connectMs,
      commandTimeout: t.commandMs,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: (attempt) => Math.min(attempt * t.reconnectStepMs, t.reconnectMaxMs),
    })
    // Connection errors surface on each call (and are handled there); keep them out of the process's error path.
    this.#redis.on('error', () => {})
  }

  /**
   * Resolves once connected, or after `ms` whatever the state (start-up: the
   * first requests find Redis connected instead of failing over at once).
   */
  async waitReady(ms: number): Promise<boolean> {
    if (this.#redis.status === 'ready') return true
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer)
        this.#redis.off('ready', onReady)
        resolve(ok)
      }
      const onReady = () => done(true)
      const timer = setTimeout(() => done(false), ms)
      this.#redis.on('ready', onReady)
    })
  }

  /** One PING within the command timeout (the readiness probe of the resilient wrapper). */
  async ping(): Promise<void> {
    await this.#redis.ping()
  }

  async increment(key: string, windowStartMs: number, windowMs: number): Promise<WindowCounts> {
    const k = `adapi:rl:${key}:${windowStartMs}`
    const prev = `adapi:rl:${key}:${windowStartMs - windowMs}`
    const replies = (await this.#redis.multi().incr(k).pexpire(k, windowMs * 2).get(prev).exec()) as [Error | null, unknown][]
    return { current: Number(replies[0]![1]), previous: Number(replies[2]![1] ?? 0) }
  }

  async peek(key: string, windowStartMs: number): Promise<number> {
    return Number((await this.#redis.get(`adapi:rl:${key}:${windowStartMs}`)) ?? 0)
  }

  async decrement(key: string, windowStartMs: number): Promise<void> {
    // One atomic step, so a refund racing the window's expiry never leaves a negative count behind.
    await this.#redis.eval(DECREMENT_IF_POSITIVE, 1, `adapi:rl:${key}:${windowStartMs}`)
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

  async unlock(key: string): Promise<void> {
    await this.#redis.del(`adapi:lock:${key}`, `adapi:log:${key}`)
  }

  async close(): Promise<void> {
    this.#redis.disconnect()
  }
}
