import { notFound } from '../../domain/errors.ts'
import { dueDate } from '../../domain/billing-schedule.ts'
import { chargesHeld, collectionState } from '../../domain/collection.ts'
import type { ChargeResult, PaymentProcessor } from '../../platform/payment-processor.ts'
import { findAccount, lockAccount } from '../../store/accounts.ts'
import { findInvoice, invoicesAwaitingAction, invoicesWithStatus, recordBillingEvent, reopenUnpaidAsNet30, updateInvoice, type InvoiceRow } from '../../store/billing.ts'
import { reconcileStanding } from '../collection.ts'
import { enqueueWebhookEvent } from '../../store/webhooks.ts'
import type { ServiceContext } from '../context.ts'

// Collecting an invoice: charges through the processor and their outcomes, retries after a new card,
// held charges completed, and unpaid auto-pay invoices moved to Net 30.

export interface BillingContext extends ServiceContext {
  processor: PaymentProcessor
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
      else {
        await updateInvoice(trx, invoice.invoice_id, { status: 'payment_failed', pending_charge_id: null })
        // One event per declined attempt (charge_attempts counts them), in the transaction that records it.
        await enqueueWebhookEvent(trx, {
          userId,
          type: 'invoice.payment_failed',
          key: `invoice.payment_failed:${invoice.invoice_id}:${current.charge_attempts}`,
          at: now,
          data: {
            invoice_id: invoice.invoice_id,
            total_cents: invoice.total_cents,
            charge_attempts: current.charge_attempts,
            failure_code: result.code,
            due_at: invoice.due_at.toISOString(),
          },
        })
      }
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

