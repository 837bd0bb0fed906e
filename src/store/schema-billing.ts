import type { ColumnType } from 'kysely'

/**
 * Table types of billing: invoices, credits and the billing event log (src/store/schema.ts has the
 * rest; they mirror src/store/migrations/*.sql).
 */

type Timestamp = ColumnType<Date, Date, Date>
type Int8 = ColumnType<number, number, number>

export interface InvoicesTable {
  invoice_id: string
  user_id: string
  billing_mode: string
  period_start: Timestamp
  period_end: Timestamp
  delivered_micros: Int8
  amount_cents: Int8
  credits_applied_cents: Int8
  total_cents: Int8
  status: 'open' | 'paid' | 'payment_failed' | 'void'
  finalized_at: Timestamp
  due_at: Timestamp
  paid_at: Timestamp | null
  charge_attempts: ColumnType<number, number | undefined, number>
  /** The processor's charge awaiting the card holder's authentication. */
  pending_charge_id: ColumnType<string | null, string | null | undefined, string | null>
}

export interface CreditsTable {
  credit_id: string
  user_id: string
  amount_cents: Int8
  memo: string
  posted_at: Timestamp
  /** Set on the credit of the daily traffic review: the UTC day whose invalid traffic it gives back (migration 0029). */
  ivt_day: ColumnType<string | null, string | null | undefined, never>
}

export interface BillingEventsTable {
  event_id: ColumnType<number, never, never>
  user_id: string
  occurred_at: Timestamp
  event_type: string
  invoice_id: string | null
  credit_id: string | null
  amount_cents: ColumnType<number, number | undefined, never>
  detail: ColumnType<unknown, string | null, never>
}

/** The micros an invoice took from one UTC day (migration 0035). */
export interface InvoiceDaysTable {
  invoice_id: string
  user_id: string
  day: ColumnType<string, string, never>
  micros: Int8
}

/** Invoices, credits and billing events. */
export interface BillingTables {
  invoices: InvoicesTable
  credits: CreditsTable
  billing_events: BillingEventsTable
  invoice_days: InvoiceDaysTable
}
