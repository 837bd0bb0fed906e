/**
 * Retries, in one place. A 429 or a 503 that says when to come back (`Retry-After`, or the
 * RateLimit header's `t=`) is retried after that long, with exponential backoff and jitter as a
 * floor, up to `maxRetries` times and never waiting longer than `maxDelayMs` at once (a longer
 * wait, such as an authentication lockout, is returned to the caller at once). A 503 without
 * `Retry-After` is the service saying "not accepting orders; do not retry in a loop": returned at
 * once. A request that got no answer (network error, timeout) is retried only when repeating it is
 * safe: reads, and writes that carry an idempotency key.
 */
export interface RetryOptions {
  /** Retries after the first attempt (default 3; 0 turns retrying off). */
  maxRetries?: number
  /** The longest single wait (default 30 s). */
  maxDelayMs?: number
  /** The backoff floor of the first retry, doubled each time (default 500 ms). */
  baseDelayMs?: number
}

export interface RetryPolicy {
  maxRetries: number
  maxDelayMs: number
  baseDelayMs: number
}

export function retryPolicy(o: RetryOptions = {}): RetryPolicy {
  return { maxRetries: o.maxRetries ?? 3, maxDelayMs: o.maxDelayMs ?? 30_000, baseDelayMs: o.baseDelayMs ?? 500 }
}

/** Seconds from `Retry-After` (delta-seconds or an HTTP date), else from the RateLimit header's `t=`. */
export function retryAfterSeconds(headers: Headers, nowMs: number): number | null {
  const value = headers.get('retry-after')
  if (value !== null && value.trim() !== '') {
    const seconds = Number(value)
    if (Number.isFinite(seconds) && seconds >= 0) return seconds
    const at = Date.parse(value)
    if (Number.isFinite(at)) return Math.max(0, (at - nowMs) / 1000)
  }
  const t = /(?:^|;)\s*t=(\d+)/.exec(headers.get('ratelimit') ?? '')
  return t?.[1] === undefined ? null : Number(t[1])
}

/** How long to wait before attempt `attempt` (1 = the first retry): the service's wait, floored by the backoff. */
export function retryDelayMs(policy: RetryPolicy, attempt: number, serviceWaitS: number | null, random: () => number = Math.random): number {
  const backoff = policy.baseDelayMs * 2 ** (attempt - 1)
  const jittered = backoff / 2 + random() * (backoff / 2)
  return Math.max(jittered, (serviceWaitS ?? 0) * 1000)
}

/** Whether an answer is worth another attempt, and after how long; null when it is final. */
export function retryAfterAnswer(policy: RetryPolicy, attempt: number, response: Response, nowMs: number): number | null {
  if (attempt > policy.maxRetries) return null
  if (response.status !== 429 && response.status !== 503) return null
  const wait = retryAfterSeconds(response.headers, nowMs)
  if (response.status === 503 && response.headers.get('retry-after') === null) return null
  const delay = retryDelayMs(policy, attempt, wait)
  return delay > policy.maxDelayMs ? null : delay
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
