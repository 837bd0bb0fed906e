import { AUTOPAY_MODES, BILLING_MODES, dueDate, lastRun, modesDueAt, type BillingMode } from '../../domain/billing-schedule.ts'
import { invoiceFigures } from '../../domain/invoicing.ts'
import { newId } from '../../platform/ids.ts'
import { lockAccount } from '../../store/accounts.ts'
import {
  accountsInMode,
  availableCreditsCents,
  findInvoiceForPeriod,
  hasInvoiceDays,
  insertInvoice,
  insertInvoiceDays,
  invoicedTotals,
  lockDeliveredMicros,
  recordBillingEvent,
  unchargedAutopayInvoices,
  uninvoicedDebitsByDay,
  type InvoiceDay,
  type InvoiceRow,
} from '../../store/billing.ts'
import type { Db } from '../../store/db.ts'
import { utcMidnight } from '../../domain/stats.ts'
import { enqueueWebhookEvent } from '../../store/webhooks.ts'
import type { EmailContext } from '../email.ts'
import { chargeInvoice, type BillingContext } from './charges.ts'
import { emailFinalizedInvoice } from './invoice-email.ts'

/** What invoicing needs: the payment processor for charges, email for the invoice summaries. */
export type InvoicingContext = BillingContext & EmailContext

// Invoicing: finalizing each account's invoice at its cadence's instants, then charging auto-pay.

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
 * Once the invoice is committed, its summary is emailed to the billing
 * contact (outside the transaction; an email problem never fails the run).
 */
export async function finalizeInvoice(ctx: EmailContext, userId: string, mode: BillingMode, periodEnd: Date): Promise<InvoiceRow | null> {
  const invoice = await ctx.db.transaction().execute(async (trx) => {
    const account = await lockAccount(trx, userId)
    // Only accounts on this cadence when the period ended belong to it.
    if (!account || account.effective_billing_mode !== mode) return null
    if (!account.billing_enrolled_at || account.billing_enrolled_at >= periodEnd) return null
    if (await findInvoiceForPeriod(trx, userId, periodEnd)) return null
    const prior = await invoicedTotals(trx, userId)
    if (prior.lastPeriodEnd && prior.lastPeriodEnd >= periodEnd) return null
    // The locks keep ledger batches of this account out until commit; the figure is read from the ledger itself.
    await lockDeliveredMicros(trx, userId, periodEnd)
    const days = await takenDays(trx, userId, prior, periodEnd)
    const newMicros = days.reduce((sum, d) => sum + d.micros, 0)
    const figures = invoiceFigures({
      priorInvoicedMicros: prior.micros,
      priorInvoicedCents: prior.cents,
      newDeliveredMicros: newMicros,
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
      delivered_micros: newMicros,
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
    await insertInvoiceDays(trx, invoice.invoice_id, userId, days)
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
    await enqueueWebhookEvent(trx, {
      userId,
      type: 'invoice.finalized',
      key: `invoice.finalized:${invoice.invoice_id}`,
      at: now,
      data: {
        invoice_id: invoice.invoice_id,
        billing_mode: invoice.billing_mode,
        period_start: invoice.period_start.toISOString(),
        period_end: invoice.period_end.toISOString(),
        amount_cents: invoice.amount_cents,
        credits_applied_cents: invoice.credits_applied_cents,
        total_cents: invoice.total_cents,
        status: invoice.status,
        due_at: invoice.due_at.toISOString(),
      },
    })
    return invoice
  })
  if (invoice) await emailFinalizedInvoice(ctx, invoice)
  return invoice
}

/**
 * What a new invoice takes, per UTC day (docs/ledger-verification.md, "Invoices"): the debits of the
 * account's billable rows before the period end not taken by an earlier invoice. Rows before the previous
 * period end were taken by then, except a batch that committed after that run: so the search starts at the
 * UTC midnight before the previous period end (at the period end itself after an invoice finalized before
 * day lists existed, whose takings are unknown by day).
 */
async function takenDays(db: Db, userId: string, prior: { lastPeriodEnd: Date | null; lastInvoiceId: string | null }, periodEnd: Date): Promise<InvoiceDay[]> {
  let from: Date | null = null
  if (prior.lastPeriodEnd && prior.lastInvoiceId) {
    from = (await hasInvoiceDays(db, prior.lastInvoiceId)) ? new Date(utcMidnight(prior.lastPeriodEnd.getTime())) : prior.lastPeriodEnd
  }
  return uninvoicedDebitsByDay(db, userId, from, periodEnd)
}

/**
 * One scheduled invoicing occurrence at `at` (an instant of at least one
 * cadence): for each mode whose cadence has an instant at `at`, finalize the
 * period ending at `at` of every account on that mode, then charge auto-pay
 * invoices not yet charged. Other cadences are untouched, so an account is
 * only ever invoiced at its own cadence's instants.
 */
export async function runInvoicingOccurrence(ctx: InvoicingContext, at: Date): Promise<Record<string, number | string>> {
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
export async function runInvoicing(ctx: InvoicingContext, now: Date): Promise<Record<string, number>> {
  const finalized = await finalizePeriods(ctx, BILLING_MODES.map((mode) => ({ mode, periodEnd: lastRun(mode, now) })))
  return { invoices_finalized: finalized, ...(await chargeUncharged(ctx)) }
}

async function finalizePeriods(ctx: InvoicingContext, periods: { mode: BillingMode; periodEnd: Date }[]): Promise<number> {
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

