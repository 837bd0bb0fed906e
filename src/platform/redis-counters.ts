import { Redis } from 'ioredis'
import { TIMEOUTS } from './timeouts.ts'
import { attemptMember, PENDING_ATTEMPT_MS, type AttemptReservation, type CounterStore, type WindowCounts } from './counters.ts'

/*
 * Keys: `adapi:rl:<key>:<window start>` a window's count, `adapi:log:<key>` a sliding log or an
 * attempt log (sorted set scored by time), `adapi:pending:<key>` its attempts still being checked,
 * `adapi:lock:<key>` a lock's end. Every key expires on its own (real-time TTLs).
 */

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
