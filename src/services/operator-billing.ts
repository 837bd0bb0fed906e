import { pageOf, PAGE_LIMIT_DEFAULT } from '../domain/pagination.ts'
import { listAllInvoices, listInvoices, type InvoiceRow } from '../store/billing.ts'
import { requireAccount } from './accounts.ts'
import type { ServiceContext } from './context.ts'
import { decodeInstantCursor, type Page, type PageRequest } from './lists.ts'

/** Operator reads on billing (the writes are in billing.ts and billing-profile.ts). */

/** An account's invoices, newest period first; 404 for an unknown account. */
export async function listAccountInvoices(ctx: ServiceContext, userId: string): Promise<InvoiceRow[]> {
  await requireAccount(ctx, userId)
  return listInvoices(ctx.db, userId)
}

/** Every account's invoices, newest first, optionally of one status (GET /admin/v1/invoices, the console's invoices page). */
export async function listInvoicesForOperator(ctx: ServiceContext, status: InvoiceRow['status'] | undefined, req: PageRequest): Promise<Page<InvoiceRow>> {
  const limit = req.limit ?? PAGE_LIMIT_DEFAULT
  const cursor = req.cursor === undefined ? null : decodeInstantCursor('invoices', req.cursor)
  const rows = await listAllInvoices(ctx.db, status ?? null, {
    rows: limit + 1,
    before: cursor === null ? null : { finalizedAt: cursor.at, invoiceId: cursor.id },
  })
  return pageOf(rows, limit, (i) => [i.finalized_at.toISOString(), i.invoice_id], 'invoices')
}
