import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { decide, deliver, privateCountry } from '../helpers/serving.ts'

// Every billing state reached through its documented transition (docs/billing.md).
// The clock starts Monday 2026-11-02 09:00 UTC; each test runs in its own stretch of service time.
const h = useService({}, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })

async function moveTo(iso: string): Promise<void> {
  const res = await h.admin.post('/admin/v1/clock', { now: iso })
  assert.equal(res.status, 200, res.text)
}

async function campaign(adv: Advertiser, country: string, cpm = 10): Promise<string> {
  const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 10_000, cpm_usd: cpm }))
  assert.equal(res.status, 201, res.text)
  return res.body.campaign_id
}

const account = async (adv: Advertiser) => (await adv.get('/v1/account')).body
const invoices = async (adv: Advertiser) => (await h.admin.get(`/admin/v1/accounts/${adv.userId}/invoices`)).body.invoices
const billing = (adv: Advertiser, action: string, body?: unknown) => h.admin.post(`/admin/v1/accounts/${adv.userId}/billing/${action}`, body)
const enroll = (adv: Advertiser, body: Record<string, unknown>) => h.admin.post(`/admin/v1/accounts/${adv.userId}/billing`, body)
const events = async (adv: Advertiser) =>
  (await h.svc.service.store.db.selectFrom('billing_events').select('event_type').where('user_id', '=', adv.userId).orderBy('event_id').execute()).map(
    (e) => e.event_type,
  )

/** Checks GET /v1/account (validated against the OpenAPI document) and a write's answer. */
async function expectState(adv: Advertiser, status: string, reason: string | null): Promise<any> {
  const a = await account(adv)
  assert.equal(a.billing_profile.collection_status, status)
  assert.equal(a.balance.collection_status, status)
  assert.equal(a.access.billing_reason, reason)
  assert.equal(a.access.campaign_writes, reason === null ? 'operational' : 'billing_required')
  const write = await adv.post('/v1/campaigns', campaignBody({ start_paused: true }))
  if (reason === null) assert.equal(write.status, 201, write.text)
  else {
    assert.equal(write.status, 402, write.text)
    assert.equal(write.body.detail.reason, reason)
    assert.equal(write.body.detail.collection_status, status)
  }
  return a
}

test('a Net 30 request waits in setup_pending until an operator approves it', async () => {
  const adv = await h.advertiser({ billing: 'none' })
  await expectState(adv, 'not_enrolled', 'billing_not_enrolled')

  const requested = await billing(adv, 'net30-request')
  assert.equal(requested.status, 200, requested.text)
  assert.deepEqual(
    [requested.body.collection_status, requested.body.requested_billing_mode, requested.body.effective_billing_mode],
    ['setup_pending', 'net30_invoice', 'disabled'],
  )
  const pending = await expectState(adv, 'setup_pending', 'billing_setup_pending')
  assert.equal(pending.billing_profile.requested_billing_mode, 'net30_invoice')
  assert.equal(pending.billing_profile.next_bill_at, null)

  const approved = await enroll(adv, { mode: 'net30_invoice', credit_limit_cents: 100_000 })
  assert.equal(approved.body.collection_status, 'ready')
  assert.equal(approved.body.effective_billing_mode, 'net30_invoice')
  await expectState(adv, 'ready', null)
  assert.equal((await billing(adv, 'net30-request')).body.detail.reason, 'already_net30')
  assert.equal((await h.admin.post('/admin/v1/accounts/usr_unknown/billing/net30-request')).status, 404)
})

test('a Net 30 request from a card account keeps the card working until approval', async () => {
  const adv = await h.advertiser({ billing: 'card' })
  const res = await billing(adv, 'net30-request')
  assert.deepEqual(
    [res.body.collection_status, res.body.requested_billing_mode, res.body.effective_billing_mode],
    ['ready', 'net30_invoice', 'weekly_autopay'],
  )
  await expectState(adv, 'ready', null)
})

test('card 4000002500003155: setup_pending until the holder authenticates, then every charge needs action', async () => {
  await moveTo('2026-11-02T10:00:00Z')
  const adv = await h.advertiser({ billing: 'none' })
  const enrolled = await enroll(adv, { mode: 'weekly_autopay', card_number: '4000 0025 0000 3155' })
  assert.equal(enrolled.status, 200, enrolled.text)
  assert.equal(enrolled.body.collection_status, 'setup_pending')
  assert.deepEqual(enrolled.body.payment_method, { brand: 'visa', last4: '3155' })
  await expectState(adv, 'setup_pending', 'billing_setup_pending')

  const authenticated = await billing(adv, 'authenticate')
  assert.equal(authenticated.status, 200, authenticated.text)
  assert.equal(authenticated.body.collection_status, 'ready')
  await expectState(adv, 'ready', null)
  const nothing = await billing(adv, 'authenticate')
  assert.equal(nothing.status, 409)
  assert.equal(nothing.body.detail.reason, 'nothing_to_authenticate')

  const country = privateCountry()
  await campaign(adv, country)
  await deliver(h, country, 3) // 3 cents
  await moveTo('2026-11-09T06:00:00Z')
  const [held] = await invoices(adv)
  assert.deepEqual([held.status, held.awaiting_authentication, held.charge_attempts], ['open', true, 1])
  const a = await expectState(adv, 'action_required', 'payment_action_required')
  assert.equal(a.balance.owed_cents, 3)
  assert.ok(await decide(h.anonymous, { country }), 'delivery continues while the holder is asked to act')
  // A later run does not charge a held charge again.
  await h.admin.post('/admin/v1/jobs/invoicing/run')
  assert.equal((await invoices(adv))[0].charge_attempts, 1)

  assert.equal((await billing(adv, 'authenticate')).body.collection_status, 'ready')
  const [paid] = await invoices(adv)
  assert.deepEqual([paid.status, paid.awaiting_authentication], ['paid', false])
  assert.equal((await account(adv)).balance.paid_cents, 3)
  await expectState(adv, 'ready', null)
  assert.deepEqual((await events(adv)).slice(-4), ['invoice_finalized', 'charge_attempted', 'charge_requires_action', 'charge_succeeded'])
})

test('a working card replaces one awaiting authentication and settles its held charge', async () => {
  await moveTo('2026-11-09T07:00:00Z')
  const adv = await h.advertiser({ billing: 'none' })
  await enroll(adv, { mode: 'weekly_autopay', card_number: '4000002500003155' })
  await billing(adv, 'authenticate')
  const country = privateCountry()
  await campaign(adv, country)
  await deliver(h, country, 2)
  await moveTo('2026-11-16T06:00:00Z')
  await expectState(adv, 'action_required', 'payment_action_required')
  assert.equal((await enroll(adv, { mode: 'weekly_autopay', card_number: '4242424242424242' })).body.collection_status, 'ready')
  const [invoice] = await invoices(adv)
  assert.deepEqual([invoice.status, invoice.charge_attempts], ['paid', 2])
})

test('paused: writes 402, collection held, delivery continues; lifting the hold charges at the next run', async () => {
  await moveTo('2026-11-16T07:00:00Z')
  const adv = await h.advertiser({ billing: 'card' })
  const country = privateCountry()
  await campaign(adv, country)
  const paused = await billing(adv, 'hold', { hold: 'paused' })
  assert.equal(paused.status, 200, paused.text)
  assert.equal(paused.body.collection_status, 'paused')
  await expectState(adv, 'paused', 'billing_paused')
  assert.equal(await deliver(h, country, 4), 4, 'a paused account keeps serving')

  await moveTo('2026-11-23T06:00:00Z')
  const [held] = await invoices(adv)
  assert.deepEqual([held.status, held.charge_attempts, held.amount_cents], ['open', 0, 4])
  assert.equal((await account(adv)).balance.owed_cents, 4)

  assert.equal((await billing(adv, 'hold', { hold: null })).body.collection_status, 'ready')
  await expectState(adv, 'ready', null)
  await h.admin.post('/admin/v1/jobs/invoicing/run')
  assert.equal((await invoices(adv))[0].status, 'paid')
  assert.ok((await events(adv)).includes('collection_hold_set'))
})

test('disabled: writes 402 and delivery stops until the hold is lifted; 403 still wins', async () => {
  await moveTo('2026-11-23T07:00:00Z')
  const adv = await h.advertiser({ billing: 'card' })
  const country = privateCountry()
  await campaign(adv, country)
  assert.equal((await billing(adv, 'hold', { hold: 'disabled' })).body.collection_status, 'disabled')
  await expectState(adv, 'disabled', 'billing_disabled')
  assert.equal(await decide(h.anonymous, { country }), null, 'a disabled account does not serve')

  await h.admin.post(`/admin/v1/accounts/${adv.userId}/terms`, { accepted: false })
  assert.equal((await adv.post('/v1/campaigns', campaignBody())).status, 403)
  assert.equal((await account(adv)).access.campaign_writes, 'terms_required')
  await h.admin.post(`/admin/v1/accounts/${adv.userId}/terms`, { accepted: true })

  assert.equal((await billing(adv, 'hold', { hold: null })).body.collection_status, 'ready')
  assert.ok(await decide(h.anonymous, { country }), 'serving resumes')
  assert.equal((await billing(adv, 'hold', { hold: 'frozen' })).status, 400)
  assert.equal((await billing(adv, 'hold', {})).body.detail.field, 'hold')
  assert.equal((await h.admin.post('/admin/v1/accounts/usr_unknown/billing/hold', { hold: 'paused' })).status, 404)
})

test('an overdue Net 30 invoice makes writes 402 until it is paid; the account overview names it', async () => {
  await moveTo('2026-11-23T08:00:00Z')
  const adv = await h.advertiser({ billing: 'net30' })
  const country = privateCountry()
  await campaign(adv, country, 20)
  await deliver(h, country, 5) // 10 cents
  await moveTo('2026-12-01T06:00:00Z')
  const [invoice] = await invoices(adv)
  assert.equal(invoice.due_at, '2026-12-31T06:00:00.000Z')

  await moveTo('2026-12-31T06:00:00Z') // due, not yet past due
  assert.deepEqual((await expectState(adv, 'ready', null)).balance.overdue_invoices, [])
  await moveTo('2026-12-31T06:00:01Z')
  const a = await expectState(adv, 'ready', 'invoice_overdue')
  assert.deepEqual(a.balance.overdue_invoices, [{ invoice_id: invoice.invoice_id, total_cents: 10, due_at: '2026-12-31T06:00:00.000Z' }])
  const denied = await adv.post('/v1/campaigns', campaignBody())
  assert.deepEqual(denied.body.detail.invoice_ids, [invoice.invoice_id])
  assert.ok(await decide(h.anonymous, { country }), 'an overdue Net 30 account keeps serving')

  assert.equal((await h.admin.post(`/admin/v1/invoices/${invoice.invoice_id}/mark-paid`)).status, 200)
  assert.deepEqual((await expectState(adv, 'ready', null)).balance.overdue_invoices, [])
})

test('voiding forgives a finalized unpaid invoice, returns its credits and never bills the value again', async () => {
  await moveTo('2026-12-31T07:00:00Z')
  const adv = await h.advertiser({ billing: 'net30' })
  const country = privateCountry()
  await campaign(adv, country, 20) // 2 cents an impression
  await h.admin.post(`/admin/v1/accounts/${adv.userId}/credits`, { amount_cents: 4, memo: 'Service credit' })
  await deliver(h, country, 5) // 10 cents
  await moveTo('2027-01-01T06:00:00Z')
  const [invoice] = await invoices(adv)
  assert.deepEqual([invoice.amount_cents, invoice.credits_applied_cents, invoice.total_cents], [10, 4, 6])
  const before = (await account(adv)).balance
  assert.deepEqual([before.owed_cents, before.credits_cents, before.voided_cents], [6, 0, 0])

  const voided = await h.admin.post(`/admin/v1/invoices/${invoice.invoice_id}/void`, { memo: 'Disputed delivery' })
  assert.equal(voided.status, 200, voided.text)
  assert.equal(voided.body.status, 'void')
  const after = (await account(adv)).balance
  assert.deepEqual(
    [after.voided_cents, after.credits_cents, after.owed_cents, after.pending_charge_count, after.invoiced_cents, after.pending_cents],
    [10, 4, -4, 0, 10, 0],
  )
  // Every invoiced cent is paid, void, unpaid or covered by credits still applied.
  assert.equal(after.invoiced_cents, after.paid_cents + after.voided_cents)

  await deliver(h, country, 3) // 6 cents more
  await moveTo('2027-02-01T06:00:00Z')
  const [next] = await invoices(adv)
  assert.deepEqual([next.delivered_micros, next.amount_cents, next.credits_applied_cents, next.total_cents], [60_000, 6, 4, 2])

  const again = await h.admin.post(`/admin/v1/invoices/${invoice.invoice_id}/void`, { memo: 'twice' })
  assert.equal(again.status, 409)
  assert.deepEqual(again.body.detail, { field: 'invoice_id', reason: 'invoice_not_unpaid', status: 'void' })
  await h.admin.post(`/admin/v1/invoices/${next.invoice_id}/mark-paid`)
  assert.equal((await h.admin.post(`/admin/v1/invoices/${next.invoice_id}/void`, { memo: 'paid' })).status, 409)
  assert.equal((await h.admin.post('/admin/v1/invoices/inv_unknown/void', { memo: 'x' })).status, 404)
  assert.equal((await h.admin.post(`/admin/v1/invoices/${next.invoice_id}/void`, {})).status, 400)
  assert.ok((await events(adv)).includes('invoice_voided'))
})

test('voiding the failed invoice of a declined card returns the account to ready and to serving', async () => {
  await moveTo('2027-02-01T07:00:00Z')
  const adv = await h.advertiser({ billing: 'failing_card' })
  const country = privateCountry()
  await campaign(adv, country)
  await deliver(h, country, 2)
  await moveTo('2027-02-08T06:00:00Z')
  const [failed] = await invoices(adv)
  assert.equal(failed.status, 'payment_failed')
  await expectState(adv, 'payment_failed', 'payment_failed')
  assert.equal(await decide(h.anonymous, { country }), null)

  await h.admin.post(`/admin/v1/invoices/${failed.invoice_id}/void`, { memo: 'Written off' })
  const a = await expectState(adv, 'ready', null)
  assert.deepEqual([a.balance.owed_cents, a.balance.voided_cents], [0, 2])
  assert.ok(await decide(h.anonymous, { country }))
})

test('a declined account moving to card 3155: one authentication confirms the card and its held retry', async () => {
  await moveTo('2027-02-08T07:00:00Z')
  const adv = await h.advertiser({ billing: 'failing_card' })
  const country = privateCountry()
  await campaign(adv, country)
  await deliver(h, country, 2)
  await moveTo('2027-02-15T06:00:00Z')
  await expectState(adv, 'payment_failed', 'payment_failed')

  assert.equal((await enroll(adv, { mode: 'weekly_autopay', card_number: '4000002500003155' })).body.collection_status, 'setup_pending')
  const [retried] = await invoices(adv)
  assert.deepEqual([retried.status, retried.awaiting_authentication], ['open', true], 'the retry waits for the holder')
  await expectState(adv, 'setup_pending', 'billing_setup_pending')
  assert.ok(await decide(h.anonymous, { country }), 'the declined card no longer holds delivery')

  assert.equal((await billing(adv, 'authenticate')).body.collection_status, 'ready')
  assert.equal((await invoices(adv))[0].status, 'paid')
  await expectState(adv, 'ready', null)
})
