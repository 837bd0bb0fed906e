import type { AttemptReservation, CounterStore, WindowCounts } from './counters.ts'
import { MemoryCounterStore } from './memory-counters.ts'
import { TIMEOUTS } from './timeouts.ts'

/** A counter store that can be probed (Redis: one PING within the command timeout). */
export interface RemoteCounterStore extends CounterStore {
  ping(): Promise<void>
}

export type RedisState = 'up' | 'down'

/** Where the wrapper reports an outage and the recovery (a pino logger fits). */
export interface OutageLog {
  warn(obj: object, msg: string): void
  info(obj: object, msg: string): void
}

/**
 * The Redis policy (docs/operations.md, "Redis policy"). Every call goes to
 * Redis, bounded by its command timeout; when one fails, the call is answered
 * from this instance's own counters and a circuit opens: for `circuitOpenMs`
 * every call goes straight to the local counters, then one call probes Redis
 * again (the others stay local while it does). A stalled Redis so costs at
 * most one command timeout per second, not one per request.
 *
 * What that means per use: rate limits, the create budget and the serving
 * abuse limits count per instance while Redis is down (they fail over to
 * local limits, not open). The lockout fails over to a per-instance lockout:
 * failures count locally, and a lock set during the outage is kept locally
 * and still holds after Redis returns (`lockedUntil` reads both).
 *
 * Each method is a plain delegation through `#use`, so a method added to
 * CounterStore is one more line here.
 */
export class ResilientCounterStore implements CounterStore {
  readonly #remote: RemoteCounterStore
  readonly #local = new MemoryCounterStore()
  readonly #log: OutageLog
  readonly #openMs: number
  #state: RedisState = 'up'
  /** performance.now() until which calls skip Redis (the circuit is open). */
  #openUntil = 0
  #probing = false

  constructor(remote: RemoteCounterStore, log: OutageLog, options: { circuitOpenMs?: number } = {}) {
    this.#remote = remote
    this.#log = log
    this.#openMs = options.circuitOpenMs ?? TIMEOUTS.redis.circuitOpenMs
  }

  /** 'down' from the first failed call until a probe succeeds again. */
  redisState(): RedisState {
    return this.#state
  }

  /** Pings Redis (when the circuit lets a call through) and answers the state after it (/readyz). */
  async probe(): Promise<RedisState> {
    await this.#use((store) => (store === this.#remote ? this.#remote.ping() : Promise.resolve()))
    return this.#state
  }

  increment(key: string, windowStartMs: number, windowMs: number): Promise<WindowCounts> {
    return this.#use((store) => store.increment(key, windowStartMs, windowMs))
  }

  peek(key: string, windowStartMs: number, windowMs: number): Promise<number> {
    return this.#use((store) => store.peek(key, windowStartMs, windowMs))
  }

  decrement(key: string, windowStartMs: number, windowMs: number): Promise<void> {
    return this.#use((store) => store.decrement(key, windowStartMs, windowMs))
  }

  logEvent(key: string, nowMs: number, windowMs: number): Promise<number> {
    return this.#use((store) => store.logEvent(key, nowMs, windowMs))
  }

  lock(key: string, untilMs: number, ttlMs: number): Promise<void> {
    return this.#use((store) => store.lock(key, untilMs, ttlMs))
  }

  /** Reserves in Redis (one script, atomic across instances); a lock this instance set while Redis was down still refuses first. */
  async reserveAttempt(logKey: string, lockKey: string, nowMs: number, windowMs: number, threshold: number, lockMs: number): Promise<AttemptReservation> {
    const local = await this.#local.lockedUntil(lockKey)
    if (local !== null && local > nowMs) return { admitted: false, lockedUntilMs: local }
    return this.#use((store) => store.reserveAttempt(logKey, lockKey, nowMs, windowMs, threshold, lockMs))
  }

  releaseAttempt(logKey: string, member: string): Promise<void> {
    return this.#use((store) => store.releaseAttempt(logKey, member))
  }

  confirmFailure(logKey: string, lockKey: string, member: string, nowMs: number, windowMs: number, threshold: number, lockMs: number): Promise<number | null> {
    return this.#use((store) => store.confirmFailure(logKey, lockKey, member, nowMs, windowMs, threshold, lockMs))
  }

  /** The later of the shared lock and a lock this instance set while Redis was down. */
  async lockedUntil(key: string): Promise<number | null> {
    const [shared, local] = await Promise.all([this.#use((store) => store.lockedUntil(key)), this.#local.lockedUntil(key)])
    if (shared === null) return local
    return local === null ? shared : Math.max(shared, local)
  }

  /** Lifts the lock in Redis and any this instance kept locally. */
  async unlock(key: string): Promise<void> {
    await this.#use((store) => store.unlock(key))
    await this.#local.unlock(key)
  }

  async close(): Promise<void> {
    await this.#remote.close()
    await this.#local.close()
  }

  async #use<T>(op: (store: CounterStore) => Promise<T>): Promise<T> {
    if (!this.#mayCallRemote()) return op(this.#local)
    const probe = this.#state === 'down'
    try {
      const value = await op(this.#remote)
      this.#recovered()
      return value
    } catch (err) {
      this.#failed(err)
      return op(this.#local)
    } finally {
      if (probe) this.#probing = false
    }
  }

  #mayCallRemote(): boolean {
    if (this.#state === 'up') return true
    if (this.#probing || performance.now() < this.#openUntil) return false
    this.#probing = true
    return true
  }

  #failed(err: unknown): void {
    this.#openUntil = performance.now() + this.#openMs
    if (this.#state === 'down') return
    this.#state = 'down'
    this.#log.warn(
      { err, circuit_open_ms: this.#openMs },
      'Redis unavailable: rate limits, the create budget, serving limits and the lockout use this instance\'s local counters until it answers again',
    )
  }

  #recovered(): void {
    if (this.#state === 'up') return
    this.#state = 'up'
    this.#log.info({}, 'Redis answers again: shared counters resumed (locks set locally during the outage still hold here)')
  }
}
