import { microsToCents } from './money.ts'

/** Sums read from the store, from which every Balance figure is derived (never stored twice). */
export interface BalanceFacts {
  /** Delivered value over all campaigns (the ledger's billable debits), micros. */
  deliveredMicros: number
  /** Delivered value already put on finalized invoices, micros, and its cents. */
  invoicedMicros: number
  /** Finalized invoices not yet paid nor voided. */
  unpaidInvoiceCents: number
  unpaidInvoiceCount: number
  invoicedCents: number
  invoicedCount: number
  paidCents: number
  voidedCents: number
  /** Posted adjustment credits not yet applied to an invoice. */
  unappliedCreditsCents: number
  lastInvoicedAt: Date | null
}

export interface BalanceFigures {
  owed_cents: number
  pending_cents: number
  invoiced_cents: number
  unpaid_cents: number
  paid_cents: number
  voided_cents: number
  credits_cents: number
  pending_charge_count: number
  invoiced_charge_count: number
  unbilled_delivered_micros: number
  last_invoiced_at: Date | null
}

/**
 * owed = unbilled delivered value + finalized unpaid invoices − posted credits
 * (advertiser spec section 1). Unbilled micros become cents by the one
 * rounding rule in money.ts, exactly as the next invoice line will.
 */
export function computeBalance(f: BalanceFacts): BalanceFigures {
  const unbilled = f.deliveredMicros - f.invoicedMicros
  // Exactly what the next invoice will say: cumulative rounding (see invoicing.ts).
  const pendingCents = microsToCents(f.deliveredMicros) - f.invoicedCents
  return {
    owed_cents: pendingCents + f.unpaidInvoiceCents - f.unappliedCreditsCents,
    pending_cents: pendingCents,
    invoiced_cents: f.invoicedCents,
    unpaid_cents: f.unpaidInvoiceCents,
    paid_cents: f.paidCents,
    voided_cents: f.voidedCents,
    credits_cents: f.unappliedCreditsCents,
    pending_charge_count: f.unpaidInvoiceCount,
    invoiced_charge_count: f.invoicedCount,
    unbilled_delivered_micros: unbilled,
    last_invoiced_at: f.lastInvoicedAt,
  }
}
