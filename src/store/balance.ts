import { sql } from 'kysely'
import type { Db } from './db.ts'
import type { BalanceFacts } from '../domain/balance.ts'

/**
 * The sums behind an account's Balance. Delivered value is what campaigns
 * have debited. Invoices and credits join here when invoicing lands; until
 * then nothing has been invoiced, paid, voided or credited.
 */
export async function readBalanceFacts(db: Db, userId: string): Promise<BalanceFacts> {
  const row = await db
    .selectFrom('campaigns')
    .select(sql<string>`coalesce(sum(lifetime_spent_micros), 0)`.as('delivered'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow()
  return {
    deliveredMicros: Number(row.delivered),
    invoicedMicros: 0,
    unpaidInvoiceCents: 0,
    unpaidInvoiceCount: 0,
    invoicedCents: 0,
    invoicedCount: 0,
    paidCents: 0,
    voidedCents: 0,
    unappliedCreditsCents: 0,
    lastInvoicedAt: null,
  }
}
