import { listInvoices, type InvoiceRow } from '../store/billing.ts'
import { requireAccount } from './accounts.ts'
import type { ServiceContext } from './context.ts'

/** Operator reads on billing (the writes are in billing.ts and billing-profile.ts). */

/** An account's invoices, newest period first; 404 for an unknown account. */
export async function listAccountInvoices(ctx: ServiceContext, userId: string): Promise<InvoiceRow[]> {
  await requireAccount(ctx, userId)
  return listInvoices(ctx.db, userId)
}
