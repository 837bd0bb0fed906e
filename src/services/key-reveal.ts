import { requireAccount, rotateKey } from './accounts.ts'
import { keyRevealable, openApiKey } from './key-sealing.ts'
import type { ServiceContext } from './context.ts'
import { findLoginByUser } from '../store/logins.ts'
import type { LockoutContext } from './lockout.ts'
import { checkPassword, type PasswordRefusal } from './sign-in.ts'

/**
 * The portal's "Reveal" and "Rotate" (operations.md section 5: the key page
 * asks for the password again). The password is re-checked under the sign-in
 * lockout, so guesses here count toward the same limit as guesses at the
 * sign-in form, and while the address is locked even the right one is refused.
 */
export type RevealResult = { ok: true; apiKey: string } | { ok: false; reason: 'not_revealable' } | PasswordRefusal

export async function revealApiKey(ctx: ServiceContext & LockoutContext, userId: string, password: string, address: string): Promise<RevealResult> {
  const account = await requireAccount(ctx, userId)
  // A key issued before keys were sealed (or sealed under a key this instance no longer has) can only be rotated.
  if (!(await keyRevealable(ctx, account))) return { ok: false, reason: 'not_revealable' }
  const checked = await checkPassword(ctx, 'portal', () => findLoginByUser(ctx.db, userId), password, address)
  if (!checked.ok) return checked
  const apiKey = await openApiKey(ctx, account)
  return apiKey === null ? { ok: false, reason: 'not_revealable' } : { ok: true, apiKey }
}

export type RotateResult = { ok: true; apiKey: string } | PasswordRefusal

/**
 * The portal's "Rotate": the password again (issue 34: a stolen session alone
 * cannot swap the key and lock its owner's programs out), then the rotation
 * the operator API makes (services/accounts.ts#rotateKey). A refused password
 * rotates nothing.
 */
export async function rotateOwnApiKey(ctx: ServiceContext & LockoutContext, userId: string, password: string, address: string): Promise<RotateResult> {
  const checked = await checkPassword(ctx, 'portal', () => findLoginByUser(ctx.db, userId), password, address)
  if (!checked.ok) return checked
  return { ok: true, apiKey: (await rotateKey(ctx, userId)).api_key }
}
