import { conflict, notFound } from '../../domain/errors.ts'
import { newId } from '../../platform/ids.ts'
import { lockAccount } from '../../store/accounts.ts'
import { findInvoice, insertCredit, recordBillingEvent, updateInvoice, type CreditRow, type InvoiceRow } from '../../store/billing.ts'
import type { Db } from '../../store/db.ts'
import { reconcileStanding } from '../collection.ts'
import type { ServiceContext } from '../context.ts'

// An operator's adjustments: credits posted, invoices marked paid or voided.

export async function postCredit(ctx: ServiceContext, userId: string, amountCents: number, memo: string): Promise<CreditRow> {
  return ctx.db.transaction().execute(async (trx) => {
    if (!(await lockAccount(trx, userId))) throw notFound('account')
    const credit: CreditRow = { credit_id: newId('crd'), user_id: userId, amount_cents: amountCents, memo, posted_at: ctx.clock.now(), ivt_day: null }
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
