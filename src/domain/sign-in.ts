import { sourceOf } from './traffic-source.ts'

/**
 * Rules of portal sign-in (operations.md section 5;
 * docs/decisions/0179-logins-portal-sessions.md, 0180-lockout-portal-sessions.md). Plain values: the services apply them, the store keeps them.
 */

/** A password is at least this many characters (operations.md section 5). */
export const PASSWORD_MIN_LENGTH = 12
/** Longer passwords are refused: argon2 would hash them, but nobody types 256 characters. */
export const PASSWORD_MAX_LENGTH = 256

/** A session ends this long after its last use... */
export const SESSION_IDLE_MS = 12 * 60 * 60_000
/** ...and at most this long after sign-in, however active. */
export const SESSION_MAX_MS = 7 * 24 * 60 * 60_000
/** A session's idle deadline is pushed forward at most once per this interval (one write per minute, not per page). */
export const SESSION_TOUCH_MS = 60_000

/** An emailed reset link works for one hour; a set-password link for an operator-made account, seven days. */
export const RESET_LINK_MS = 60 * 60_000
export const SET_LINK_MS = 7 * 24 * 60 * 60_000

/**
 * Reset emails (issue 34): at most RESET_EMAILS_PER_WINDOW to one account within any
 * RESET_EMAIL_WINDOW_MS. Counted from the account's reset links in the store, which are kept
 * until they expire, so the window must not outlast a reset link. A request beyond the limit
 * answers like any other (the form does not tell who has an account); no email is sent.
 */
export const RESET_EMAILS_PER_WINDOW = 3
export const RESET_EMAIL_WINDOW_MS = RESET_LINK_MS

/** "Forgot password" requests per source (an IPv4 address or IPv6 /64) per hour, for any addresses: beyond, 429. */
export const RESET_REQUESTS_PER_SOURCE = 10
export const RESET_REQUEST_WINDOW_MS = 60 * 60_000

/** The counter key of one source's reset requests (platform/counters.ts `logEvent`). */
export function resetRequestKey(address: string): string {
  return `reset-request:${sourceOf(address)}`
}

/** The counter key of one source's portal sign-ups (platform/counters.ts `logEvent`). */
export function signUpKey(address: string): string {
  return `signup:${sourceOf(address)}`
}

/** The form of an email used for comparison: trimmed, lower-cased. */
export function emailKey(email: string): string {
  return email.trim().toLowerCase()
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** Why an email cannot be used to sign up, or null. */
export function emailProblem(email: string): string | null {
  const e = email.trim()
  if (e === '') return 'Enter your email address.'
  if (e.length > 254 || !EMAIL_RE.test(e)) return 'Enter an email address like name@example.com.'
  return null
}

/** Why a new password is refused, or null. Counted in code points, so an emoji is one character. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length
  if (length < PASSWORD_MIN_LENGTH) return `Use at least ${PASSWORD_MIN_LENGTH} characters.`
  if (length > PASSWORD_MAX_LENGTH) return `Use at most ${PASSWORD_MAX_LENGTH} characters.`
  return null
}

/** The deadlines of a session started at `now`. */
export function newSessionDeadlines(now: Date): { idle_expires_at: Date; expires_at: Date } {
  return { idle_expires_at: new Date(now.getTime() + SESSION_IDLE_MS), expires_at: new Date(now.getTime() + SESSION_MAX_MS) }
}

/** Whether a session is still valid at `now`. */
export function sessionLive(session: { idle_expires_at: Date; expires_at: Date }, now: Date): boolean {
  return now < session.idle_expires_at && now < session.expires_at
}

/** The new idle deadline when a session is used at `now`, or null when the stored one is recent enough. */
export function touchedIdleDeadline(session: { idle_expires_at: Date; expires_at: Date }, now: Date): Date | null {
  const next = Math.min(now.getTime() + SESSION_IDLE_MS, session.expires_at.getTime())
  return next - session.idle_expires_at.getTime() >= SESSION_TOUCH_MS ? new Date(next) : null
}
