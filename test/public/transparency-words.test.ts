import assert from 'node:assert/strict'
import { test } from 'node:test'
import { h } from 'preact'
import { renderToString } from 'preact-render-to-string'
import { TransparencyPage, verifyCommand } from '../../src/http/pages/public/transparency.tsx'
import { InvoiceLedgers } from '../../src/http/pages/portal/invoice-ledger.tsx'

/** Words a person reads (issue 51): what an advertiser can do comes first, with the command; counts agree with their nouns. */
const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/&#39;/g, "'").replace(/\s+/g, ' ')
const head = (date: string) => ({ date, treeSize: 2, rootHash: 'ab'.repeat(32), closedAt: new Date(`${date}T23:59:00Z`) })

test('/transparency says first what an advertiser can do, with the adctl ledger verify command, before the Merkle tree', () => {
  const html = renderToString(TransparencyPage({ heads: [head('2026-11-08')], shown: 30, closedThrough: '2026-11-08', issuerKeys: [] }))
  const words = text(html)
  const check = words.indexOf('Check what you were billed for')
  const command = words.indexOf('adctl ledger verify --from 2026-11-01 --to 2026-11-08')
  const merkle = words.indexOf('Merkle')
  assert.ok(check >= 0 && command > check && merkle > command, `the order: ${check}, ${command}, ${merkle}`)
  assert.match(words, /As an advertiser you can prove, without trusting us, that the impressions and clicks you were billed for are the ones recorded/)
  assert.equal(verifyCommand(null), 'adctl ledger verify --from YYYY-MM-DD --to YYYY-MM-DD')
})

test('/transparency: one closed day is "the last closed day", never "the last 1 closed days"', () => {
  const one = text(renderToString(TransparencyPage({ heads: [head('2026-11-08')], shown: 1, closedThrough: '2026-11-08', issuerKeys: [] })))
  assert.match(one, /Tree heads of the last closed day, newest first/)
  assert.match(one, /At most the last closed day with rows\./)
  assert.doesNotMatch(one, /last 1 closed days/)
  const two = text(renderToString(TransparencyPage({ heads: [head('2026-11-08'), head('2026-11-07')], shown: 30, closedThrough: '2026-11-08', issuerKeys: [] })))
  assert.match(two, /Tree heads of the last 2 closed days, newest first/)
  assert.match(two, /At most the last 30 closed days with rows\./)
})

test('an invoice that took one day says so in the singular; several days add up', () => {
  const invoice = (days: number) => ({
    invoice_id: `inv_${days}`,
    period: { start: '2026-11-02T06:00:00.000Z', end: '2026-11-09T06:00:00.000Z' },
    delivered_micros: 3_700 * days,
    amount_cents: 0,
    credits_applied_cents: 0,
    total_cents: 0,
    days: Array.from({ length: days }, (_, i) => ({ date: `2026-11-0${i + 2}`, root: null, micros: 3_700 })),
  })
  const one = text(renderToString(h(InvoiceLedgers, { invoices: [invoice(1)] })))
  assert.match(one, /Its one day comes to \$0\.0037 delivered\./)
  assert.doesNotMatch(one, /1 day add/)
  assert.match(text(renderToString(h(InvoiceLedgers, { invoices: [invoice(3)] }))), /3 days add up to \$0\.0111 delivered\./)
})
