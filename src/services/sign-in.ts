import { createHash, randomBytes } from 'node:crypto'
import type { LockoutScope } from '../domain/rate-limits.ts'
import {
  emailKey,
  emailProblem,
  newSessionDeadlines,
  passwordProblem,
  RESET_EMAIL_WINDOW_MS,
  RESET_EMAILS_PER_WINDOW,
  RESET_LINK_MS,
  RESET_REQUEST_WINDOW_MS,
  RESET_REQUESTS_PER_SOURCE,
  resetRequestKey,
  sessionLive,
  SET_LINK_MS,
  touchedIdleDeadline,
} from '../domain/sign-in.ts'
import type { CounterStore } from '../platform/counters.ts'
import type { MailMessage } from '../platform/mailer.ts'
import { hashPassword, passwordMatches } from '../platform/passwords.ts'
import { ApiError } from '../domain/errors.ts'
import { findAccountByEmail, lockAccount } from '../store/accounts.ts'
import {
  consumePasswordToken,
  countPasswordLinksSince,
  deleteSession,
  deleteSubjectSessions,
  endPasswordLinks,
  findLoginByEmail,
  findLoginByUser,
  findPasswordToken,
  findSession,
  insertLogin,
  insertPasswordToken,
  insertSession,
  touchSession,
  updatePassword,
  type PasswordTokenPurpose,
  type SessionSubjectKind,
} from '../store/logins.ts'
import { endEmailedLinks } from '../store/outbox.ts'
import { createAccount, emailTaken } from './accounts.ts'
import { checkUnderLockout, type LockoutContext } from './lockout.ts'
import type { ServiceContext } from './context.ts'
import { deliverEmail, recordEmail, sendEmail, type EmailContext } from './email.ts'

/**
 * Portal sign-in (operations.md section 5;
 * docs/decisions/0179-logins-portal-sessions.md to 0185): sign-up, sign-in with the API's lockout rule, sessions kept in
 * the store, and emailed one-use password links.
 */
export interface SignInContext extends EmailContext {
  counters: CounterStore
}

/** Messages to show next to the form fields that caused them. */
export type FieldErrors = Partial<Record<string, string>>

/** Sign-ups per source address per hour. */
export const SIGNUPS_PER_HOUR = 10

const sha256 = (token: string) => createHash('sha256').update(token, 'utf8').digest()
const newToken = () => randomBytes(32).toString('base64url')

/** Counter-store failures must not stop sign-in: the limits fail open, like the API's. */
async function counted<T>(fallback: T, op: () => Promise<T>): Promise<T> {
  try {
    return await op()
  } catch {
    return fallback
  }
}

// ---------------------------------------------------------------------------------------------- sessions

/** Starts a session for a subject and returns the cookie's token (only its digest is stored). */
export async function startSession(ctx: ServiceContext, kind: SessionSubjectKind, subjectId: string): Promise<string> {
  const token = newToken()
  const now = ctx.clock.now()
  await insertSession(ctx.db, { token_hash: sha256(token), subject_kind: kind, subject_id: subjectId, created_at: now, ...newSessionDeadlines(now) })
  return token
}

/** The subject of a live session, pushing its idle deadline forward; null when unknown or ended. */
export async function readSession(ctx: ServiceContext, kind: SessionSubjectKind, token: string | undefined): Promise<string | null> {
  if (!token || token.length > 100) return null
  const hash = sha256(token)
  const session = await findSession(ctx.db, hash, kind)
  const now = ctx.clock.now()
  if (!session || !sessionLive(session, now)) return null
  const idle = touchedIdleDeadline(session, now)
  if (idle) await touchSession(ctx.db, hash, idle)
  return session.subject_id
}

export async function endSession(ctx: ServiceContext, token: string | undefined): Promise<void> {
  if (token && token.length <= 100) await deleteSession(ctx.db, sha256(token))
}

// ---------------------------------------------------------------------------------------------- sign-up and sign-in

export type SignUpResult = { ok: true; userId: string; sessionToken: string } | { ok: false; errors: FieldErrors; retryAfterS?: number }

/** Self-serve sign-up: an account like the operator API makes, its login, and a session. Writes still wait for approval. */
export async function signUp(ctx: SignInContext, input: { email: string; password: string }, address: string): Promise<SignUpResult> {
  const errors: FieldErrors = {}
  const emailError = emailProblem(input.email)
  if (emailError) errors.email = emailError
  const passwordError = passwordProblem(input.password)
  if (passwordError) errors.password = passwordError
  if (emailError || passwordError) return { ok: false, errors }

  const nowMs = ctx.clock.nowMs()
  const recent = await counted(0, () => ctx.counters.logEvent(`signup:${address}`, nowMs, 60 * 60_000))
  if (recent > SIGNUPS_PER_HOUR) {
    return { ok: false, errors: { form: 'Too many sign-ups from this address. Try again in an hour.' }, retryAfterS: 3600 }
  }
  const key = emailKey(input.email)
  const email = input.email.trim()
  // An address in use, by a login or by an account whose owner has not set a password yet (an
  // operator-made one), compared lower-cased: one answer for both, the one sign-up always gave.
  const taken = { ok: false, errors: { email: 'An account with this email already exists. Sign in, or reset its password.' } } as const
  if ((await findLoginByEmail(ctx.db, key)) || (await findAccountByEmail(ctx.db, email))) return taken
  const passwordHash = await hashPassword(input.password)
  let created: { user_id: string }
  try {
    created = await ctx.db.transaction().execute(async (trx) => {
      const account = await createAccount({ ...ctx, db: trx }, { email })
      const inserted = await insertLogin(trx, { email_key: key, user_id: account.user_id, password_hash: passwordHash, password_changed_at: ctx.clock.now() })
      // The login's address is taken after all: no account without its login is left behind.
      if (!inserted) throw emailTaken(undefined)
      return account
    })
  } catch (err) {
    // A concurrent creation took the address (services/accounts.ts#createAccount): the same answer.
    if (err instanceof ApiError && err.status === 409) return taken
    throw err
  }
  const sessionToken = await startSession(ctx, 'advertiser', created.user_id)
  await sendWelcome(ctx, created.user_id, email)
  return { ok: true, userId: created.user_id, sessionToken }
}

/**
 * The sign-up email (operations.md section 1: sign-up, reset and invoice
 * emails go out through SMTP_URL): the user id and what still waits, so the
 * owner of the address learns of an account opened in its name.
 */
async function sendWelcome(ctx: EmailContext, userId: string, email: string): Promise<void> {
  await sendEmail(ctx, {
    to: email,
    subject: 'Your advertiser account was created',
    text: [
      'Welcome! An advertiser account was opened with this email address.',
      '',
      `Your user id: ${userId}`,
      `Sign in: ${ctx.settings.publicUrl}/portal/login`,
      '',
      'We review new accounts within one business day; campaign writes wait for that approval.',
      'Meanwhile you can accept the API terms and set up billing in the portal.',
      '',
      `If you did not sign up, reset the password (${ctx.settings.publicUrl}/portal/forgot-password) and tell us.`,
    ].join('\n'),
  })
}

/** Why a password check under the lockout failed: it did not match, or the source address is locked out. */
export type PasswordRefusal = { ok: false; reason: 'invalid' } | { ok: false; reason: 'locked'; retryAfterS: number }

export type SignInResult = { ok: true; userId: string; sessionToken: string } | PasswordRefusal

/** A password check under the lockout: the login it matched, or why not. */
export type PasswordCheck<L> = { ok: true; login: L } | PasswordRefusal

/**
 * Email and password against a login found by `find`, under the lockout of
 * `scope` (domain/rate-limits.ts): failures count per source address with
 * the API's rule, and while the address is locked even the right password is
 * refused. Unknown emails cost the same argon2 check as known ones. The
 * portal's and the console's sign-ins both come through here.
 */
export async function checkPassword<L extends { password_hash: string }>(
  ctx: ServiceContext & LockoutContext,
  scope: LockoutScope,
  find: () => Promise<L | undefined>,
  password: string,
  address: string,
): Promise<PasswordCheck<L>> {
  const checked = await checkUnderLockout(ctx, scope, address, async () => {
    const login = await find()
    return (await passwordMatches(password, login?.password_hash ?? null)) && login ? login : null
  })
  if (checked.ok) return { ok: true, login: checked.value }
  if (checked.reason === 'locked') return checked
  return checked.lockedForS === null ? { ok: false, reason: 'invalid' } : { ok: false, reason: 'locked', retryAfterS: checked.lockedForS }
}

/** Portal sign-in: email and password, with the portal's own lockout counters (`checkPassword`). */
export async function signIn(ctx: SignInContext, input: { email: string; password: string }, address: string): Promise<SignInResult> {
  const checked = await checkPassword(ctx, 'portal', () => findLoginByEmail(ctx.db, emailKey(input.email)), input.password, address)
  if (!checked.ok) return checked
  return { ok: true, userId: checked.login.user_id, sessionToken: await startSession(ctx, 'advertiser', checked.login.user_id) }
}


// ---------------------------------------------------------------------------------------------- emailed password links

function passwordLink(ctx: ServiceContext, token: string): string {
  return `${ctx.settings.publicUrl}/portal/reset-password?token=${encodeURIComponent(token)}`
}

/**
 * Emails the account a new password link of `purpose` (issue 34), in one transaction under the
 * account's row lock: a reset beyond RESET_EMAILS_PER_WINDOW in the window sends nothing (false);
 * otherwise the account's earlier live links of that purpose end ("replaced"), the new token is
 * stored and its message recorded in the outbox with the link sealed apart. SMTP after commit.
 */
async function emailPasswordLink(
  ctx: EmailContext,
  userId: string,
  purpose: PasswordTokenPurpose,
  compose: (link: string) => Omit<MailMessage, 'to'>,
): Promise<boolean> {
  const token = newToken()
  const tokenHash = sha256(token)
  const url = passwordLink(ctx, token)
  const now = ctx.clock.now()
  const expiresAt = new Date(now.getTime() + (purpose === 'reset' ? RESET_LINK_MS : SET_LINK_MS))
  const recorded = await ctx.db.transaction().execute(async (trx) => {
    const account = await lockAccount(trx, userId)
    if (!account) return null
    if (purpose === 'reset') {
      const sent = await countPasswordLinksSince(trx, userId, 'reset', new Date(now.getTime() - RESET_EMAIL_WINDOW_MS))
      if (sent >= RESET_EMAILS_PER_WINDOW) return null
    }
    await endPasswordLinks(trx, userId, now, 'replaced', purpose)
    await insertPasswordToken(trx, { token_hash: tokenHash, user_id: userId, purpose, email: account.email, created_at: now, expires_at: expiresAt })
    return recordEmail({ ...ctx, db: trx }, { to: account.email, ...compose(url) }, { url, tokenHash, expiresAt })
  })
  if (!recorded) return false
  await deliverEmail(ctx, recorded)
  return true
}

/** A "forgot password" request refused for its source (too many from it this hour), whatever the address. */
export type ResetRequestResult = { ok: true } | { ok: false; retryAfterS: number }

/**
 * "Forgot password": emails a one-hour reset link when the address has a login (or, for an
 * operator-made account without one, a one-hour link that sets its first password), at most
 * RESET_EMAILS_PER_WINDOW an hour, the newest link replacing the earlier ones. Whether the
 * address has a login, or is over its limit, the answer is the same `ok`, so the form does not
 * tell who has an account. Each source may ask RESET_REQUESTS_PER_SOURCE times an hour (counted
 * like sign-ups, failing open), for any addresses; beyond, the request is refused before any look-up.
 */
export async function requestPasswordReset(ctx: SignInContext, email: string, address: string): Promise<ResetRequestResult> {
  const recent = await counted(0, () => ctx.counters.logEvent(resetRequestKey(address), ctx.clock.nowMs(), RESET_REQUEST_WINDOW_MS))
  if (recent > RESET_REQUESTS_PER_SOURCE) return { ok: false, retryAfterS: RESET_REQUEST_WINDOW_MS / 1000 }
  const login = await findLoginByEmail(ctx.db, emailKey(email))
  if (login) {
    await emailPasswordLink(ctx, login.user_id, 'reset', (link) => ({
      subject: 'Reset your password',
      text: [
        'Someone asked to reset the password of your advertiser account.',
        '',
        `Set a new password here (the link works once, for one hour): ${link}`,
        'A newer reset link replaces this one.',
        '',
        'If it was not you, ignore this email: your password stays as it is.',
      ].join('\n'),
    }))
    return { ok: true }
  }
  // An account an operator made whose owner never set a password (its set-password email lost or
  // expired): the same form sends a one-hour link that creates the login, within the same limits.
  const account = await findAccountByEmail(ctx.db, email)
  if (!account || (await findLoginByUser(ctx.db, account.user_id))) return { ok: true }
  await emailPasswordLink(ctx, account.user_id, 'reset', (link) => ({
    subject: 'Set the password of your advertiser account',
    text: [
      'Someone asked for a password link for your advertiser account, which has no password yet.',
      '',
      `Set its password here (the link works once, for one hour): ${link}`,
      'A newer link replaces this one.',
      '',
      'If it was not you, ignore this email.',
    ].join('\n'),
  }))
  return { ok: true }
}

/** An account an operator made: emails a seven-day link to set the password of its portal login (replacing an earlier one). */
export async function sendSetPasswordLink(ctx: EmailContext, userId: string): Promise<void> {
  await emailPasswordLink(ctx, userId, 'set', (link) => ({
    subject: 'Your advertiser account is ready: set your password',
    text: [
      'An advertiser account was opened for you.',
      '',
      `Your user id: ${userId}`,
      `Set the password of your portal sign-in here (the link works once, for seven days): ${link}`,
      '',
      'In the portal you can accept the API terms, enroll billing, see and rotate your API key, and run campaigns.',
    ].join('\n'),
  }))
}

/** What an emailed link is for, or null when it is unknown, used or expired. */
export async function readPasswordLink(ctx: ServiceContext, token: string): Promise<PasswordTokenPurpose | null> {
  if (token.length === 0 || token.length > 100) return null
  return (await findPasswordToken(ctx.db, sha256(token), ctx.clock.now()))?.purpose ?? null
}

export type SetPasswordResult = { ok: true; sessionToken: string } | { ok: false; errors: FieldErrors }

/**
 * Uses an emailed link: sets the password (a reset) or creates the login (an
 * operator-made account), ends every other link and every session of the
 * account, and signs in. The used link's stored copy is removed ("used").
 */
export async function setPasswordFromLink(ctx: ServiceContext, token: string, password: string): Promise<SetPasswordResult> {
  const problem = passwordProblem(password)
  if (problem) return { ok: false, errors: { password: problem } }
  const expired = { ok: false, errors: { form: 'This link has expired or was already used. Ask for a new one.' } } as const
  if (token.length === 0 || token.length > 100) return expired
  const passwordHash = await hashPassword(password)
  const now = ctx.clock.now()
  type Outcome = { kind: 'ok'; userId: string } | { kind: 'expired' } | { kind: 'taken' }
  const outcome = await ctx.db.transaction().execute(async (trx): Promise<Outcome> => {
    const link = await consumePasswordToken(trx, sha256(token), now)
    if (!link) return { kind: 'expired' }
    await endEmailedLinks(trx, [link.token_hash], 'used')
    if (await findLoginByUser(trx, link.user_id)) {
      // Ends every other outstanding link of the account too, reset and set-password (store/logins.ts).
      await updatePassword(trx, link.user_id, passwordHash, now)
    } else if (await insertLogin(trx, { email_key: emailKey(link.email), user_id: link.user_id, password_hash: passwordHash, password_changed_at: now })) {
      await endPasswordLinks(trx, link.user_id, now, 'password_changed')
    } else {
      return { kind: 'taken' }
    }
    await deleteSubjectSessions(trx, 'advertiser', link.user_id)
    return { kind: 'ok', userId: link.user_id }
  })
  if (outcome.kind === 'expired') return expired
  if (outcome.kind === 'taken') return { ok: false, errors: { form: 'Another account already signs in with this email. Ask an operator to change this account’s email.' } }
  return { ok: true, sessionToken: await startSession(ctx, 'advertiser', outcome.userId) }
}
