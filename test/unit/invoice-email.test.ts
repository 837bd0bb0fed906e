import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { formatCents, formatMicros, invoiceEmail, type InvoiceSummary } from '../../src/domain/invoice-email.ts'

test('formatCents writes integer cents as dollars, digit by digit', () => {
  assert.equal(formatCents(0), '$0.00')
  assert.equal(formatCents(1), '$0.01')
  assert.equal(formatCents(10), '$0.10')
  assert.equal(formatCents(123456), '$1,234.56')
  assert.equal(formatCents(100_000_000_00), '$100,000,000.00')
  assert.equal(formatCents(-5), '-$0.05')
  assert.equal(formatCents(Number.MAX_SAFE_INTEGER), '$90,071,992,547,409.91')
  assert.throws(() => formatCents(1.5), RangeError)
})

test('formatCents round-trips every safe integer (no float arithmetic)', () => {
  fc.assert(
    fc.property(fc.maxSafeNat(), (cents) => {
      const digits = formatCents(cents).replace(/[$,.]/g, '')
      assert.equal(BigInt(digits), BigInt(cents))
    }),
  )
})

test('formatMicros writes delivered value to the micro', () => {
  assert.equal(formatMicros(0), '$0.00')
  assert.equal(formatMicros(12_000), '$0.012')
  assert.equal(formatMicros(1_500_000), '$1.50')
  assert.equal(formatMicros(1), '$0.000001')
  assert.equal(formatMicros(1_234_567_890), '$1,234.56789')
  assert.throws(() => formatMicros(0.5), RangeError)
})

const invoice: InvoiceSummary = {
  invoice_id: 'inv_test',
  billing_mode: 'net30_invoice',
  period_start: new Date('2026-11-02T09:00:00Z'),
  period_end: new Date('2026-11-09T06:00:00Z'),
  delivered_micros: 1_012_000,
  amount_cents: 101,
  credits_applied_cents: 50,
  total_cents: 51,
  status: 'open',
  due_at: new Date('2026-12-09T06:00:00Z'),
}

test('the invoice email states period, delivered value, credits, total and what is due', () => {
  const { subject, text } = invoiceEmail(invoice)
  assert.equal(subject, 'Invoice inv_test: $0.51 for 2026-11-02 to 2026-11-09')
  assert.match(text, /Period: +2026-11-02 09:00 UTC to 2026-11-09 06:00 UTC/)
  assert.match(text, /Delivered value: +\$1\.012\n/)
  assert.match(text, /Amount: +\$1\.01\n/)
  assert.match(text, /Credits applied: +\$0\.50\n/)
  assert.match(text, /Total: +\$0\.51\n/)
  assert.match(text, /Status: open\. \$0\.51 is due by 2026-12-09 06:00 UTC\./)
})

test('an open auto-pay invoice says the card will be charged', () => {
  const { text } = invoiceEmail({ ...invoice, billing_mode: 'weekly_autopay' })
  assert.match(text, /Status: open\. \$0\.51 will be charged to the card on file\./)
})

test('a paid invoice says nothing is due', () => {
  const { text } = invoiceEmail({ ...invoice, status: 'paid', total_cents: 0, credits_applied_cents: 101 })
  assert.match(text, /Status: paid\. Nothing is due\./)
  assert.doesNotMatch(text, /due by/)
})
