import { conflict, notFound } from '../domain/errors.ts'
import { AUTOPAY_MODES, BILLING_MODES, dueDate, lastRun, modesDueAt, type BillingMode } from '../domain/billing-schedule.ts'
import { chargesHeld, collectionState } from '../domain/collection.ts'
import { invoiceFigures } from '../domain/invoicing.ts'
import { newId } from '../platform/ids.ts'
import type { ChargeResult, PaymentProcessor } from '../platform/payment-processor.ts'
import { findAccount, lockAccount } from '../store/accounts.ts'
import {
  accountsInMode,
  availableCreditsCents,
  findInvoice,
  findInvoiceForPeriod,
  insertCredit,
  insertInvoice,
  invoicedTotals,
  invoicesAwaitingAction,
  invoicesWithStatus,
  lockDeliveredMicros,
  recordBillingEvent,
  reopenUnpaidAsNet30,
  unchargedAutopayInvoices,
  updateInvoice,
  type CreditRow,
  type InvoiceRow,
} from '../store/billing.ts'
import type { Db } from '../store/db.ts'
import { reconcileStanding } from './collection.ts'
import type { ServiceContext } from './context.ts'

export interface BillingContext extends ServiceContext {
  processor: PaymentProcessor
}

/**
 * Finalizes the invoice of one account for the period ending at `periodEnd`:
 * the value delivered before `periodEnd` and not yet invoiced, minus posted
 * credits. The amount is cumulative (delivered before the end − already
 * invoiced), so a run that starts late, or a ledger batch that commits after
 * the run, never counts a micro twice nor loses one: deliveries after the end
 * wait for the next period. The period starts where the previous invoice
 * ended, so periods tile. Idempotent by period (one invoice per account and
 * period end); returns null when the period is already invoiced or there is
 * nothing to invoice (the delivered value then carries into the next period).
 */
export async function finalizeInvoice(ctx: ServiceContext, userId: string, mode: BillingMode, periodEnd: Date): Promise<InvoiceRow | null> {
  return ctx.db.transaction().execute(async (trx) => {
    const account = await lockAccount(trx, userId)
    // Only accounts on this cadence when the period ended belong to it.
    if (!account || account.effective_billing_mode !== mode) return null
    if (!account.billing_enrolled_at || account.billing_enrolled_at >= periodEnd) return null
    if (await findInvoiceForPeriod(trx, userId, periodEnd)) return null
    const prior = await invoicedTotals(trx, userId)
    if (prior.lastPeriodEnd && prior.lastPeriodEnd >= periodEnd) return null
    const delivered = await lockDeliveredMicros(trx, userId, periodEnd)
    const figures = invoiceFigures({
      priorInvoicedMicros: prior.micros,
      priorInvoicedCents: prior.cents,
      newDeliveredMicros: delivered - prior.micros,
      availableCreditsCents: await availableCreditsCents(trx, userId),
    })
    // Nothing to bill yet: the delivered micros carry into the next period.
    if (figures.amountCents === 0) return null
    const now = ctx.clock.now()
    const invoice: InvoiceRow = {
      invoice_id: newId('inv'),
      user_id: userId,
      billing_mode: mode,
      period_start: prior.lastPeriodEnd ?? account.created_at,
      period_end: periodEnd,
      delivered_micros: delivered - prior.micros,
      amount_cents: figures.amountCents,
      credits_applied_cents: figures.creditsAppliedCents,
      total_cents: figures.totalCents,
      // Fully credited invoices are settled at once.
      status: figures.totalCents === 0 ? 'paid' : 'open',
      finalized_at: now,
      due_at: dueDate(mode, periodEnd),
      paid_at: figures.totalCents === 0 ? now : null,
      charge_attempts: 0,
      pending_charge_id: null,
    }
    await insertInvoice(trx, invoice)
    const base = { user_id: userId, occurred_at: now, invoice_id: invoice.invoice_id }
    await recordBillingEvent(trx, {
      ...base,
      event_type: 'invoice_finalized',
      amount_cents: invoice.amount_cents,
      detail: { period_end: periodEnd.toISOString(), delivered_micros: invoice.delivered_micros },
    })
    if (invoice.credits_applied_cents > 0) {
      await recordBillingEvent(trx, { ...base, event_type: 'credit_applied', amount_cents: invoice.credits_applied_cents })
    }
    return invoice
  })
}

/**
 * Charges an auto-pay invoice through the processor (outside any
 * transaction), then records the outcome. A decline puts the account in
 * `payment_failed` (writes 402, its campaigns stop serving); a charge the
 * processor holds for the card holder's authentication puts it in
 * `action_required`. Nothing is charged while an operator holds collection,
 * nor again while a held charge waits for the holder.
 */
export async function chargeInvoice(ctx: BillingContext, invoiceId: string): Promise<InvoiceRow> {
  const attempt = await ctx.db.transaction().execute(async (trx) => {
    const invoice = await findInvoice(trx, invoiceId, true)
    if (!invoice) throw notFound('invoice')
    if (invoice.status === 'paid' || invoice.status === 'void' || invoice.pending_charge_id !== null) return null
    const account = await findAccount(trx, invoice.user_id)
    if (!account || chargesHeld(collectionState(account))) return null
    const attempts = invoice.charge_attempts + 1
    await updateInvoice(trx, invoiceId, { charge_attempts: attempts })
    await recordBillingEvent(trx, {
      user_id: invoice.user_id,
      occurred_at: ctx.clock.now(),
      event_type: 'charge_attempted',
      invoice_id: invoiceId,
      amount_cents: invoice.total_cents,
      detail: { attempt: attempts },
    })
    return { invoice, attempts, paymentMethod: account.payment_method_id }
  })
  if (!attempt) return (await findInvoice(ctx.db, invoiceId))!
  const result: ChargeResult = attempt.paymentMethod
    ? await ctx.processor.charge(attempt.paymentMethod, attempt.invoice.total_cents, `${invoiceId}:${attempt.attempts}`)
    : { status: 'failed', code: 'no_payment_method' }
  return recordChargeOutcome(ctx, attempt.invoice, result)
}

const CHARGE_EVENT: Record<ChargeResult['status'], string> = {
  succeeded: 'charge_succeeded',
  failed: 'charge_failed',
  requires_action: 'charge_requires_action',
}

/** Records what the processor answered for an invoice's charge, and moves the account's standing with it. */
async function recordChargeOutcome(ctx: ServiceContext, invoice: InvoiceRow, result: ChargeResult): Promise<InvoiceRow> {
  return ctx.db.transaction().execute(async (trx) => {
    const now = ctx.clock.now()
    const userId = invoice.user_id
    await lockAccount(trx, userId)
    const current = await findInvoice(trx, invoice.invoice_id, true)
    // Paid or voided by an operator while the processor answered: the outcome changes nothing.
    if (current && current.status !== 'paid' && current.status !== 'void') {
      if (result.status === 'succeeded') await updateInvoice(trx, invoice.invoice_id, { status: 'paid', paid_at: now, pending_charge_id: null })
      else if (result.status === 'requires_action') await updateInvoice(trx, invoice.invoice_id, { status: 'open', pending_charge_id: result.chargeId })
      else await updateInvoice(trx, invoice.invoice_id, { status: 'payment_failed', pending_charge_id: null })
    }
    await recordBillingEvent(trx, {
      user_id: userId,
      occurred_at: now,
      event_type: CHARGE_EVENT[result.status],
      invoice_id: invoice.invoice_id,
      amount_cents: invoice.total_cents,
      detail: result.status === 'failed' ? { code: result.code } : { charge_id: result.chargeId },
    })
    await reconcileStanding(trx, userId)
    return (await findInvoice(trx, invoice.invoice_id))!
  })
}

/** The card holder authenticated: the processor completes every charge it held for them. */
export async function completeHeldCharges(ctx: BillingContext, userId: string): Promise<number> {
  const held = await invoicesAwaitingAction(ctx.db, userId)
  for (const invoice of held) {
    if (invoice.pending_charge_id) await recordChargeOutcome(ctx, invoice, await ctx.processor.confirmCharge(invoice.pending_charge_id))
  }
  return held.length
}

/**
 * One scheduled invoicing occurrence at `at` (an instant of at least one
 * cadence): for each mode whose cadence has an instant at `at`, finalize the
 * period ending at `at` of every account on that mode, then charge auto-pay
 * invoices not yet charged. Other cadences are untouched, so an account is
 * only ever invoiced at its own cadence's instants.
 */
export async function runInvoicingOccurrence(ctx: BillingContext, at: Date): Promise<Record<string, number | string>> {
  const finalized = await finalizePeriods(ctx, modesDueAt(at).map((mode) => ({ mode, periodEnd: at })))
  return { due_at: at.toISOString(), invoices_finalized: finalized, ...(await chargeUncharged(ctx)) }
}

/**
 * An on-demand run (`POST /admin/v1/jobs/invoicing/run`): for each mode, the
 * period ending at the latest instant of its cadence at or before `now`, if
 * not yet finalized (never a period that has not come), then the charges
 * left open. Scheduled occurrences normally did all of it already, so this
 * only repairs a run that failed; counting delivery up to the period end, a
 * late finalization bills exactly what the on-time one would have.
 */
export async function runInvoicing(ctx: BillingContext, now: Date): Promise<Record<string, number>> {
  const finalized = await finalizePeriods(ctx, BILLING_MODES.map((mode) => ({ mode, periodEnd: lastRun(mode, now) })))
  return { invoices_finalized: finalized, ...(await chargeUncharged(ctx)) }
}

async function finalizePeriods(ctx: BillingContext, periods: { mode: BillingMode; periodEnd: Date }[]): Promise<number> {
  let finalized = 0
  for (const { mode, periodEnd } of periods) {
    for (const userId of await accountsInMode(ctx.db, mode)) {
      if (await finalizeInvoice(ctx, userId, mode, periodEnd)) finalized++
    }
  }
  return finalized
}

/** Charges every auto-pay invoice still `open` (just finalized, or left by a crash between finalize and charge). */
async function chargeUncharged(ctx: BillingContext): Promise<{ charges_succeeded: number; charges_failed: number }> {
  let succeeded = 0
  let failed = 0
  for (const invoice of await unchargedAutopayInvoices(ctx.db, AUTOPAY_MODES)) {
    const after = await chargeInvoice(ctx, invoice.invoice_id)
    if (after.status === 'paid') succeeded++
    else if (after.status === 'payment_failed') failed++
  }
  return { charges_succeeded: succeeded, charges_failed: failed }
}

/**
 * After a card is enrolled or authenticated: charge again every invoice whose
 * charge failed or waits for authentication on the previous card (a new
 * charge replaces the held one).
 */
export async function retryCharges(ctx: BillingContext, userId: string): Promise<void> {
  const due = [...(await invoicesWithStatus(ctx.db, userId, 'payment_failed')), ...(await invoicesAwaitingAction(ctx.db, userId))]
  for (const invoice of due) {
    if (invoice.pending_charge_id !== null) await updateInvoice(ctx.db, invoice.invoice_id, { pending_charge_id: null })
    await chargeInvoice(ctx, invoice.invoice_id)
  }
  // Under an operator hold nothing was charged: the standing still follows the failures left.
  await ctx.db.transaction().execute((trx) => reconcileStanding(trx, userId))
}

/**
 * Moving to Net 30 turns every unpaid auto-pay invoice (failed, held for
 * authentication, or not yet charged) into a Net 30 invoice due 30 days
 * later: no card is left to charge it.
 */
export async function reopenFailedAsNet30(ctx: ServiceContext, userId: string): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await lockAccount(trx, userId)
    await reopenUnpaidAsNet30(trx, userId, dueDate('net30_invoice', ctx.clock.now()))
    await reconcileStanding(trx, userId)
  })
}

export async function postCredit(ctx: ServiceContext, userId: string, amountCents: number, memo: string): Promise<CreditRow> {
  return ctx.db.transaction().execute(async (trx) => {
    if (!(await lockAccount(trx, userId))) throw notFound('account')
    const credit: CreditRow = { credit_id: newId('crd'), user_id: userId, amount_cents: amountCents, memo, posted_at: ctx.clock.now() }
    await insertCredit(trx, credit)
    await recordBillingEvent(trx, {
      user_id: userId,
      occurred_at: credit.posted_at,
      event_type: 'credit_posted',
      credit_id: credit.credit_id,
      amount_cents: amountCents,
      detail: { memo },
    })
    return credit
  })
}

/** Locks the invoice's account, then the invoice: the order every charge outcome takes them in. */
async function lockInvoice(trx: Db, invoiceId: string): Promise<InvoiceRow> {
  const found = await findInvoice(trx, invoiceId)
  if (!found) throw notFound('invoice')
  await lockAccount(trx, found.user_id)
  return (await findInvoice(trx, invoiceId, true))!
}

/** Records payment of an invoice (Net 30, or an auto-pay invoice settled out of band). Paying twice is a no-op. */
export async function markInvoicePaid(ctx: ServiceContext, invoiceId: string): Promise<InvoiceRow> {
  return ctx.db.transaction().execute(async (trx) => {
    const invoice = await lockInvoice(trx, invoiceId)
    if (invoice.status === 'void') throw conflict('a void invoice cannot be paid')
    if (invoice.status === 'paid') return invoice
    const now = ctx.clock.now()
    await updateInvoice(trx, invoiceId, { status: 'paid', paid_at: now, pending_charge_id: null })
    await recordBillingEvent(trx, { user_id: invoice.user_id, occurred_at: now, event_type: 'invoice_paid', invoice_id: invoiceId, amount_cents: invoice.total_cents })
    await reconcileStanding(trx, invoice.user_id)
    return (await findInvoice(trx, invoiceId))!
  })
}

/**
 * Voids a finalized unpaid invoice: its amount is forgiven (the delivered
 * value stays invoiced, so it is never billed again) and the credits it
 * applied go back to the account for the next invoice. A paid or void
 * invoice is 409.
 */
export async function voidInvoice(ctx: ServiceContext, invoiceId: string, memo: string): Promise<InvoiceRow> {
  return ctx.db.transaction().execute(async (trx) => {
    const invoice = await lockInvoice(trx, invoiceId)
    if (invoice.status !== 'open' && invoice.status !== 'payment_failed') {
      throw conflict({ field: 'invoice_id', reason: 'invoice_not_unpaid', status: invoice.status })
    }
    await updateInvoice(trx, invoiceId, { status: 'void', pending_charge_id: null })
    await recordBillingEvent(trx, {
      user_id: invoice.user_id,
      occurred_at: ctx.clock.now(),
      event_type: 'invoice_voided',
      invoice_id: invoiceId,
      amount_cents: invoice.amount_cents,
      detail: { memo, forgiven_cents: invoice.total_cents, credits_returned_cents: invoice.credits_applied_cents },
    })
    await reconcileStanding(trx, invoice.user_id)
    return (await findInvoice(trx, invoiceId))!
  })
}
