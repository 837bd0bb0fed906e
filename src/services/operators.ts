import { createHash, timingSafeEqual } from 'node:crypto'
import { emailKey, emailProblem, passwordProblem } from '../domain/sign-in.ts'
import { newId } from '../platform/ids.ts'
import { hashPassword } from '../platform/passwords.ts'
import { findOperator, findOperatorByEmail, insertFirstOperator, operatorCount } from '../store/operators.ts'
import { recordAudit } from './audit.ts'
import { operatorTarget } from './audit-targets.ts'
import { checkUnderLockout, type LockoutContext, type StoreErrorHandler } from './lockout.ts'
import type { ServiceContext } from './context.ts'
import { readSession, startSession } from './sessions.ts'
import { checkPassword, type FieldErrors, type PasswordCheck } from './sign-in.ts'

/** What the console's sign-in needs: the store, the clock, the settings (ADMIN_TOKEN) and the lockout counters. */
export type OperatorSignInContext = ServiceContext & LockoutContext

/**
 * Operators of the console (operations.md section 5): their own sign-ins
 * (email and argon2id password), sessions in the store like the portal's,
 * and the first operator made with ADMIN_TOKEN at /ops/setup, which closes
 * once an operator exists.
 */

/** Who is signed in to the console. */
export interface Operator {
  operator_id: string
  email: string
}

/** The setup is open until the first operator exists (and only with ADMIN_TOKEN set). */
export async function setupOpen(ctx: ServiceContext): Promise<boolean> {
  return ctx.settings.adminToken !== null && (await operatorCount(ctx.db)) === 0
}

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest()

/** Constant time whatever the lengths: both sides are hashed first. */
function tokenMatches(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected))
}

/** Why the operator token of a request was refused: it is wrong, or its source address is locked out of the `admin` scope. */
export type OperatorTokenCheck = { ok: true } | { ok: false; reason: 'invalid' } | { ok: false; reason: 'locked'; retryAfterS: number }

/**
 * The operator token (`Authorization: Bearer <ADMIN_TOKEN>`) of one request
 * from `address`, under the lockout rule in its own scope (`admin`): wrong
 * tokens count per address, and once the address is locked the token is not
 * compared at all. The comparison is constant-time. The operator API's hook
 * (http/plugins/admin-auth.ts) and any other route behind the token call this.
 */
export async function checkOperatorToken(
  ctx: LockoutContext,
  adminToken: string,
  presented: string,
  address: string,
  onStoreError?: StoreErrorHandler,
): Promise<OperatorTokenCheck> {
  const checked = await checkUnderLockout(ctx, 'admin', address, async () => tokenMatches(presented, adminToken) || null, onStoreError)
  if (checked.ok) return { ok: true }
  return checked.reason === 'locked' ? checked : { ok: false, reason: 'invalid' }
}

export type SetupResult =
  | { ok: true; operator: Operator; sessionToken: string }
  | { ok: false; closed: true }
  | { ok: false; closed: false; errors: FieldErrors; retryAfterS?: number }

/**
 * Creates the first operator when `token` is ADMIN_TOKEN, and signs it in.
 * Wrong tokens count per source address with the lockout rule, in a scope of
 * their own (`setup`); while it holds, even the right token is refused. Once
 * an operator exists the setup is closed (the page answers 404). The entry
 * in the audit log names the token as the actor.
 */
export async function setUpFirstOperator(
  ctx: OperatorSignInContext,
  input: { token: string; email: string; password: string },
  address: string,
): Promise<SetupResult> {
  const adminToken = ctx.settings.adminToken
  if (adminToken === null || !(await setupOpen(ctx))) return { ok: false, closed: true }
  const checked = await checkUnderLockout(ctx, 'setup', address, async () => tokenMatches(input.token, adminToken) || null)
  if (!checked.ok) {
    const retryAfterS = checked.reason === 'locked' ? checked.retryAfterS : checked.lockedForS
    if (retryAfterS !== null) return { ok: false, closed: false, errors: { form: tooMany(retryAfterS) }, retryAfterS }
    return { ok: false, closed: false, errors: { token: 'That is not the ADMIN_TOKEN this service was started with.' } }
  }
  const errors: FieldErrors = {}
  const emailError = emailProblem(input.email)
  if (emailError) errors.email = emailError
  const passwordError = passwordProblem(input.password)
  if (passwordError) errors.password = passwordError
  if (emailError || passwordError) return { ok: false, closed: false, errors }

  const now = ctx.clock.now()
  const email = input.email.trim()
  const row = {
    operator_id: newId('opr'),
    email,
    email_key: emailKey(email),
    password_hash: await hashPassword(input.password),
    created_at: now,
    password_changed_at: now,
  }
  if (!(await insertFirstOperator(ctx.db, row))) return { ok: false, closed: true }
  await recordAudit(
    { ...ctx, audit: { actor: { kind: 'token', id: null }, address } },
    { action: 'operator.setup', target: operatorTarget, targetId: row.operator_id, before: null, after: await operatorTarget.snapshot(ctx, row.operator_id) },
  )
  return { ok: true, operator: { operator_id: row.operator_id, email }, sessionToken: await startSession(ctx, 'operator', row.operator_id) }
}

function tooMany(seconds: number): string {
  return `Too many wrong tokens from your network. Try again in ${Math.ceil(seconds / 60)} minutes.`
}

/** Console sign-in: email and password with the lockout rule, in the console's own counters. */
export async function signInOperator(
  ctx: OperatorSignInContext,
  input: { email: string; password: string },
  address: string,
): Promise<{ ok: true; sessionToken: string } | Exclude<PasswordCheck<unknown>, { ok: true }>> {
  const checked = await checkPassword(ctx, 'console', () => findOperatorByEmail(ctx.db, emailKey(input.email)), input.password, address)
  if (!checked.ok) return checked
  return { ok: true, sessionToken: await startSession(ctx, 'operator', checked.login.operator_id) }
}

/** The operator of a live console session, or null. */
export async function readOperatorSession(ctx: ServiceContext, token: string | undefined): Promise<Operator | null> {
  const operatorId = await readSession(ctx, 'operator', token)
  if (operatorId === null) return null
  const operator = await findOperator(ctx.db, operatorId)
  return operator ? { operator_id: operator.operator_id, email: operator.email } : null
}
