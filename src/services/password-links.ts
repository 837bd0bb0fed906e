import {
  emailKey,
  passwordProblem,
  RESET_EMAIL_WINDOW_MS,
  RESET_EMAILS_PER_WINDOW,
  RESET_LINK_MS,
  RESET_REQUEST_WINDOW_MS,
  RESET_REQUESTS_PER_SOURCE,
  resetRequestKey,
  SET_LINK_MS,
} from '../domain/sign-in.ts'
import type { MailMessage } from '../platform/mailer.ts'
import { hashPassword } from '../platform/passwords.ts'
import { findAccountByEmail, lockAccount } from '../store/accounts.ts'
import {
  consumePasswordToken,
  countPasswordLinksSince,
  deleteSubjectSessions,
  endPasswordLinks,
  findLoginByEmail,
  findLoginByUser,
  findPasswordToken,
  insertLogin,
  insertPasswordToken,
  updatePassword,
  type PasswordTokenPurpose,
} from '../store/logins.ts'
import { endEmailedLinks } from '../store/outbox.ts'
import type { ServiceContext } from './context.ts'
import { deliverEmail, recordEmail, type EmailContext } from './email.ts'
import { newToken, startSession, tokenDigest } from './sessions.ts'
import { counted, type FieldErrors, type SignInContext } from './sign-in.ts'

/**
 * Emailed one-use password links (docs/security.md (decision 0182)): "forgot
 * password", the set-password link of an account an operator made, and using a link, which sets
 * the password (or creates the login) and signs in.
 */

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
  const tokenHash = tokenDigest(token)
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
  return (await findPasswordToken(ctx.db, tokenDigest(token), ctx.clock.now()))?.purpose ?? null
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
    const link = await consumePasswordToken(trx, tokenDigest(token), now)
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
