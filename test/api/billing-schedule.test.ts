import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { deliver, privateCountry } from '../helpers/serving.ts'

/**
 * Issue 19: an account is invoiced only at the instants of its own cadence
 * (weekly Mondays, Net 30 on the 1st, legacy semi-monthly on the 1st and
 * 15th, all 06:00 UTC); a period with nothing to bill carries over to the
 * next instant of the same cadence.
 */
const h = useService({}, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })

async function moveTo(iso: string): Promise<void> {
  const res = await h.admin.post('/admin/v1/clock', { now: iso })
  assert.equal(res.status, 200, res.text)
}

async function campaign(adv: Advertiser, country: string, cpm: number): Promise<void> {
  const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 10_000, cpm_usd: cpm }))
  assert.equal(res.status, 201, res.text)
}

const invoices = async (adv: Advertiser) => (await h.admin.get(`/admin/v1/accounts/${adv.userId}/invoices`)).body.invoices
const createdAt = async (adv: Advertiser) =>
  (await h.svc.service.store.db.selectFrom('accounts').select('created_at').where('user_id', '=', adv.userId).executeTakeFirstOrThrow()).created_at

async function runInvoicingNow(): Promise<void> {
  assert.equal((await h.admin.post('/admin/v1/jobs/invoicing/run')).status, 200)
}

// Each test runs in its own weeks of service time; the clock starts Monday 2026-11-02 09:00 UTC.

test('weekly: a sub-cent Monday carries over to the next Monday, never to the 1st nor to a mid-week run', async () => {
  await moveTo('2026-11-23T10:00:00Z') // a Monday
  const adv = await h.advertiser({ billing: 'card' })
  const country = privateCountry()
  await campaign(adv, country, 1) // 1,000 micros (0.1 cent) an impression
  assert.equal(await deliver(h, country, 1), 1)
  await moveTo('2026-11-30T06:00:00Z')
  assert.deepEqual(await invoices(adv), [], 'nothing to bill on Monday: no invoice')

  assert.equal(await deliver(h, country, 10), 10) // 11,000 micros in all: 1.1 cents
  await runInvoicingNow()
  assert.deepEqual(await invoices(adv), [], 'a mid-week run bills only up to the last Monday, which had nothing')
  await moveTo('2026-12-01T06:00:00Z') // a Tuesday: Net 30 and semi-monthly only
  assert.deepEqual(await invoices(adv), [], 'the 1st is not a weekly instant')

  await moveTo('2026-12-07T06:00:00Z')
  const [invoice, ...rest] = await invoices(adv)
  assert.equal(rest.length, 0)
  assert.deepEqual(invoice.period, { start: (await createdAt(adv)).toISOString(), end: '2026-12-07T06:00:00.000Z' })
  assert.equal(invoice.finalized_at, '2026-12-07T06:00:00.000Z')
  assert.deepEqual([invoice.delivered_micros, invoice.amount_cents, invoice.status], [11_000, 1, 'paid'])
})

test('Net 30: a period with nothing to bill on the 1st carries to the next 1st, never to a Monday', async () => {
  await moveTo('2026-12-07T07:00:00Z')
  const adv = await h.advertiser({ billing: 'net30' })
  const country = privateCountry()
  await campaign(adv, country, 20) // 2 cents an impression
  await moveTo('2027-01-01T06:00:00Z')
  assert.deepEqual(await invoices(adv), [])
  assert.equal(await deliver(h, country, 5), 5)
  await moveTo('2027-01-04T06:00:00Z') // a Monday
  await runInvoicingNow()
  assert.deepEqual(await invoices(adv), [], 'the delivery after the 1st waits for the next 1st')

  await moveTo('2027-02-01T06:00:00Z')
  const [invoice, ...rest] = await invoices(adv)
  assert.equal(rest.length, 0)
  assert.deepEqual(invoice.period, { start: (await createdAt(adv)).toISOString(), end: '2027-02-01T06:00:00.000Z' })
  assert.deepEqual([invoice.amount_cents, invoice.status, invoice.due_at], [10, 'open', '2027-03-03T06:00:00.000Z'])
})

test('legacy semi-monthly auto-pay: an operator enrolls it; it is charged on the 1st and the 15th only', async () => {
  await moveTo('2027-02-01T07:00:00Z') // a Monday
  const adv = await h.advertiser({ billing: 'none' })
  const enrolled = await h.admin.post(`/admin/v1/accounts/${adv.userId}/billing`, {
    mode: 'legacy_semimonthly_autopay',
    card_number: '4242424242424242',
  })
  assert.equal(enrolled.status, 200, enrolled.text)
  assert.equal(enrolled.body.effective_billing_mode, 'legacy_semimonthly_autopay')
  assert.equal(enrolled.body.next_bill_at, '2027-02-15T06:00:00.000Z')
  assert.deepEqual(enrolled.body.payment_method, { brand: 'visa', last4: '4242' })
  const account = (await adv.get('/v1/account')).body
  assert.equal(account.billing, 'legacy_semimonthly_autopay')
  assert.deepEqual(
    [account.balance.billing_mode, account.balance.cadence, account.balance.next_invoice_at, account.access.campaign_writes],
    ['legacy_semimonthly_autopay', 'semi_monthly_1_15', '2027-02-15T06:00:00.000Z', 'operational'],
  )

  const country = privateCountry()
  await campaign(adv, country, 4) // 4,000 micros an impression
  assert.equal(await deliver(h, country, 3), 3)
  await moveTo('2027-02-08T06:00:00Z')
  assert.deepEqual(await invoices(adv), [], 'Mondays do not invoice semi-monthly accounts')
  await moveTo('2027-02-15T06:00:00Z')
  assert.equal(await deliver(h, country, 5), 5)
  await moveTo('2027-03-01T06:00:00Z')
  const [second, first] = await invoices(adv)
  assert.deepEqual(first.period.end, '2027-02-15T06:00:00.000Z')
  assert.deepEqual([first.billing_mode, first.delivered_micros, first.amount_cents, first.status, first.charge_attempts], [
    'legacy_semimonthly_autopay',
    12_000,
    1,
    'paid',
    1,
  ])
  assert.deepEqual(second.period, { start: '2027-02-15T06:00:00.000Z', end: '2027-03-01T06:00:00.000Z' })
  assert.deepEqual([second.delivered_micros, second.amount_cents, second.status], [20_000, 2, 'paid'])
  assert.equal((await adv.get('/v1/account')).body.balance.last_invoiced_at !== null, true)
})

test('legacy semi-monthly: a failing card fails like weekly auto-pay; the enrollment body is validated', async () => {
  await moveTo('2027-03-01T07:00:00Z')
  const adv = await h.advertiser({ billing: 'none' })
  const missingCard = await h.admin.post(`/admin/v1/accounts/${adv.userId}/billing`, { mode: 'legacy_semimonthly_autopay' })
  assert.equal(missingCard.status, 400)
  assert.ok(missingCard.body.detail)
  const enrolled = await h.admin.post(`/admin/v1/accounts/${adv.userId}/billing`, {
    mode: 'legacy_semimonthly_autopay',
    card_number: '4000000000000341',
  })
  assert.equal(enrolled.status, 200, enrolled.text)
  const country = privateCountry()
  await campaign(adv, country, 10)
  assert.equal(await deliver(h, country, 2), 2)
  await moveTo('2027-03-15T06:00:00Z')
  const [invoice] = await invoices(adv)
  assert.deepEqual([invoice.period.end, invoice.status], ['2027-03-15T06:00:00.000Z', 'payment_failed'])
  assert.equal((await adv.get('/v1/account')).body.access.campaign_writes, 'billing_required')
})
