import { notFound } from '../domain/errors.ts'
import { pageOf, PAGE_LIMIT_DEFAULT } from '../domain/pagination.ts'
import { findInvoice, invoiceDaysOf, listAllInvoices, type InvoiceDay, type InvoiceRow } from '../store/billing.ts'
import type { ServiceContext } from './context.ts'
import { decodeInstantCursor, type Page, type PageRequest } from './lists.ts'

/** An invoice as its advertiser reads it: with what it took from each UTC day (docs/ledger-verification.md, "Invoices"). */
export interface InvoiceWithDays extends InvoiceRow {
  /** Oldest day first; each with the day's root, null until the day is closed. Empty for invoices finalized before day lists existed. */
  days: (InvoiceDay & { root: string | null })[]
}

async function withDays(ctx: Pick<ServiceContext, 'db'>, invoices: InvoiceRow[]): Promise<InvoiceWithDays[]> {
  const days = await invoiceDaysOf(
    ctx.db,
    invoices.map((i) => i.invoice_id),
  )
  return invoices.map((i) => ({ ...i, days: days.filter((d) => d.invoice_id === i.invoice_id).map((d) => ({ day: d.day, micros: d.micros, root: d.root })) }))
}

/** GET /v1/invoices and the portal's billing page: the account's invoices, newest first by (finalized_at, invoice_id). */
export async function listOwnInvoices(ctx: Pick<ServiceContext, 'db'>, userId: string, req: PageRequest): Promise<Page<InvoiceWithDays>> {
  const limit = req.limit ?? PAGE_LIMIT_DEFAULT
  const cursor = req.cursor === undefined ? null : decodeInstantCursor('account_invoices', req.cursor)
  const rows = await listAllInvoices(ctx.db, null, { rows: limit + 1, before: cursor === null ? null : { finalizedAt: cursor.at, invoiceId: cursor.id } }, userId)
  const page = pageOf(rows, limit, (i) => [i.finalized_at.toISOString(), i.invoice_id], 'account_invoices')
  return { items: await withDays(ctx, page.items), nextCursor: page.nextCursor }
}

/** GET /v1/invoices/{invoice_id}: another account's or an unknown id is the same 404. */
export async function readOwnInvoice(ctx: Pick<ServiceContext, 'db'>, userId: string, invoiceId: string): Promise<InvoiceWithDays> {
  const invoice = await findInvoice(ctx.db, invoiceId)
  if (!invoice || invoice.user_id !== userId) throw notFound('invoice')
  return (await withDays(ctx, [invoice]))[0]!
}

/** The day lists of the account's invoices (the portal's billing page), by invoice id; another account's invoice has none. */
export async function invoiceDaysByInvoice(ctx: Pick<ServiceContext, 'db'>, userId: string, invoices: readonly InvoiceRow[]): Promise<Map<string, InvoiceWithDays['days']>> {
  const own = invoices.filter((i) => i.user_id === userId)
  return new Map((await withDays(ctx, own)).map((i) => [i.invoice_id, i.days]))
}
