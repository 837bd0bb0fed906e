import { sql } from 'kysely'
import type { Db } from './db.ts'
import type { BalanceFacts } from '../domain/balance.ts'

/** The sums behind an account's Balance, read in one statement from campaigns, invoices and credits. */
export async function readBalanceFacts(db: Db, userId: string): Promise<BalanceFacts> {
  const r = await db
    .selectNoFrom([
      // Settled spend plus what leases billed and did not settle yet (the campaign_lease_use view).
      sql<string>`(select coalesce(sum(lifetime_spent_micros), 0) from campaigns where user_id = ${userId})
        + (select coalesce(sum(u.spent_micros), 0) from campaign_lease_use u join campaigns c on c.campaign_id = u.campaign_id where c.user_id = ${userId})`.as('delivered'),
      sql<string>`(select coalesce(sum(delivered_micros), 0) from invoices where user_id = ${userId})`.as('invoiced_micros'),
      sql<string>`(select coalesce(sum(amount_cents), 0) from invoices where user_id = ${userId})`.as('invoiced_cents'),
      sql<string>`(select count(*) from invoices where user_id = ${userId})`.as('invoiced_count'),
      sql<string>`(select coalesce(sum(total_cents), 0) from invoices where user_id = ${userId} and status in ('open', 'payment_failed'))`.as('unpaid_cents'),
      sql<string>`(select count(*) from invoices where user_id = ${userId} and status in ('open', 'payment_failed'))`.as('unpaid_count'),
      sql<string>`(select coalesce(sum(total_cents), 0) from invoices where user_id = ${userId} and status = 'paid')`.as('paid_cents'),
      // A void invoice is forgiven whole and gives its applied credits back (docs/billing.md).
      sql<string>`(select coalesce(sum(amount_cents), 0) from invoices where user_id = ${userId} and status = 'void')`.as('voided_cents'),
      sql<string>`(select coalesce(sum(credits_applied_cents), 0) from invoices where user_id = ${userId} and status <> 'void')`.as('applied'),
      sql<string>`(select coalesce(sum(amount_cents), 0) from credits where user_id = ${userId})`.as('posted'),
      sql<Date | null>`(select max(finalized_at) from invoices where user_id = ${userId})`.as('last_invoiced_at'),
    ])
    .executeTakeFirstOrThrow()
  return {
    deliveredMicros: Number(r.delivered),
    invoicedMicros: Number(r.invoiced_micros),
    invoicedCents: Number(r.invoiced_cents),
    invoicedCount: Number(r.invoiced_count),
    unpaidInvoiceCents: Number(r.unpaid_cents),
    unpaidInvoiceCount: Number(r.unpaid_count),
    paidCents: Number(r.paid_cents),
    voidedCents: Number(r.voided_cents),
    unappliedCreditsCents: Number(r.posted) - Number(r.applied),
    lastInvoicedAt: r.last_invoiced_at ? new Date(r.last_invoiced_at) : null,
  }
}
