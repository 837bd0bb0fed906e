import { pageOf, PAGE_LIMIT_DEFAULT } from '../domain/pagination.ts'
import { searchAccounts, type AccountRow } from '../store/accounts.ts'
import { listInvoices, type InvoiceRow } from '../store/billing.ts'
import { findLoginByUser } from '../store/logins.ts'
import { readAccountOverview, requireAccount, type AccountOverview } from './accounts.ts'
import type { ServiceContext } from './context.ts'
import { decodeInstantCursor, type Page, type PageRequest } from './lists.ts'

/** Operator reads on advertiser accounts (GET /admin/v1/accounts and the console's accounts pages). */

/**
 * Accounts whose email contains `query` (case-insensitive) or whose user id
 * is `query` exactly, newest first; every account when the query is empty.
 */
/** Accounts newest first, matching `query` (part of an email, or a user id); `pendingApproval`: only those still waiting for write approval. */
export async function findAccounts(ctx: ServiceContext, query: string | undefined, req: PageRequest, pendingApproval = false): Promise<Page<AccountRow>> {
  const limit = req.limit ?? PAGE_LIMIT_DEFAULT
  const cursor = req.cursor === undefined ? null : decodeInstantCursor('accounts', req.cursor)
  const text = query?.trim() ?? ''
  const rows = await searchAccounts(ctx.db, text === '' ? null : text, {
    rows: limit + 1,
    before: cursor === null ? null : { createdAt: cursor.at, userId: cursor.id },
  }, pendingApproval)
  return pageOf(rows, limit, (a) => [a.created_at.toISOString(), a.user_id], 'accounts')
}

/** An account as an operator sees it: the row, what GET /v1/account derives from it, its invoices, and whether it has a portal sign-in. */
export interface OperatorAccount {
  account: AccountRow
  overview: AccountOverview
  invoices: InvoiceRow[]
  portalLogin: boolean
}

export async function readOperatorAccount(ctx: ServiceContext, userId: string): Promise<OperatorAccount> {
  const account = await requireAccount(ctx, userId)
  const [overview, invoices, login] = await Promise.all([readAccountOverview(ctx, userId), listInvoices(ctx.db, userId), findLoginByUser(ctx.db, userId)])
  return { account, overview, invoices, portalLogin: login !== undefined }
}
