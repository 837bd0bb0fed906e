import { isIP } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { invalid } from '../domain/errors.ts'
import { LOCKOUT_MS, LOCKOUT_SCOPES, LOCKOUT_THRESHOLD, LOCKOUT_WINDOW_MS, lockoutKeys, type LockoutScope } from '../domain/rate-limits.ts'
import type { CounterStore } from '../platform/counters.ts'
import type { ServiceContext } from './context.ts'

/**
 * The authentication lockout (domain/rate-limits.ts): LOCKOUT_THRESHOLD
 * failures from one source address within LOCKOUT_WINDOW_MS lock that
 * address out of one scope for LOCKOUT_MS. The API keys, portal sign-in
 * (and the key Reveal), console sign-in, console setup and the operator
 * token all count here, each in its own scope (`checkUnderLockout`).
 * Counter-store failures never stop a sign-in: the lockout fails open, and
 * `onStoreError` (a logger) hears about it.
 */
export interface LockoutContext extends Pick<ServiceContext, 'clock'> {
  counters: CounterStore
}

export type StoreErrorHandler = (err: unknown) => void

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000))

/**
 * How long an attempt waits, in all, for a free place when the window is
 * full of attempts still being checked (none of them failed yet), before it
 * is refused for a second: parallel requests from one busy address with the
 * right credentials wait a little rather than being refused.
 */
export const BUSY_WAIT_MS = 1_000
const BUSY_STEP_MS = 25

/** A credential check under the lockout: what it found, or why not. `lockedForS`: this failure locked the address for that long. */
export type LockoutCheck<T> =
  | { ok: true; value: T }
  | { ok: false; reason: 'invalid'; lockedForS: number | null }
  | { ok: false; reason: 'locked'; retryAfterS: number }

/**
 * Runs `check` (a credential comparison; null or undefined: wrong) for an
 * attempt from `address` in `scope`, under the lockout rule. The attempt
 * first takes a place in the address's log atomically (CounterStore
 * `reserveAttempt`, one Redis script shared by every instance), so however
 * many attempts arrive at once at most LOCKOUT_THRESHOLD credentials are
 * checked per window; a success gives its place back, a failure keeps it,
 * and the failure that reaches the threshold still gets its own answer with
 * the lock's length. While locked, `check` is never called. A counter-store
 * failure does not stop the check (fails open; `onStoreError` hears of it).
 */
export async function checkUnderLockout<T>(
  ctx: LockoutContext,
  scope: LockoutScope,
  address: string,
  check: () => Promise<T | null | undefined>,
  onStoreError?: StoreErrorHandler,
): Promise<LockoutCheck<T>> {
  const keys = lockoutKeys(scope, address)
  const reserved = await reserve(ctx, keys, onStoreError)
  if (!reserved.admitted) return { ok: false, reason: 'locked', retryAfterS: reserved.retryAfterS }
  const reservation = reserved.member
  let value: T | null | undefined
  try {
    value = await check()
  } catch (err) {
    // The check itself failed (the store, not the credential): no failure to count.
    if (reservation !== null) await ctx.counters.releaseAttempt(keys.failures, reservation).catch((e: unknown) => onStoreError?.(e))
    throw err
  }
  if (value !== null && value !== undefined) {
    if (reservation !== null) await ctx.counters.releaseAttempt(keys.failures, reservation).catch((e: unknown) => onStoreError?.(e))
    return { ok: true, value }
  }
  if (reservation === null) return { ok: false, reason: 'invalid', lockedForS: null }
  const nowMs = ctx.clock.nowMs()
  let lockedUntil: number | null = null
  try {
    lockedUntil = await ctx.counters.confirmFailure(keys.failures, keys.lock, reservation, nowMs, LOCKOUT_WINDOW_MS, LOCKOUT_THRESHOLD, LOCKOUT_MS)
  } catch (err) {
    onStoreError?.(err)
  }
  return { ok: false, reason: 'invalid', lockedForS: lockedUntil === null ? null : seconds(lockedUntil - nowMs) }
}

/**
 * The attempt's place in the log (its member; null when the store failed and the lockout fails open), or
 * refused: locked (the lock's seconds), or still busy after BUSY_WAIT_MS (one second).
 */
async function reserve(
  ctx: LockoutContext,
  keys: { failures: string; lock: string },
  onStoreError?: StoreErrorHandler,
): Promise<{ admitted: true; member: string | null } | { admitted: false; retryAfterS: number }> {
  const started = performance.now()
  for (;;) {
    const nowMs = ctx.clock.nowMs()
    let reservation
    try {
      reservation = await ctx.counters.reserveAttempt(keys.failures, keys.lock, nowMs, LOCKOUT_WINDOW_MS, LOCKOUT_THRESHOLD, LOCKOUT_MS)
    } catch (err) {
      onStoreError?.(err)
      return { admitted: true, member: null }
    }
    if (reservation.admitted) return reservation
    if (reservation.lockedUntilMs !== null) return { admitted: false, retryAfterS: seconds(reservation.lockedUntilMs - nowMs) }
    if (performance.now() - started >= BUSY_WAIT_MS) return { admitted: false, retryAfterS: 1 }
    await sleep(BUSY_STEP_MS)
  }
}

/** What one address's lockouts look like: each scope's lock, in service time, or null. */
export type AddressLocks = Record<LockoutScope, string | null>

/** The address's locks now (an expired lock reads null). Unlike the checks above, a store failure is an error here: the operator asked. */
export async function readAddressLocks(ctx: LockoutContext, address: string): Promise<AddressLocks> {
  const nowMs = ctx.clock.nowMs()
  const entries = await Promise.all(
    LOCKOUT_SCOPES.map(async (scope) => {
      const until = await ctx.counters.lockedUntil(lockoutKeys(scope, address).lock)
      return [scope, until !== null && until > nowMs ? new Date(until).toISOString() : null] as const
    }),
  )
  return Object.fromEntries(entries) as AddressLocks
}

/** Lifts every lockout of the address and forgets its failures, so the next failure starts a new count. */
export async function liftAddressLocks(ctx: LockoutContext, address: string): Promise<void> {
  for (const scope of LOCKOUT_SCOPES) {
    const keys = lockoutKeys(scope, address)
    await ctx.counters.unlock(keys.lock)
    await ctx.counters.unlock(keys.failures)
  }
}

/**
 * An operator lifts every lockout of a source address at once (API keys,
 * portal, console, setup, operator token) and its failures are forgotten. Answers which
 * scopes were locked. The address is an IPv4 or IPv6 address as the
 * service saw it (the client address, after TRUST_PROXY).
 */
export async function unlockAddress(ctx: LockoutContext, address: string): Promise<{ address: string; lifted: LockoutScope[] }> {
  const trimmed = address.trim()
  if (isIP(trimmed) === 0) throw invalid('address', 'invalid_format')
  const locks = await readAddressLocks(ctx, trimmed)
  await liftAddressLocks(ctx, trimmed)
  return { address: trimmed, lifted: LOCKOUT_SCOPES.filter((scope) => locks[scope] !== null) }
}
