import { randomBytes } from 'node:crypto'

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

/** A unique entry of an attempt log, ordered by its time. */
export const attemptMember = (nowMs: number) => `${nowMs}:${randomBytes(6).toString('hex')}`

// The two stores: memory-counters.ts (one instance, bounded memory) and redis-counters.ts (shared by
// every instance); resilient-counters.ts puts the second in front of the first when Redis fails.
