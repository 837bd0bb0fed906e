import { invoiceEmail } from '../../domain/invoice-email.ts'
import { findAccount } from '../../store/accounts.ts'
import type { InvoiceRow } from '../../store/billing.ts'
import { sendEmail, type EmailContext } from '../email.ts'

/**
 * Emails a just-finalized invoice's summary to the account's billing contact
 * (billing_email, else the account email). Called after the finalize
 * transaction commits; never throws, so a mail or outbox problem cannot undo
 * or fail the invoicing run that already committed the invoice.
 */
export async function emailFinalizedInvoice(ctx: EmailContext, invoice: InvoiceRow): Promise<void> {
  try {
    const account = await findAccount(ctx.db, invoice.user_id)
    if (!account) return
    const { subject, text } = invoiceEmail(invoice)
    await sendEmail(ctx, { to: account.billing_email ?? account.email, subject, text })
  } catch (err) {
    ctx.log.warn({ invoice_id: invoice.invoice_id, error: err instanceof Error ? err.message : String(err) }, 'invoice email not recorded')
  }
}
