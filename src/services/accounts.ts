import { ApiError, conflict, invalid, notFound } from '../domain/errors.ts'
import { API_KEY_SECRET_LENGTH, apiKeyFromSecret } from '../domain/api-keys.ts'
import type { BalanceFacts } from '../domain/balance.ts'
import { collectionState, nextCollection } from '../domain/collection.ts'
import type { ComponentState } from '../domain/components.ts'
import type { ServiceConfig } from '../domain/order-config.ts'
import { TERMS_VERSION } from '../domain/terms.ts'
import { campaignWrites } from '../domain/access.ts'
import { approvalEmail } from '../domain/approval-email.ts'
import { newId, randomBase62 } from '../platform/ids.ts'
import type { PaymentProcessor } from '../platform/payment-processor.ts'
import { changeWriteApproval, findAccount, findAccountByEmail, insertAccount, isEmailTaken, updateAccount, type AccountRow } from '../store/accounts.ts'
import { readBalanceFacts } from '../store/balance.ts'
import { overdueInvoices, type OverdueInvoice } from '../store/billing.ts'
import { readConfig } from '../store/settings.ts'
import type { ServiceContext } from './context.ts'
import { reopenFailedAsNet30, retryCharges } from './billing/charges.ts'
import { sealApiKey } from './key-sealing.ts'
import { deliverEmail, recordEmail, type EmailContext } from './email.ts'
import { readReportingState } from './status.ts'

/** A new live key: random secret, its storage digest and display prefix. */
const generateApiKey = () => apiKeyFromSecret(randomBase62(API_KEY_SECRET_LENGTH))

/** 409 `{field: "email", reason: "email_taken", user_id}`: the address belongs to another account (compared lower-cased), named when known. */
export const emailTaken = (userId: string | undefined): ApiError =>
  conflict({ field: 'email', reason: 'email_taken', ...(userId === undefined ? {} : { user_id: userId }) })

/**
 * A new account, for the operator API, the console and self-sign-up alike.
 * One account per email, compared lower-cased (issue 34): an address in use
 * is 409 `email_taken`, naming the account that has it; the unique index of
 * migration 0034 refuses the loser of two concurrent creations the same way.
 * The key is sealed too, so its owner can reveal it in the portal
 * (services/key-sealing.ts).
 */
export async function createAccount(
  ctx: ServiceContext,
  input: { email: string; billing_email?: string },
): Promise<{ user_id: string; api_key: string }> {
  const email = input.email.trim()
  const holder = await findAccountByEmail(ctx.db, email)
  if (holder) throw emailTaken(holder.user_id)
  const now = ctx.clock.now()
  const key = generateApiKey()
  const userId = newId('usr')
  const row = {
    user_id: userId,
    email,
    billing_email: input.billing_email ?? null,
    created_at: now,
    api_key_hash: key.hash,
    key_prefix: key.prefix,
    key_created_at: now,
    api_key_sealed: await sealApiKey(ctx, userId, key.key),
  }
  try {
    await insertAccount(ctx.db, row)
  } catch (err) {
    if (!isEmailTaken(err)) throw err
    // A concurrent creation took the address between the read and the insert. Inside a caller's
    // transaction (sign-up) the failed insert aborted it, so the winner is named only outside one.
    throw emailTaken(ctx.db.isTransaction ? undefined : (await findAccountByEmail(ctx.db, email))?.user_id)
  }
  return { user_id: userId, api_key: key.key }
}

/** What GET /account shows besides the account row: balance facts, overdue invoices, live config, reporting. */
export interface AccountOverview {
  facts: BalanceFacts
  overdue: OverdueInvoice[]
  config: ServiceConfig
  reporting: ComponentState
  now: Date
}

export async function readAccountOverview(ctx: ServiceContext, userId: string): Promise<AccountOverview> {
  const now = ctx.clock.now()
  const [facts, overdue, config, reporting] = await Promise.all([
    readBalanceFacts(ctx.db, userId),
    overdueInvoices(ctx.db, userId, now),
    readConfig(ctx.db),
    readReportingState(ctx),
  ])
  return { facts, overdue, config, reporting, now }
}

export async function requireAccount(ctx: ServiceContext, userId: string): Promise<AccountRow> {
  const account = await findAccount(ctx.db, userId)
  if (!account) throw notFound('account')
  return account
}

async function change(ctx: ServiceContext, userId: string, changes: Parameters<typeof updateAccount>[2]): Promise<AccountRow> {
  if (!(await updateAccount(ctx.db, userId, changes))) throw notFound('account')
  return requireAccount(ctx, userId)
}

/**
 * Approves (or withdraws) campaign writes. The first approval emails the advertiser the next step
 * (domain/approval-email.ts): recorded in the outbox in the same transaction as the change, handed
 * to SMTP after it commits, so an approval repeated or raced sends one email.
 */
export async function setWriteApproval(ctx: EmailContext, userId: string, approved: boolean): Promise<AccountRow> {
  const email = await ctx.db.transaction().execute(async (trx) => {
    if (!(await changeWriteApproval(trx, userId, approved)) || !approved) return null
    const account = await findAccount(trx, userId)
    if (!account) return null
    const overdue = await overdueInvoices(trx, userId, ctx.clock.now())
    const writes = campaignWrites({ ...account, overdue_invoice_ids: overdue.map((i) => i.invoice_id) })
    const message = approvalEmail({ userId, writes, portalBase: ctx.settings.publicUrl })
    return recordEmail({ ...ctx, db: trx }, { to: account.email, ...message })
  })
  if (email) await deliverEmail(ctx, email)
  return requireAccount(ctx, userId)
}

/**
 * Records acceptance of the current terms version (src/domain/terms.ts) at the
 * service clock's instant, for the portal's "Accept" and the operator's terms
 * call alike. Accepting the version already accepted keeps the first record;
 * withdrawing clears version and time.
 */
export async function setTermsAccepted(ctx: ServiceContext, userId: string, accepted: boolean): Promise<AccountRow> {
  const account = await requireAccount(ctx, userId)
  if (accepted && account.terms_accepted && account.terms_version === TERMS_VERSION) return account
  return change(ctx, userId, {
    terms_accepted: accepted,
    terms_accepted_at: accepted ? ctx.clock.now() : null,
    terms_version: accepted ? TERMS_VERSION : null,
  })
}

export const setWritesEnabled = (ctx: ServiceContext, userId: string, enabled: boolean) =>
  change(ctx, userId, { writes_disabled: !enabled })

/** Issues a new key (sealed for the portal's "Reveal"); the old digest and sealed copy are overwritten, so the old key fails at once. */
export async function rotateKey(ctx: ServiceContext, userId: string): Promise<{ api_key: string }> {
  const now = ctx.clock.now()
  const key = generateApiKey()
  const sealed = await sealApiKey(ctx, userId, key.key)
  await change(ctx, userId, { api_key_hash: key.hash, key_prefix: key.prefix, key_created_at: now, key_last_used_at: null, api_key_sealed: sealed })
  return { api_key: key.key }
}

export type BillingEnrollment =
  | { mode: 'weekly_autopay' | 'legacy_semimonthly_autopay'; card_number: string; billing_country?: string }
  | { mode: 'net30_invoice'; credit_limit_cents: number; billing_country?: string }

/**
 * Enrolls billing through the payment processor. Enrolling makes collection
 * `ready` (`setup_pending` for a card whose setup the holder must still
 * authenticate); failed or held auto-pay charges are then retried on the new
 * card (or, moving to Net 30, reopened on Net 30 terms), which settles
 * `payment_failed` and `action_required` one way or the other. An operator
 * hold stays in place.
 */
export async function enrollBilling(
  ctx: ServiceContext,
  processor: PaymentProcessor,
  userId: string,
  input: BillingEnrollment,
): Promise<AccountRow> {
  await attachBilling(ctx, processor, userId, input)
  if (input.mode !== 'net30_invoice') await retryCharges({ ...ctx, processor }, userId)
  else await reopenFailedAsNet30(ctx, userId)
  return requireAccount(ctx, userId)
}

async function attachBilling(
  ctx: ServiceContext,
  processor: PaymentProcessor,
  userId: string,
  input: BillingEnrollment,
): Promise<AccountRow> {
  const account = await requireAccount(ctx, userId)
  const now = ctx.clock.now()
  const country = input.billing_country ?? account.billing_country
  // Both card modes (weekly, and the legacy semi-monthly an operator enrolls) attach the card the same way.
  if (input.mode !== 'net30_invoice') {
    const card = await processor.attachCard(input.card_number)
    if (!card) throw invalid('card_number', 'card_rejected_by_processor')
    const enrolled = nextCollection(collectionState(account), { type: 'card_enrolled', needsAuthentication: card.setupRequiresAction })
    return change(ctx, userId, {
      requested_billing_mode: input.mode,
      effective_billing_mode: input.mode,
      collection_status: enrolled.standing,
      processor_customer_id: account.processor_customer_id ?? `cus_sim_${userId}`,
      payment_method_id: card.paymentMethodId,
      card_brand: card.brand,
      card_last4: card.last4,
      credit_limit_cents: 0,
      billing_country: country,
      billing_enrolled_at: now,
    })
  }
  if (!Number.isSafeInteger(input.credit_limit_cents) || input.credit_limit_cents < 0) {
    throw new ApiError(400, { field: 'credit_limit_cents', reason: 'below_minimum', minimum: 0 })
  }
  return change(ctx, userId, {
    requested_billing_mode: 'net30_invoice',
    effective_billing_mode: 'net30_invoice',
    collection_status: nextCollection(collectionState(account), { type: 'net30_approved' }).standing,
    processor_customer_id: account.processor_customer_id ?? `cus_sim_${userId}`,
    payment_method_id: null,
    card_brand: null,
    card_last4: null,
    credit_limit_cents: input.credit_limit_cents,
    billing_country: country,
    billing_enrolled_at: now,
  })
}
