import { microsToCents } from './money.ts'

/**
 * The figures of one invoice. Cents are rounded on the cumulative delivered
 * total (half up, money.ts) and the invoice takes the difference from what
 * was already invoiced, so Σ invoice cents always equals the rounded total
 * delivered value: rounding never drifts, however many invoices there are.
 * Posted credits not yet applied reduce the amount; the rest carries over.
 */
export interface InvoiceInputs {
  /** Delivered value already on earlier invoices (micros) and their cents. */
  priorInvoicedMicros: number
  priorInvoicedCents: number
  /** Delivered value not yet invoiced (micros). */
  newDeliveredMicros: number
  /** Posted credits not yet applied (cents). */
  availableCreditsCents: number
}

export interface InvoiceFigures {
  amountCents: number
  creditsAppliedCents: number
  totalCents: number
}

export function invoiceFigures(i: InvoiceInputs): InvoiceFigures {
  const amountCents = microsToCents(i.priorInvoicedMicros + i.newDeliveredMicros) - i.priorInvoicedCents
  const creditsAppliedCents = Math.min(Math.max(0, i.availableCreditsCents), amountCents)
  return { amountCents, creditsAppliedCents, totalCents: amountCents - creditsAppliedCents }
}
