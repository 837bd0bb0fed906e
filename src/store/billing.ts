import { sql, type Insertable, type Selectable, type Updateable } from 'kysely'
import type { Db } from './db.ts'
import type { BillingEventsTable, CreditsTable, InvoicesTable } from './schema.ts'
import type { BillingMode } from '../domain/billing-schedule.ts'
import { rangeSpendMicros } from './lease-use.ts'

export type InvoiceRow = Selectable<InvoicesTable>
export type CreditRow = Selectable<CreditsTable>
export type OverdueInvoice = Pick<InvoiceRow, 'invoice_id' | 'total_cents' | 'due_at'>

/**
 * Locks every campaign of the account (in id order, like the ledger batches)
 * and returns the value delivered before `before`: their total delivered
 * value less the billable debits recorded at or after `before`. Holding these
 * locks, no delivery can commit between the two reads, so the figure is exact
 * whenever the run happens; subtracting the few debits after the period end
 * reads far fewer ledger rows than summing the account's whole history.
 * Their lease rows are locked too: a views batch moves a lease's `used` with
 * its ledger rows, so none commits between the reads either, and the
 * unsettled lease use counts as delivered.
 */
export async function lockDeliveredMicros(db: Db, userId: string, before: Date): Promise<number> {
  const rows = await db
    .selectFrom('campaigns')
    .select(['campaign_id', 'lifetime_spent_micros'])
    .where('user_id', '=', userId)
    .orderBy('campaign_id')
    .forUpdate()
    .execute()
  const leases =
    rows.length === 0
      ? []
      : await db
          .selectFrom('impression_leases')
          .select(['first_seq', 'used', 'cpm_micros'])
          .where(
            'campaign_id',
            'in',
            rows.map((r) => r.campaign_id),
          )
          .orderBy('lease_id')
          .forUpdate()
          .execute()
  const lifetime =
    rows.reduce((sum, r) => sum + r.lifetime_spent_micros, 0) + leases.reduce((sum, l) => sum + rangeSpendMicros(l.cpm_micros, l.first_seq, l.used), 0)
  const later = await db
    .selectFrom('ledger_events')
    .select(sql<string>`coalesce(sum(debit_micros), 0)`.as('micros'))
    .where('user_id', '=', userId)
    .where('occurred_at', '>=', before)
    // Billable impressions and billable clicks (click campaigns) carry debits; nothing else does.
    .where('billable', '=', true)
    .executeTakeFirstOrThrow()
  return lifetime - Number(later.micros)
}

/** What an invoice takes from one UTC day (migration 0035). */
export interface InvoiceDay {
  day: string
  micros: number
}

/**
 * The debits not yet invoiced per UTC day, of the account's billable rows before `periodEnd` and at or
 * after `from` (null: the whole ledger): each day's billable debits less what earlier invoices took from
 * it (`invoice_days`). Days with nothing left are not listed; oldest first.
 */
export async function uninvoicedDebitsByDay(db: Db, userId: string, from: Date | null, periodEnd: Date): Promise<InvoiceDay[]> {
  const fromCond = from ? sql`AND e.occurred_at >= ${from}` : sql``
  const { rows } = await sql<{ day: string; micros: string }>`
    WITH debits AS (
      SELECT (e.occurred_at AT TIME ZONE 'UTC')::date AS day, sum(e.debit_micros) AS micros
      FROM ledger_events e
      WHERE e.user_id = ${userId} AND e.billable AND e.occurred_at < ${periodEnd} ${fromCond}
      GROUP BY 1
    ),
    taken AS (
      SELECT i.day, sum(i.micros) AS micros FROM invoice_days i
      WHERE i.user_id = ${userId} AND i.day IN (SELECT day FROM debits)
      GROUP BY 1
    )
    SELECT d.day::text AS day, (d.micros - coalesce(t.micros, 0))::text AS micros
    FROM debits d LEFT JOIN taken t ON t.day = d.day
    WHERE d.micros > coalesce(t.micros, 0)
    ORDER BY d.day`.execute(db)
  return rows.map((r) => ({ day: r.day, micros: Number(r.micros) }))
}

/** Whether the invoice has its day list (invoices finalized before migration 0035 have none). */
export async function hasInvoiceDays(db: Db, invoiceId: string): Promise<boolean> {
  return (await db.selectFrom('invoice_days').select('day').where('invoice_id', '=', invoiceId).limit(1).executeTakeFirst()) !== undefined
}

export async function insertInvoiceDays(db: Db, invoiceId: string, userId: string, days: readonly InvoiceDay[]): Promise<void> {
  if (days.length > 0) await db.insertInto('invoice_days').values(days.map((d) => ({ invoice_id: invoiceId, user_id: userId, day: d.day, micros: d.micros }))).execute()
}

/** The days of these invoices, each with the day's root once it is closed (null before), oldest day first. */
export async function invoiceDaysOf(db: Db, invoiceIds: readonly string[]): Promise<(InvoiceDay & { invoice_id: string; root: string | null })[]> {
  if (invoiceIds.length === 0) return []
  const rows = await db
    .selectFrom('invoice_days as i')
    .leftJoin('ledger_days as d', (j) => j.onRef('d.user_id', '=', 'i.user_id').onRef('d.day', '=', 'i.day'))
    .select(['i.invoice_id', sql<string>`i.day::text`.as('day'), 'i.micros', 'd.root'])
    .where('i.invoice_id', 'in', invoiceIds)
    .orderBy('i.invoice_id')
    .orderBy('i.day')
    .execute()
  return rows.map((r) => ({ invoice_id: r.invoice_id, day: r.day, micros: Number(r.micros), root: r.root ?? null }))
}

export async function invoicedTotals(db: Db, userId: string): Promise<{ micros: number; cents: number; lastPeriodEnd: Date | null; lastInvoiceId: string | null }> {
  const row = await db
    .selectFrom('invoices')
    .select([
      sql<string>`coalesce(sum(delivered_micros), 0)`.as('micros'),
      sql<string>`coalesce(sum(amount_cents), 0)`.as('cents'),
      sql<Date | null>`max(period_end)`.as('last'),
      sql<string | null>`(array_agg(invoice_id ORDER BY period_end DESC))[1]`.as('last_id'),
    ])
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow()
  return { micros: Number(row.micros), cents: Number(row.cents), lastPeriodEnd: row.last ? new Date(row.last) : null, lastInvoiceId: row.last_id }
}

/** Posted credits not yet applied to an invoice; a voided invoice gives its applied credits back. */
export async function availableCreditsCents(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectNoFrom([
      sql<string>`(select coalesce(sum(amount_cents), 0) from credits where user_id = ${userId})`.as('posted'),
      sql<string>`(select coalesce(sum(credits_applied_cents), 0) from invoices where user_id = ${userId} and status <> 'void')`.as('applied'),
    ])
    .executeTakeFirstOrThrow()
  return Number(row.posted) - Number(row.applied)
}

export async function findInvoiceForPeriod(db: Db, userId: string, periodEnd: Date): Promise<InvoiceRow | undefined> {
  return db.selectFrom('invoices').selectAll().where('user_id', '=', userId).where('period_end', '=', periodEnd).executeTakeFirst()
}

export async function insertInvoice(db: Db, row: Insertable<InvoicesTable>): Promise<void> {
  await db.insertInto('invoices').values(row).execute()
}

export async function updateInvoice(db: Db, invoiceId: string, changes: Updateable<InvoicesTable>): Promise<void> {
  await db.updateTable('invoices').set(changes).where('invoice_id', '=', invoiceId).execute()
}

export async function findInvoice(db: Db, invoiceId: string, forUpdate = false): Promise<InvoiceRow | undefined> {
  let q = db.selectFrom('invoices').selectAll().where('invoice_id', '=', invoiceId)
  if (forUpdate) q = q.forUpdate()
  return q.executeTakeFirst()
}

export async function listInvoices(db: Db, userId: string): Promise<InvoiceRow[]> {
  return db.selectFrom('invoices').selectAll().where('user_id', '=', userId).orderBy('period_end', 'desc').execute()
}

/** Open invoices whose charge waits for the holder's authentication (`held`), or open invoices with no charge held. */
function openInvoices(db: Db, held: boolean) {
  return db
    .selectFrom('invoices')
    .selectAll()
    .where('status', '=', 'open')
    .where('pending_charge_id', held ? 'is not' : 'is', null)
}

/** Auto-pay invoices (of `modes`) still to be charged (finalized but not yet attempted, e.g. after a crash). */
export async function unchargedAutopayInvoices(db: Db, modes: readonly string[]): Promise<InvoiceRow[]> {
  // A charge held for the holder's authentication is not charged again.
  return openInvoices(db, false).where('billing_mode', 'in', modes).orderBy('finalized_at').execute()
}

export async function invoicesWithStatus(db: Db, userId: string, status: InvoiceRow['status']): Promise<InvoiceRow[]> {
  return db.selectFrom('invoices').selectAll().where('user_id', '=', userId).where('status', '=', status).orderBy('period_end').execute()
}

/** Failed charges and charges held for the holder's authentication: what the collection standing follows. */
export async function chargeProblems(db: Db, userId: string): Promise<{ failed: number; awaitingAction: number }> {
  const row = await db
    .selectFrom('invoices')
    .select([
      sql<string>`count(*) filter (where status = 'payment_failed')`.as('failed'),
      sql<string>`count(*) filter (where status = 'open' and pending_charge_id is not null)`.as('awaiting'),
    ])
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow()
  return { failed: Number(row.failed), awaitingAction: Number(row.awaiting) }
}

/** Invoices whose charge waits for the holder's authentication. */
export async function invoicesAwaitingAction(db: Db, userId: string): Promise<InvoiceRow[]> {
  return openInvoices(db, true).where('user_id', '=', userId).orderBy('period_end').execute()
}

/**
 * Net 30 invoices unpaid past their due date at `now`. Derived from the clock
 * at read time, so an invoice becomes overdue without any job running.
 */
export async function overdueInvoices(db: Db, userId: string, now: Date): Promise<OverdueInvoice[]> {
  return db
    .selectFrom('invoices')
    .select(['invoice_id', 'total_cents', 'due_at'])
    .where('user_id', '=', userId)
    .where('status', '=', 'open')
    .where('billing_mode', '=', 'net30_invoice')
    .where('due_at', '<', now)
    .orderBy('due_at')
    .execute()
}

export async function accountsInMode(db: Db, mode: BillingMode): Promise<string[]> {
  const rows = await db.selectFrom('accounts').select('user_id').where('effective_billing_mode', '=', mode).orderBy('user_id').execute()
  return rows.map((r) => r.user_id)
}

/** The account's credits, newest first: operators' adjustments and the traffic review's (`ivt_day` set). */
export async function listCredits(db: Db, userId: string, limit = 100): Promise<CreditRow[]> {
  return db.selectFrom('credits').selectAll().where('user_id', '=', userId).orderBy('posted_at', 'desc').orderBy('credit_id').limit(limit).execute()
}

export async function insertCredit(db: Db, row: CreditRow): Promise<void> {
  await db.insertInto('credits').values(row).execute()
}

export async function recordBillingEvent(
  db: Db,
  event: Omit<Insertable<BillingEventsTable>, 'detail'> & { detail?: Record<string, unknown> },
): Promise<void> {
  await db
    .insertInto('billing_events')
    .values({ ...event, detail: event.detail ? JSON.stringify(event.detail) : null })
    .execute()
}

/** Every unpaid invoice not already on Net 30 terms becomes a Net 30 invoice due at `dueAt`. */
export async function reopenUnpaidAsNet30(db: Db, userId: string, dueAt: Date): Promise<void> {
  await db
    .updateTable('invoices')
    .set({ status: 'open', billing_mode: 'net30_invoice', due_at: dueAt, pending_charge_id: null })
    .where('user_id', '=', userId)
    .where('status', 'in', ['open', 'payment_failed'])
    .where('billing_mode', '<>', 'net30_invoice')
    .execute()
}

/** Every account's invoices (or one account's), newest first by (finalized_at, invoice_id), optionally of one status; at most `rows`, after `before`. */
export async function listAllInvoices(
  db: Db,
  status: InvoiceRow['status'] | null,
  page: { rows: number; before: { finalizedAt: Date; invoiceId: string } | null },
  userId?: string,
): Promise<InvoiceRow[]> {
  let q = db.selectFrom('invoices').selectAll()
  if (userId !== undefined) q = q.where('user_id', '=', userId)
  if (status !== null) q = q.where('status', '=', status)
  const before = page.before
  if (before) q = q.where((eb) => eb(eb.refTuple('finalized_at', 'invoice_id'), '<', eb.tuple(before.finalizedAt, before.invoiceId)))
  return q.orderBy('finalized_at', 'desc').orderBy('invoice_id', 'desc').limit(page.rows).execute()
}
