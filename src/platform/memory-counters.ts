import { randomBytes } from 'node:crypto'
import { BoundedCounts, MAX_EXACT_KEYS } from './bounded-counts.ts'
import { attemptMember, PENDING_ATTEMPT_MS, type AttemptReservation, type CounterStore, type WindowCounts } from './counters.ts'

/**
 * Logs and locks only expire as service time moves, so their sweep (a pass
 * over every key) runs when time has moved by this much since the last one,
 * not every N operations: under a frozen clock there is nothing to forget.
 */
const SWEEP_INTERVAL_MS = 60_000

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
