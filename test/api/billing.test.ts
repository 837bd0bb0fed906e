import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { decide, deliver, privateCountry } from '../helpers/serving.ts'

// The clock starts Monday 2026-11-02 09:00 UTC.
const h = useService({}, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })

async function moveTo(iso: string): Promise<void> {
  const res = await h.admin.post('/admin/v1/clock', { now: iso })
  assert.equal(res.status, 200, res.text)
}

async function campaign(adv: Advertiser, country: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 10_000, ...overrides }))
  assert.equal(res.status, 201, res.text)
  return res.body.campaign_id
}

const balance = async (adv: Advertiser) => (await adv.get('/v1/account')).body.balance
const invoices = async (adv: Advertiser) => (await h.admin.get(`/admin/v1/accounts/${adv.userId}/invoices`)).body.invoices
const events = async (adv: Advertiser) =>
  (await h.svc.service.store.db.selectFrom('billing_events').select('event_type').where('user_id', '=', adv.userId).orderBy('event_id').execute()).map(
    (e) => e.event_type,
  )

// Each test runs in its own weeks of service time, so schedules never overlap.

test('weekly auto-pay: Monday 06:00 UTC finalizes delivered value and charges the card', async () => {
  await moveTo('2026-11-02T09:00:00Z')
  const adv = await h.advertiser({ billing: 'card' })
  const country = privateCountry()
  await campaign(adv, country, { cpm_usd: 4 }) // 4,000 micros an impression
  assert.equal(await deliver(h, country, 3), 3)
  const before = await balance(adv)
  assert.equal(before.unbilled_delivered_micros, 12_000)
  assert.equal(before.pending_cents, 1) // 1.2 cents, half up
  assert.equal(before.owed_cents, 1)
  assert.equal(before.next_invoice_at, '2026-11-09T06:00:00.000Z')
  assert.equal((await adv.get('/v1/account')).body.outstanding_cents, 1)

  await moveTo('2026-11-09T06:00:00Z')
  const [invoice] = await invoices(adv)
  assert.equal(invoice.period.end, '2026-11-09T06:00:00.000Z')
  assert.equal(invoice.delivered_micros, 12_000)
  assert.equal(invoice.amount_cents, 1)
  assert.equal(invoice.status, 'paid')
  const after = await balance(adv)
  assert.deepEqual(
    [after.unbilled_delivered_micros, after.pending_cents, after.invoiced_cents, after.paid_cents, after.owed_cents, after.invoiced_charge_count],
    [0, 0, 1, 1, 0, 1],
  )
  assert.equal(after.last_invoiced_at, '2026-11-09T06:00:00.000Z')
  assert.equal(after.next_invoice_at, '2026-11-16T06:00:00.000Z')
  assert.deepEqual(await events(adv), ['invoice_finalized', 'charge_attempted', 'charge_succeeded'])
})

test('rounding never drifts: cents follow the cumulative delivered value', async () => {
  await moveTo('2026-11-16T07:00:00Z')
  const adv = await h.advertiser({ billing: 'card' })
  const country = privateCountry()
  await campaign(adv, country, { cpm_usd: 2.5 }) // 2,500 micros: three make 0.75 cent
  const weeks = ['2026-11-23T06:00:00Z', '2026-11-30T06:00:00Z', '2026-12-07T06:00:00Z', '2026-12-14T06:00:00Z']
  for (const monday of weeks) {
    await deliver(h, country, 3)
    await moveTo(monday)
  }
  const all = (await invoices(adv)).reverse()
  // 0.75 → 1, 1.50 → 2 (+1), 2.25 → 2 (nothing to bill: carried), 3.00 → 3 (+1)
  assert.deepEqual(all.map((i: any) => i.amount_cents), [1, 1, 1])
  assert.deepEqual(all.map((i: any) => i.delivered_micros), [7_500, 7_500, 15_000])
  const b = await balance(adv)
  assert.equal(b.invoiced_cents, 3)
  assert.equal(b.unbilled_delivered_micros, 0)
})

test('an invoicing run is idempotent by period: twice, or late, never double-invoices', async () => {
  await moveTo('2026-12-14T07:00:00Z')
  const adv = await h.advertiser({ billing: 'card' })
  const country = privateCountry()
  await campaign(adv, country)
  await deliver(h, country, 4)
  await moveTo('2026-12-21T09:30:00Z') // the Monday run happened at 06:00
  for (let i = 0; i < 3; i++) assert.equal((await h.admin.post('/admin/v1/jobs/invoicing/run')).status, 200)
  assert.equal((await invoices(adv)).length, 1)
  // A run before the next Monday never invents that period.
  await deliver(h, country, 2)
  await h.admin.post('/admin/v1/jobs/invoicing/run')
  assert.equal((await invoices(adv)).length, 1)
  assert.equal((await balance(adv)).unbilled_delivered_micros, 2 * 2500)
})

test('a failed charge: payment_failed, writes 402, reads open, delivery held; a working card recovers', async () => {
  await moveTo('2026-12-21T10:00:00Z')
  const adv = await h.advertiser({ billing: 'failing_card' })
  const country = privateCountry()
  const id = await campaign(adv, country, { cpm_usd: 10 })
  await deliver(h, country, 5)
  await moveTo('2026-12-28T06:00:00Z')
  const [failed] = await invoices(adv)
  assert.equal(failed.status, 'payment_failed')
  const account = (await adv.get('/v1/account')).body
  assert.equal(account.billing_profile.collection_status, 'payment_failed')
  assert.equal(account.balance.collection_status, 'payment_failed')
  assert.equal(account.access.campaign_writes, 'billing_required')
  assert.equal(account.balance.owed_cents, 5)
  assert.equal(account.balance.pending_charge_count, 1)
  assert.equal((await adv.post('/v1/campaigns', campaignBody())).status, 402)
  assert.equal((await adv.post(`/v1/campaigns/${id}/pause`)).status, 402)
  assert.equal((await adv.get('/v1/campaigns')).status, 200)
  assert.equal(await decide(h.anonymous, { country }), null, 'campaigns of a failed account do not serve')

  const enrolled = await h.admin.post(`/admin/v1/accounts/${adv.userId}/billing`, { mode: 'weekly_autopay', card_number: '4242424242424242' })
  assert.equal(enrolled.status, 200)
  assert.equal(enrolled.body.collection_status, 'ready')
  const [recovered] = await invoices(adv)
  assert.equal(recovered.status, 'paid')
  assert.equal(recovered.charge_attempts, 2)
  assert.equal((await balance(adv)).owed_cents, 0)
  assert.ok(await decide(h.anonymous, { country }), 'serving resumes')
  assert.equal((await adv.post(`/v1/campaigns/${id}/pause`)).status, 200)
  assert.deepEqual(await events(adv), [
    'invoice_finalized',
    'charge_attempted',
    'charge_failed',
    'charge_attempted',
    'charge_succeeded',
  ])
})

test('Net 30: the 1st at 06:00 UTC finalizes an invoice due 30 days later; the operator records payment', async () => {
  await moveTo('2027-01-04T10:00:00Z')
  const adv = await h.advertiser({ billing: 'net30' })
  const country = privateCountry()
  await campaign(adv, country, { cpm_usd: 20 })
  await deliver(h, country, 5) // 10 cents
  await moveTo('2027-01-25T06:00:00Z')
  assert.equal((await invoices(adv)).length, 0, 'Mondays do not invoice Net 30 accounts')
  await moveTo('2027-02-01T06:00:00Z')
  const [invoice] = await invoices(adv)
  assert.equal(invoice.status, 'open')
  assert.equal(invoice.amount_cents, 10)
  assert.equal(invoice.due_at, '2027-03-03T06:00:00.000Z')
  const b = await balance(adv)
  assert.deepEqual([b.pending_cents, b.invoiced_cents, b.owed_cents, b.pending_charge_count], [0, 10, 10, 1])
  assert.equal(b.cadence, 'monthly_1st_0600_utc_net30')

  const paid = await h.admin.post(`/admin/v1/invoices/${invoice.invoice_id}/mark-paid`)
  assert.equal(paid.status, 200)
  assert.equal(paid.body.status, 'paid')
  assert.equal((await h.admin.post(`/admin/v1/invoices/${invoice.invoice_id}/mark-paid`)).body.status, 'paid', 'paying twice is a no-op')
  const settled = await balance(adv)
  assert.deepEqual([settled.owed_cents, settled.paid_cents], [0, 10])
  assert.equal((await h.admin.post('/admin/v1/invoices/inv_unknown/mark-paid')).status, 404)
})

test('posted credits apply to the next invoice and carry any rest', async () => {
  await moveTo('2027-02-01T10:00:00Z')
  const adv = await h.advertiser({ billing: 'card' })
  const country = privateCountry()
  await campaign(adv, country, { cpm_usd: 40 }) // 4 cents an impression
  const credit = await h.admin.post(`/admin/v1/accounts/${adv.userId}/credits`, { amount_cents: 30, memo: 'Service credit' })
  assert.equal(credit.status, 201)
  assert.equal((await balance(adv)).credits_cents, 30)
  assert.equal((await balance(adv)).owed_cents, -30)

  await deliver(h, country, 5) // 20 cents
  await moveTo('2027-02-08T06:00:00Z')
  const [first] = await invoices(adv)
  assert.deepEqual([first.amount_cents, first.credits_applied_cents, first.total_cents, first.status], [20, 20, 0, 'paid'])
  assert.equal((await balance(adv)).credits_cents, 10, 'the rest carries')

  await deliver(h, country, 5)
  await moveTo('2027-02-15T06:00:00Z')
  const [second] = await invoices(adv)
  assert.deepEqual([second.amount_cents, second.credits_applied_cents, second.total_cents], [20, 10, 10])
  const b = await balance(adv)
  assert.deepEqual([b.credits_cents, b.owed_cents, b.paid_cents], [0, 0, 10])
  assert.ok((await events(adv)).includes('credit_posted'))
  assert.equal((await h.admin.post(`/admin/v1/accounts/${adv.userId}/credits`, { amount_cents: 0, memo: 'x' })).status, 400)
})

test('cancelling bills delivered impressions only', async () => {
  await moveTo('2027-02-15T10:00:00Z')
  const adv = await h.advertiser({ billing: 'card' })
  const country = privateCountry()
  const id = await campaign(adv, country, { cpm_usd: 10, impressions: 3000 })
  await deliver(h, country, 7)
  await adv.delete(`/v1/campaigns/${id}`)
  await moveTo('2027-02-22T06:00:00Z')
  const [invoice] = await invoices(adv)
  assert.equal(invoice.delivered_micros, 7 * 10_000)
  assert.equal(invoice.amount_cents, 7)
})

test('the outstanding-balance cap is reached by delivered value not yet invoiced, never by face value', async () => {
  await moveTo('2027-02-22T10:00:00Z')
  const adv = await h.advertiser({ billing: 'card' })
  const country = privateCountry()
  await campaign(adv, country, { cpm_usd: 5, impressions: 1000 }) // 5 USD face value
  await deliver(h, country, 10) // 10 × 5,000 micros delivered: 5 cents not yet invoiced
  assert.equal((await adv.get('/v1/account')).body.outstanding_cents, 5)
  await h.config({ outstanding_balance_cap_usd: 0.05 })
  try {
    const reached = await adv.post('/v1/campaigns', campaignBody({ cpm_usd: 1, impressions: 1000, start_paused: true }))
    assert.equal(reached.status, 402, reached.text)
    assert.deepEqual(reached.body.detail, { field: 'impressions', reason: 'outstanding_balance_cap', cap_usd: 0.05, outstanding_cents: 5 })
    // Below the cap, an order of any face value fits: 5,000 USD against a cap of 6 cents.
    await h.config({ outstanding_balance_cap_usd: 0.06 })
    const big = await adv.post('/v1/campaigns', campaignBody({ cpm_usd: 50, impressions: 100_000, start_paused: true }))
    assert.equal(big.status, 201, big.text)
    // Once invoiced, the delivered value no longer counts toward the cap.
    await h.config({ outstanding_balance_cap_usd: 0.05 })
    await moveTo('2027-03-01T06:00:00Z')
    const after = await adv.post('/v1/campaigns', campaignBody({ cpm_usd: 1, impressions: 1000, start_paused: true }))
    assert.equal(after.status, 201, after.text)
  } finally {
    await h.config({ outstanding_balance_cap_usd: null })
  }
})

test('a Net 30 account orders until what it owes reaches its credit limit', async () => {
  await moveTo('2027-03-01T10:00:00Z')
  const adv = await h.advertiser({ billing: 'none' })
  await h.admin.post(`/admin/v1/accounts/${adv.userId}/billing`, { mode: 'net30_invoice', credit_limit_cents: 1000 })
  const country = privateCountry()
  // Owing nothing, it may book an order whose face value (1,000 USD) is far above its 10 USD limit.
  await campaign(adv, country, { cpm_usd: 1000, impressions: 1000 }) // 1 USD an impression
  assert.equal(await deliver(h, country, 9), 9)
  assert.equal((await adv.post('/v1/campaigns', campaignBody({ start_paused: true }))).status, 201, 'owes 9 of 10 USD')
  assert.equal(await deliver(h, country, 1), 1)
  const over = await adv.post('/v1/campaigns', campaignBody({ start_paused: true }))
  assert.equal(over.status, 402, over.text)
  assert.deepEqual(over.body.detail, { field: 'impressions', reason: 'credit_limit', credit_limit_cents: 1000, owed_cents: 1000 })
})
