import { AUTOPAY_MODES, isBillingMode } from './billing-schedule.ts'
import { MICROS_PER_USD } from './money.ts'

/** The figures of a finalized invoice that its email states. Money is integers. */
export interface InvoiceSummary {
  invoice_id: string
  /** The cadence it was billed on: auto-pay invoices are charged to the card, the others are paid by the due date. */
  billing_mode: string
  period_start: Date
  period_end: Date
  delivered_micros: number
  amount_cents: number
  credits_applied_cents: number
  total_cents: number
  status: 'open' | 'paid' | 'payment_failed' | 'void'
  due_at: Date
}

function checkAmount(value: number, what: string): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${what} must be an integer, got ${value}`)
}

function groupThousands(whole: number): string {
  return String(whole).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

/** Integer cents as dollars: 123456 → "$1,234.56", -5 → "-$0.05". Integer arithmetic only. */
export function formatCents(cents: number): string {
  checkAmount(cents, 'cents')
  const sign = cents < 0 ? '-' : ''
  const abs = Math.abs(cents)
  return `${sign}$${groupThousands(Math.floor(abs / 100))}.${String(abs % 100).padStart(2, '0')}`
}

/** Integer micro-USD as dollars to the micro, at least two decimals: 12000 → "$0.012", 1_500_000 → "$1.50". */
export function formatMicros(micros: number): string {
  checkAmount(micros, 'micros')
  const sign = micros < 0 ? '-' : ''
  const abs = Math.abs(micros)
  const fraction = String(abs % MICROS_PER_USD)
    .padStart(6, '0')
    .replace(/0+$/, '')
    .padEnd(2, '0')
  return `${sign}$${groupThousands(Math.floor(abs / MICROS_PER_USD))}.${fraction}`
}

/** An instant as "2026-11-09 06:00 UTC". */
function formatInstant(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

function statusLine(invoice: InvoiceSummary): string {
  switch (invoice.status) {
    case 'paid':
      return 'Status: paid. Nothing is due.'
    case 'open':
      if (isBillingMode(invoice.billing_mode) && AUTOPAY_MODES.includes(invoice.billing_mode)) {
        return `Status: open. ${formatCents(invoice.total_cents)} will be charged to the card on file.`
      }
      return `Status: open. ${formatCents(invoice.total_cents)} is due by ${formatInstant(invoice.due_at)}.`
    case 'payment_failed':
      return `Status: payment failed. ${formatCents(invoice.total_cents)} is due by ${formatInstant(invoice.due_at)}.`
    case 'void':
      return 'Status: void. Nothing is due.'
  }
}

/** The plain-text email sent to the billing contact when an invoice is finalized. */
export function invoiceEmail(invoice: InvoiceSummary): { subject: string; text: string } {
  const subject = `Invoice ${invoice.invoice_id}: ${formatCents(invoice.total_cents)} for ${invoice.period_start.toISOString().slice(0, 10)} to ${invoice.period_end.toISOString().slice(0, 10)}`
  const lines = [
    `Your invoice ${invoice.invoice_id} has been finalized.`,
    '',
    `Period:           ${formatInstant(invoice.period_start)} to ${formatInstant(invoice.period_end)}`,
    `Delivered value:  ${formatMicros(invoice.delivered_micros)}`,
    `Amount:           ${formatCents(invoice.amount_cents)}`,
    `Credits applied:  ${formatCents(invoice.credits_applied_cents)}`,
    `Total:            ${formatCents(invoice.total_cents)}`,
    '',
    statusLine(invoice),
    '',
  ]
  return { subject, text: lines.join('\n') }
}
