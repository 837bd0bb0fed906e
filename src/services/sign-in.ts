import type { LockoutScope } from '../domain/rate-limits.ts'
import { emailKey, emailProblem, passwordProblem, signUpKey } from '../domain/sign-in.ts'
import type { CounterStore } from '../platform/counters.ts'
import { hashPassword, passwordMatches } from '../platform/passwords.ts'
import { ApiError } from '../domain/errors.ts'
import { findAccountByEmail } from '../store/accounts.ts'
import { findLoginByEmail, insertLogin } from '../store/logins.ts'
import { createAccount, emailTaken } from './accounts.ts'
import { checkUnderLockout, type LockoutContext } from './lockout.ts'
import type { ServiceContext } from './context.ts'
import { sendEmail, type EmailContext } from './email.ts'
import { startSession } from './sessions.ts'

/**
 * Portal sign-in (operations.md section 5;
 * docs/decisions/0179-logins-portal-sessions.md to 0185): sign-up, and sign-in with the API's
 * lockout rule. The sessions they start are sessions.ts's; emailed one-use password links are
 * password-links.ts's.
 */
export interface SignInContext extends EmailContext {
  counters: CounterStore
}

/** Messages to show next to the form fields that caused them. */
export type FieldErrors = Partial<Record<string, string>>

/** Sign-ups per source address per hour. */
export const SIGNUPS_PER_HOUR = 10

/** Counter-store failures must not stop sign-in: the limits fail open, like the API's. */
export async function counted<T>(fallback: T, op: () => Promise<T>): Promise<T> {
  try {
    return await op()
  } catch {
    return fallback
  }
}

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
  const recent = await counted(0, () => ctx.counters.logEvent(signUpKey(address), nowMs, 60 * 60_000))
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
      'We review new accounts within one business day and email you when yours is approved; campaign writes wait for that approval.',
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
