import { randomBytes } from 'node:crypto'
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
  /**
   * One authentication attempt asks to be checked, atomically across every
   * instance on the store: refused while the lock on `lockKey` holds; refused
   * and locked for `lockMs` when the failures logged under `logKey` within
   * `windowMs` reach `threshold`; refused without a lock (`lockedUntilMs`
   * null: retry shortly) when the log is full only because attempts still
   * being checked fill it; else the attempt is logged as pending and
   * admitted. So at most `threshold` credentials are checked per window
   * however many attempts arrive at once.
   */
  reserveAttempt(logKey: string, lockKey: string, nowMs: number, windowMs: number, threshold: number, lockMs: number): Promise<AttemptReservation>
  /** The admitted attempt succeeded: its entry leaves the log (a success is no failure). */
  releaseAttempt(logKey: string, member: string): Promise<void>
  /**
   * The admitted attempt failed: its entry stays in the log as the failure's.
   * When the failures in the window now reach `threshold`, the lock is set
   * and its end (service time) returned; else null.
   */
  confirmFailure(logKey: string, lockKey: string, member: string, nowMs: number, windowMs: number, threshold: number, lockMs: number): Promise<number | null>
  /** Forgets the lock and the event log kept under `key` (an operator lifting a lockout). */
  unlock(key: string): Promise<void>
  close(): Promise<void>
}

/** `reserveAttempt`'s answer: admitted (its log entry is `member`), or refused with the lock's end (null: busy, no lock). */
export type AttemptReservation = { admitted: true; member: string } | { admitted: false; lockedUntilMs: number | null }

/**
 * An attempt still pending after this long (its instance died while checking
 * it) stops being pending: it stays in the log and counts as a failure.
 */
export const PENDING_ATTEMPT_MS = 60_000

const attemptMember = (nowMs: number) => `${nowMs}:${randomBytes(6).toString('hex')}`

/**
 * Logs and locks only expire as service time moves, so their sweep (a pass
 * over every key) runs when time has moved by this much since the last one,
 * not every N operations: under a frozen clock there is nothing to forget.
 */
const SWEEP_INTERVAL_MS = 60_000

/**
 * Keys counted exactly per window (current and previous each): about
 * 170 bytes a key, so ~11 MB a window at the bound. Beyond it, a key first
 * seen in that window is counted in a sketch (below). Ever-new keys (a new
 * viewer per decision, 12,000 a second in the benchmark) so cost a fixed
 * amount of memory, not one entry each (docs/decisions/0073-in-memory-counters-are-bounded-by-count.md).
 */
export const MAX_EXACT_KEYS = 65_536
/** Counters per row of the sketch (two rows, 32 bits each: 2 MiB a window, allocated at the first overflow). */
const SKETCH_WIDTH = 1 << 18

/**
 * One window's counts: exact per key up to MAX_EXACT_KEYS keys, then a
 * count-min sketch (two rows of counters, a key's count is the smaller of
 * its two). A sketch never counts a key low, only high when other keys
 * share both its counters: at the bound a limit errs on refusing, never on
 * letting an abusive key through. The hash seeds are random per process, so
 * nobody can pick keys that collide on purpose.
 */
export class BoundedCounts {
  readonly #exact = new Map<string, number>()
  #sketch: Uint32Array | null = null
  readonly #seeds: readonly [number, number]
  readonly #maxExact: number

  constructor(seeds: readonly [number, number], maxExact = MAX_EXACT_KEYS) {
    this.#seeds = seeds
    this.#maxExact = maxExact
  }

  /** Keys counted exactly (at most the bound). */
  get exactKeys(): number {
    return this.#exact.size
  }

  /** Adds one to `key` and returns its count. */
  add(key: string): number {
    const n = this.#exact.get(key)
    if (n !== undefined || this.#exact.size < this.#maxExact) {
      this.#exact.set(key, (n ?? 0) + 1)
      return (n ?? 0) + 1
    }
    const sketch = (this.#sketch ??= new Uint32Array(2 * SKETCH_WIDTH))
    const a = this.#slot(key, 0)
    const b = this.#slot(key, 1)
    return Math.min(++sketch[a]!, ++sketch[b]!)
  }

  get(key: string): number {
    const n = this.#exact.get(key)
    if (n !== undefined || this.#sketch === null) return n ?? 0
    return Math.min(this.#sketch[this.#slot(key, 0)]!, this.#sketch[this.#slot(key, 1)]!)
  }

  /** Takes back one `add` of `key` (never below zero). */
  remove(key: string): void {
    const n = this.#exact.get(key)
    if (n !== undefined) {
      if (n > 1) this.#exact.set(key, n - 1)
      else this.#exact.delete(key)
      return
    }
    const sketch = this.#sketch
    if (sketch === null) return
    const a = this.#slot(key, 0)
    const b = this.#slot(key, 1)
    // A refund follows its own add (plugins/refunds.ts), so both counters hold that unit: taking it back keeps every estimate an upper bound.
    if (sketch[a]! > 0 && sketch[b]! > 0) {
      sketch[a]!--
      sketch[b]!--
    }
  }

  /** FNV-1a of the key from a random seed, one seed a row. */
  #slot(key: string, row: 0 | 1): number {
    let h = this.#seeds[row]
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193)
    return row * SKETCH_WIDTH + ((h >>> 0) & (SKETCH_WIDTH - 1))
  }
}

/**
 * Keys kept per map of the lockout and the logs (locks, event logs, attempt
 * logs). They are forgotten as service time passes (the sweep); at the bound
 * the least recently used key is forgotten first (a lock: the one ending
 * soonest), so to make this instance forget one key a caller must touch this
 * many others after it, and those go through the same limits.
 */
export const MAX_TRACKED_KEYS = 100_000

/**
 * The counts of one window length: the current window's and the one just
 * before it. A new window replaces them whole, so counts are forgotten
 * without a pass over the keys (a sweep over every key blocked the event
 * loop for ~240 ms per million keys; the serving endpoints count two keys a
 * decision, docs/performance.md).
 */
interface CountWindows {
  startMs: number
  current: BoundedCounts
  previous: BoundedCounts
}

export class MemoryCounterStore implements CounterStore {
  /** By window length. */
  #windows = new Map<number, CountWindows>()
  readonly #seeds: readonly [number, number]
  readonly #maxExact: number
  readonly #maxTracked: number
  #locks = new Map<string, number>()
  #logs = new Map<string, number[]>()
  /** Authentication attempts per log key: each member's time and whether it is still being checked. */
  #attempts = new Map<string, Map<string, { atMs: number; pending: boolean }>>()
  #latestMs = 0
  #sweptAtMs = 0

  /** The bounds are for tests; the defaults are MAX_EXACT_KEYS and MAX_TRACKED_KEYS. */
  constructor(bounds: { maxExactKeys?: number; maxTrackedKeys?: number } = {}) {
    const seeds = randomBytes(8)
    this.#seeds = [seeds.readUInt32LE(0), seeds.readUInt32LE(4)]
    this.#maxExact = bounds.maxExactKeys ?? MAX_EXACT_KEYS
    this.#maxTracked = bounds.maxTrackedKeys ?? MAX_TRACKED_KEYS
  }

  #newCounts(): BoundedCounts {
    return new BoundedCounts(this.#seeds, this.#maxExact)
  }

  async increment(key: string, windowStartMs: number, windowMs: number): Promise<WindowCounts> {
    this.#advance(windowStartMs)
    let w = this.#windows.get(windowMs)
    if (!w) this.#windows.set(windowMs, (w = { startMs: windowStartMs, current: this.#newCounts(), previous: this.#newCounts() }))
    if (windowStartMs > w.startMs) {
      // A new window: the one just before it keeps its counts, anything older is forgotten.
      w.previous = windowStartMs - w.startMs === windowMs ? w.current : this.#newCounts()
      w.current = this.#newCounts()
      w.startMs = windowStartMs
    } else if (windowStartMs < w.startMs) {
      // A caller whose clock reading predates the newest window: it counts in the window just before, if that is its own.
      if (w.startMs - windowStartMs !== windowMs) return { current: 1, previous: 0 }
      return { current: w.previous.add(key), previous: 0 }
    }
    return { current: w.current.add(key), previous: w.previous.get(key) }
  }

  async peek(key: string, windowStartMs: number, windowMs: number): Promise<number> {
    return this.#counts(windowStartMs, windowMs)?.get(key) ?? 0
  }

  async decrement(key: string, windowStartMs: number, windowMs: number): Promise<void> {
    this.#counts(windowStartMs, windowMs)?.remove(key)
  }

  /** The counts kept for that window (the current one or the one just before it), if any. */
  #counts(windowStartMs: number, windowMs: number): BoundedCounts | undefined {
    const w = this.#windows.get(windowMs)
    if (!w) return undefined
    if (windowStartMs === w.startMs) return w.current
    return w.startMs - windowStartMs === windowMs ? w.previous : undefined
  }

  async logEvent(key: string, nowMs: number, windowMs: number): Promise<number> {
    this.#advance(nowMs)
    const log = (this.#logs.get(key) ?? []).filter((t) => t > nowMs - windowMs)
    log.push(nowMs)
    this.#touch(this.#logs, key, log)
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
    for (const [key, log] of this.#attempts) if ([...log.values()].every((e) => e.atMs + 3_600_000 < this.#latestMs)) this.#attempts.delete(key)
  }

  /**
   * Sets `key` as the most recently used entry of `map`; at the bound, the
   * least recently used one goes (Map order is insertion order, and a touch
   * re-inserts).
   */
  #touch<V>(map: Map<string, V>, key: string, value: V): void {
    map.delete(key)
    if (map.size >= this.#maxTracked) map.delete(map.keys().next().value!)
    map.set(key, value)
  }

  /** Sets a lock; at the bound, expired locks go first, then the one ending soonest. */
  #setLock(key: string, untilMs: number): void {
    if (!this.#locks.has(key) && this.#locks.size >= this.#maxTracked) {
      this.#sweep()
      if (this.#locks.size >= this.#maxTracked) {
        let soonest: string | null = null
        let soonestMs = Infinity
        for (const [k, until] of this.#locks) if (until < soonestMs) [soonest, soonestMs] = [k, until]
        if (soonest !== null) this.#locks.delete(soonest)
      }
    }
    this.#locks.set(key, untilMs)
  }

  async lock(key: string, untilMs: number): Promise<void> {
    this.#setLock(key, untilMs)
  }

  // The attempt methods do all their work before their first await: atomic within the process, like the Redis scripts.
  async reserveAttempt(logKey: string, lockKey: string, nowMs: number, windowMs: number, threshold: number, lockMs: number): Promise<AttemptReservation> {
    this.#advance(nowMs)
    const until = this.#locks.get(lockKey)
    if (until !== undefined && until > nowMs) return { admitted: false, lockedUntilMs: until }
    const log = this.#trimmedAttempts(logKey, nowMs, windowMs)
    if (log.size >= threshold) {
      if (failuresIn(log) < threshold) return { admitted: false, lockedUntilMs: null }
      this.#setLock(lockKey, nowMs + lockMs)
      return { admitted: false, lockedUntilMs: nowMs + lockMs }
    }
    const member = attemptMember(nowMs)
    log.set(member, { atMs: nowMs, pending: true })
    return { admitted: true, member }
  }

  async releaseAttempt(logKey: string, member: string): Promise<void> {
    this.#attempts.get(logKey)?.delete(member)
  }

  async confirmFailure(logKey: string, lockKey: string, member: string, nowMs: number, windowMs: number, threshold: number, lockMs: number): Promise<number | null> {
    const log = this.#trimmedAttempts(logKey, nowMs, windowMs)
    const entry = log.get(member)
    if (entry) entry.pending = false
    if (failuresIn(log) < threshold) return null
    this.#setLock(lockKey, nowMs + lockMs)
    return nowMs + lockMs
  }

  /** The attempts of `logKey` within the window (older ones forgotten, long-pending ones counted as failures). */
  #trimmedAttempts(logKey: string, nowMs: number, windowMs: number): Map<string, { atMs: number; pending: boolean }> {
    const log = this.#attempts.get(logKey) ?? new Map<string, { atMs: number; pending: boolean }>()
    this.#touch(this.#attempts, logKey, log)
    for (const [member, entry] of log) {
      if (entry.atMs <= nowMs - windowMs) log.delete(member)
      else if (entry.pending && entry.atMs <= nowMs - PENDING_ATTEMPT_MS) entry.pending = false
    }
    return log
  }

  async lockedUntil(key: string): Promise<number | null> {
    return this.#locks.get(key) ?? null
  }

  async unlock(key: string): Promise<void> {
    this.#locks.delete(key)
    this.#logs.delete(key)
    this.#attempts.delete(key)
  }

  async close(): Promise<void> {}
}

function failuresIn(log: Map<string, { pending: boolean }>): number {
  let n = 0
  for (const entry of log.values()) if (!entry.pending) n++
  return n
}

/**
 * KEYS: the attempt log (pending and failed attempts, scored by time), the
 * pending set, the lock. ARGV: now, window, threshold, lock length, pending
 * limit, the new member. Answers {1, 0} admitted, {0, until} locked, {0, -1} busy.
 */
const RESERVE_ATTEMPT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local threshold = tonumber(ARGV[3])
local lockMs = tonumber(ARGV[4])
local untilMs = tonumber(redis.call('GET', KEYS[3]) or '0')
if untilMs > now then return {0, untilMs} end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[5]))
local logged = redis.call('ZCARD', KEYS[1])
if logged >= threshold then
  if logged - redis.call('ZCARD', KEYS[2]) < threshold then return {0, -1} end
  redis.call('SET', KEYS[3], tostring(now + lockMs), 'PX', lockMs)
  return {0, now + lockMs}
end
redis.call('ZADD', KEYS[1], now, ARGV[6])
redis.call('ZADD', KEYS[2], now, ARGV[6])
redis.call('PEXPIRE', KEYS[1], window * 2)
redis.call('PEXPIRE', KEYS[2], window * 2)
return {1, 0}`

/** KEYS: the attempt log, the pending set, the lock. ARGV: now, window, threshold, lock length, the member. Answers the lock's end or 0. */
const CONFIRM_FAILURE = `
local now = tonumber(ARGV[1])
local threshold = tonumber(ARGV[3])
local lockMs = tonumber(ARGV[4])
redis.call('ZREM', KEYS[2], ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[1]) - redis.call('ZCARD', KEYS[2]) < threshold then return 0 end
redis.call('SET', KEYS[3], tostring(now + lockMs), 'PX', lockMs)
return now + lockMs`

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

  async reserveAttempt(logKey: string, lockKey: string, nowMs: number, windowMs: number, threshold: number, lockMs: number): Promise<AttemptReservation> {
    const member = attemptMember(nowMs)
    const reply = await this.#redis.eval(
      RESERVE_ATTEMPT,
      3,
      `adapi:log:${logKey}`,
      `adapi:pending:${logKey}`,
      `adapi:lock:${lockKey}`,
      nowMs,
      windowMs,
      threshold,
      Math.max(1, lockMs),
      PENDING_ATTEMPT_MS,
      member,
    )
    const [admitted, untilMs] = Array.isArray(reply) ? reply.map(Number) : []
    if (admitted === 1) return { admitted: true, member }
    if (untilMs === undefined || Number.isNaN(untilMs)) throw new Error(`unexpected reply from the attempt script: ${String(reply)}`)
    return { admitted: false, lockedUntilMs: untilMs < 0 ? null : untilMs }
  }

  async releaseAttempt(logKey: string, member: string): Promise<void> {
    await this.#redis.multi().zrem(`adapi:log:${logKey}`, member).zrem(`adapi:pending:${logKey}`, member).exec()
  }

  async confirmFailure(logKey: string, lockKey: string, member: string, nowMs: number, windowMs: number, threshold: number, lockMs: number): Promise<number | null> {
    const keys = [`adapi:log:${logKey}`, `adapi:pending:${logKey}`, `adapi:lock:${lockKey}`]
    const untilMs = Number(await this.#redis.eval(CONFIRM_FAILURE, 3, ...keys, nowMs, windowMs, threshold, Math.max(1, lockMs), member))
    return untilMs > 0 ? untilMs : null
  }

  async unlock(key: string): Promise<void> {
    await this.#redis.del(`adapi:lock:${key}`, `adapi:log:${key}`, `adapi:pending:${key}`)
  }

  async close(): Promise<void> {
    this.#redis.disconnect()
  }
}
