import { isIP } from 'node:net'
import { invalid } from '../domain/errors.ts'
import { LOCKOUT_MS, LOCKOUT_SCOPES, LOCKOUT_THRESHOLD, LOCKOUT_WINDOW_MS, lockoutKeys, type LockoutScope } from '../domain/rate-limits.ts'
import type { CounterStore } from '../platform/counters.ts'
import type { ServiceContext } from './context.ts'

/**
 * The authentication lockout (domain/rate-limits.ts): LOCKOUT_THRESHOLD
 * failures from one source address within LOCKOUT_WINDOW_MS lock that
 * address out of one scope for LOCKOUT_MS. The API keys, portal sign-in,
 * console sign-in and console setup all count here, each in its own scope.
 * Counter-store failures never stop a sign-in: the lockout fails open, and
 * `onStoreError` (a logger) hears about it.
 */
export interface LockoutContext extends Pick<ServiceContext, 'clock'> {
  counters: CounterStore
}

export type StoreErrorHandler = (err: unknown) => void

async function failOpen<T>(fallback: T, op: () => Promise<T>, onStoreError?: StoreErrorHandler): Promise<T> {
  try {
    return await op()
  } catch (err) {
    onStoreError?.(err)
    return fallback
  }
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000))

/** Seconds until the address's lock on `scope` lifts, or null when it is not locked. */
export async function lockedFor(ctx: LockoutContext, scope: LockoutScope, address: string, onStoreError?: StoreErrorHandler): Promise<number | null> {
  const nowMs = ctx.clock.nowMs()
  const until = await failOpen(null, () => ctx.counters.lockedUntil(lockoutKeys(scope, address).lock), onStoreError)
  return until !== null && until > nowMs ? seconds(until - nowMs) : null
}

/** Counts one failed attempt; when it reaches the threshold the address is locked, and the lock's length in seconds is returned. */
export async function countFailure(ctx: LockoutContext, scope: LockoutScope, address: string, onStoreError?: StoreErrorHandler): Promise<number | null> {
  const nowMs = ctx.clock.nowMs()
  const keys = lockoutKeys(scope, address)
  const failures = await failOpen(0, () => ctx.counters.logEvent(keys.failures, nowMs, LOCKOUT_WINDOW_MS), onStoreError)
  if (failures < LOCKOUT_THRESHOLD) return null
  await failOpen(undefined, () => ctx.counters.lock(keys.lock, nowMs + LOCKOUT_MS, LOCKOUT_MS), onStoreError)
  return seconds(LOCKOUT_MS)
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
 * portal, console, setup) and its failures are forgotten. Answers which
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
