import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService } from '../helpers/api.ts'
import { deliver, privateCountry } from '../helpers/serving.ts'
import { NEW_ACCOUNT, portalAdvertiser, signInAgain, type PortalAdvertiser } from '../helpers/portal.ts'

/**
 * `/portal/billing` (operations.md section 5, docs/billing.md): enrollment
 * with each test card, Net 30, every collection status with its next step,
 * the Balance in dollars and the invoices, through the services the operator
 * endpoints use. The clock starts Monday 2026-11-02 09:00 UTC; each test that
 * invoices runs in its own weeks.
 */
const h = useService({}, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })

async function moveTo(iso: string): Promise<void> {
  const res = await h.admin.post('/admin/v1/clock', { now: iso })
  assert.equal(res.status, 200, res.text)
}

const billing = (adv: PortalAdvertiser) => adv.browser.get('/portal/billing')
const enroll = async (adv: PortalAdvertiser, card: string) => adv.browser.post('/portal/billing/card', { card_number: card }, await billing(adv))
const profile = async (adv: PortalAdvertiser) => (await adv.api.get('/v1/account')).body.billing_profile

/** A campaign for a private country, and `n` billable impressions delivered to it. */
async function deliverValue(adv: PortalAdvertiser, n: number, cpm = 10): Promise<void> {
  const country = privateCountry()
  const created = await adv.api.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 10_000, cpm_usd: cpm }))
  assert.equal(created.status, 201, created.text)
  assert.equal(await deliver(h, country, n), n)
}

/** The invoice table's rows as text, one string per row. */
function invoiceRows(text: string): string[] {
  const table = /<h2 id="invoices-h">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(text)?.[1] ?? ''
  return [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim())
}

test('not enrolled: the status and its next step, both ways to enroll, a zero balance, no invoices', async () => {
  const adv = await portalAdvertiser(h, NEW_ACCOUNT)
  const page = await billing(adv)
  assert.equal(page.status, 200)
  assert.match(page.text, /<title>Billing · Advertiser portal<\/title>/)
  assert.match(page.words, /Billing status Not set up Enroll a card for weekly auto-pay, or request Net 30 invoicing\./)
  assert.match(page.text, /<label for="f-card_number">Card number<\/label>/)
  assert.deepEqual(page.buttons, ['Sign out', 'Enroll weekly auto-pay', 'Request Net 30'])
  for (const card of ['4242 4242 4242 4242', '4000 0000 0000 0341', '4000 0025 0000 3155']) assert.ok(page.words.includes(card), card)
  assert.match(page.words, /Owed \$0\.00/)
  assert.match(page.words, /Not yet invoiced \$0\.00 Invoiced, unpaid \$0\.00/)
  assert.match(page.words, /Next invoice After billing is set up/)
  assert.match(page.words, /No invoices yet/)
})

test('4242424242424242: the card is enrolled and collection is ready', async () => {
  const adv = await portalAdvertiser(h, NEW_ACCOUNT)
  const res = await enroll(adv, '4242 4242 4242 4242')
  assert.equal(res.status, 303)
  assert.equal(res.location, '/portal/billing?notice=card_enrolled')
  const page = await adv.browser.get(res.location!)
  assert.match(page.words, /Your card is enrolled for weekly auto-pay\./)
  assert.match(page.words, /Billing status Ready Billing works\. Nothing to do\. Next: an operator approves your account, usually within one business day; we email you when it is approved\./)
  assert.match(page.words, /Arrangement Weekly auto-pay \(card charged Mondays 06:00 UTC\) Card visa ending 4242 Next bill 2026-11-09 06:00 UTC/)
  // The card on file, and "Replace card" instead of an empty enrolment form (issue 36).
  assert.match(page.words, /Card on file: Visa ending 4242 ?\. Replace card/)
  assert.match(page.text, /<details class="replace-card"><summary>Replace card<\/summary>/)
  assert.deepEqual(page.buttons, ['Sign out', 'Replace card', 'Request Net 30'])
  const p = await profile(adv)
  assert.equal(p.collection_status, 'ready')
  assert.deepEqual(p.payment_method, { brand: 'visa', last4: '4242' })
})

test('an unknown card number is refused by the processor: the error is next to Card number', async () => {
  const adv = await portalAdvertiser(h, NEW_ACCOUNT)
  for (const number of ['1234567812345678', '']) {
    const res = await enroll(adv, number)
    assert.equal(res.status, 400)
    assert.equal(res.fieldError('card_number'), 'The payment processor refused this card number. Check it, or use one of the test cards listed below.')
    assert.match(res.text, /id="f-card_number"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="f-card_number"|<input id="f-card_number" name="card_number" aria-invalid="true"/)
    assert.match(res.words, /Billing status Not set up/)
  }
  assert.equal((await profile(adv)).collection_status, 'not_enrolled')
})

test('4000002500003155: the card waits for the holder, who authenticates it on the page', async () => {
  const adv = await portalAdvertiser(h, { ...NEW_ACCOUNT, approved: true, terms: true })
  const res = await enroll(adv, '4000002500003155')
  assert.equal(res.location, '/portal/billing?notice=card_needs_authentication')
  const page = await billing(adv)
  assert.match(page.words, /Billing status Card waiting for your authentication Your bank asks you to confirm this card/)
  assert.deepEqual(page.buttons, ['Sign out', 'Authenticate card', 'Replace card', 'Request Net 30'])
  assert.equal((await profile(adv)).collection_status, 'setup_pending')
  const overview = await adv.browser.get('/portal')
  assert.match(overview.words, /Billing \(next step\) Now: Card waiting for your authentication\./)

  const done = await adv.browser.post('/portal/billing/authenticate', {}, page)
  assert.equal(done.location, '/portal/billing?notice=card_authenticated')
  const ready = await billing(adv)
  assert.match(ready.words, /Billing status Ready Billing works\. Nothing to do\. Next: create a campaign ?\. You are billed only for what it delivers\./)
  assert.ok(ready.text.includes('<a href="/portal/campaigns/new">create a campaign</a>'), 'the next step is a link')
  assert.equal((await adv.api.get('/v1/account')).body.access.campaign_writes, 'operational')
  // The same form sent again from the old page: nothing waits any more, said on the page.
  const stale = await adv.browser.post('/portal/billing/authenticate', {}, page)
  assert.equal(stale.status, 409)
  assert.match(stale.words, /Nothing is waiting for your authentication any more\./)
})

test('4000000000000341 attaches, then its charge is declined: payment failed, the next step, and recovery with a working card', async () => {
  await moveTo('2026-11-02T10:00:00Z')
  const adv = await portalAdvertiser(h, { ...NEW_ACCOUNT, approved: true, terms: true })
  assert.equal((await enroll(adv, '4000000000000341')).location, '/portal/billing?notice=card_enrolled')
  assert.match((await billing(adv)).words, /Billing status Ready/)
  await deliverValue(adv, 5) // 5 × $0.010 = $0.05
  const before = await billing(adv)
  assert.match(before.words, /Owed \$0\.05/)
  assert.match(before.words, /Not yet invoiced \$0\.05 \(\$0\.05 delivered; invoices round to the cent\)/)

  await moveTo('2026-11-09T06:00:00Z')
  await signInAgain(adv) // days passed: the session idled out
  const failed = await billing(adv)
  assert.match(failed.words, /Billing status Payment failed A charge on your card was declined and your campaigns stopped serving\. Enroll a working card/)
  assert.deepEqual(invoiceRows(failed.text), ['2026-11-02 – 2026-11-09 $0.05 $0.00 $0.05 Payment failed 2026-11-09 06:00 UTC'])
  assert.match(failed.words, /Invoiced, unpaid \$0\.05 \(1 invoice awaits payment\)/)
  assert.match((await adv.browser.get('/portal')).words, /Invoiced, unpaid \$0\.05 1 invoice awaits payment/)
  assert.equal((await adv.api.get('/v1/account')).body.balance.unpaid_cents, 5)
  assert.match((await adv.browser.get('/portal')).words, /Billing \(next step\) Now: Payment failed\./)

  assert.equal((await enroll(adv, '4242424242424242')).location, '/portal/billing?notice=card_enrolled')
  const recovered = await billing(adv)
  assert.match(recovered.words, /Billing status Ready/)
  assert.deepEqual(invoiceRows(recovered.text), ['2026-11-02 – 2026-11-09 $0.05 $0.00 $0.05 Paid 2026-11-09 06:00 UTC'])
  assert.match(recovered.words, /Owed \$0\.00/)
  assert.match(recovered.words, /Paid \$0\.05/)
  assert.match(recovered.words, /Invoiced, unpaid \$0\.00 \(0 invoices await payment\) Invoiced to date \$0\.05 \(1 invoice, paid or not, before credits\)/)
})

test('invoices after a weekly run: period, amount, credits applied, total, status and due date; the Balance in dollars', async () => {
  await moveTo('2026-11-09T07:00:00Z')
  const adv = await portalAdvertiser(h, { ...NEW_ACCOUNT, approved: true, terms: true, billing: 'card' })
  await deliverValue(adv, 12, 25) // 12 × $0.025 = $0.30
  const credit = await h.admin.post(`/admin/v1/accounts/${adv.userId}/credits`, { amount_cents: 10, memo: 'goodwill' })
  assert.equal(credit.status, 201, credit.text)
  assert.match((await billing(adv)).words, /Unapplied credits \$0\.10/)

  await moveTo('2026-11-16T06:00:00Z')
  await signInAgain(adv) // days passed: the session idled out
  const page = await billing(adv)
  assert.deepEqual(invoiceRows(page.text), ['2026-11-09 – 2026-11-16 $0.30 $0.10 $0.20 Paid 2026-11-16 06:00 UTC'])
  const api = (await adv.api.get('/v1/account')).body.balance
  assert.deepEqual([api.invoiced_cents, api.unpaid_cents, api.paid_cents, api.credits_cents, api.owed_cents], [30, 0, 20, 0, 0])
  // Paid: nothing reads as unpaid, on the billing page or the overview (issue 51), though $0.30 was invoiced.
  assert.match(page.words, /Invoiced, unpaid \$0\.00 \(0 invoices await payment\)/)
  assert.match(page.words, /Invoiced to date \$0\.30 \(1 invoice, paid or not, before credits\)/)
  const overview = await adv.browser.get('/portal')
  assert.match(overview.words, /Owed \$0\.00 .*Invoiced, unpaid \$0\.00 No invoice awaits payment/)
  assert.match(page.words, /Paid \$0\.20/)
  assert.match(page.words, /Unapplied credits \$0\.00/)
  assert.match(page.words, /Last invoiced 2026-11-16 06:00 UTC/)
  assert.match(page.words, /Next invoice 2026-11-23 06:00 UTC/)
  assert.match(page.words, /Cadence Weekly, Mondays 06:00 UTC/)
})

test('a charge held for authentication (4000002500003155): action required, then paid once the holder authenticates', async () => {
  await moveTo('2026-11-16T07:00:00Z')
  const adv = await portalAdvertiser(h, { ...NEW_ACCOUNT, approved: true, terms: true })
  await enroll(adv, '4000002500003155')
  await adv.browser.post('/portal/billing/authenticate', {}, await billing(adv))
  await deliverValue(adv, 3)
  await moveTo('2026-11-23T06:00:00Z')
  await signInAgain(adv) // days passed: the session idled out
  const held = await billing(adv)
  assert.match(held.words, /Billing status Payment waiting for your authentication Your bank holds a charge until you confirm it/)
  assert.deepEqual(invoiceRows(held.text), ['2026-11-16 – 2026-11-23 $0.03 $0.00 $0.03 Waiting for your authentication 2026-11-23 06:00 UTC'])
  assert.ok(held.buttons.includes('Authenticate card'))
  assert.equal((await adv.browser.post('/portal/billing/authenticate', {}, held)).location, '/portal/billing?notice=card_authenticated')
  const paid = await billing(adv)
  assert.match(paid.words, /Billing status Ready/)
  assert.deepEqual(invoiceRows(paid.text), ['2026-11-16 – 2026-11-23 $0.03 $0.00 $0.03 Paid 2026-11-23 06:00 UTC'])
})

test('Request Net 30: under review until an operator approves it; then the credit limit, monthly invoices, and an overdue invoice', async () => {
  await moveTo('2026-11-23T07:00:00Z')
  const adv = await portalAdvertiser(h, { ...NEW_ACCOUNT, approved: true, terms: true })
  const page = await billing(adv)
  const requested = await adv.browser.post('/portal/billing/net30', {}, page)
  assert.equal(requested.location, '/portal/billing?notice=net30_requested')
  const pending = await billing(adv)
  assert.match(pending.words, /Billing status Net 30 request under review An operator reviews Net 30 requests/)
  assert.match(pending.words, /Your Net 30 request is under review/)
  assert.deepEqual(pending.buttons, ['Sign out', 'Enroll weekly auto-pay'], 'no Authenticate card: an operator, not the holder, is awaited')
  const p = await profile(adv)
  assert.deepEqual([p.collection_status, p.requested_billing_mode, p.effective_billing_mode], ['setup_pending', 'net30_invoice', 'disabled'])

  assert.equal((await h.admin.post(`/admin/v1/accounts/${adv.userId}/billing`, { mode: 'net30_invoice', credit_limit_cents: 250_000 })).status, 200)
  const approved = await billing(adv)
  assert.match(approved.words, /Billing status Ready/)
  assert.match(approved.words, /You are on Net 30 with a credit limit of \$2,500\.00/)
  assert.match(approved.words, /Cadence Monthly, the 1st 06:00 UTC, due 30 days later/)
  // The old form sent again: the service refuses, the page says why.
  const again = await adv.browser.post('/portal/billing/net30', {}, page)
  assert.equal(again.status, 409)
  assert.match(again.words, /This account is already on Net 30\./)

  await deliverValue(adv, 4) // $0.04
  await moveTo('2026-12-01T06:00:00Z')
  await signInAgain(adv) // days passed: the session idled out
  assert.deepEqual(invoiceRows((await billing(adv)).text), ['2026-11-23 – 2026-12-01 $0.04 $0.00 $0.04 Open 2026-12-31 06:00 UTC'])
  await moveTo('2026-12-31T07:00:00Z')
  await signInAgain(adv) // days passed: the session idled out
  const overdue = await billing(adv)
  assert.match(overdue.words, /Billing status Invoice overdue A Net 30 invoice is past its due date/)
  assert.deepEqual(invoiceRows(overdue.text), ['2026-11-23 – 2026-12-01 $0.04 $0.00 $0.04 Overdue 2026-12-31 06:00 UTC'])
  assert.match((await adv.browser.get('/portal')).words, /Billing \(next step\) Now: Invoice overdue\./)
})

test('operator holds are shown with their next step', async () => {
  const adv = await portalAdvertiser(h, { ...NEW_ACCOUNT, billing: 'card' })
  assert.equal((await h.admin.post(`/admin/v1/accounts/${adv.userId}/billing/hold`, { hold: 'paused' })).status, 200)
  assert.match((await billing(adv)).words, /Billing status Paused by an operator An operator is holding collection; your campaigns keep serving/)
  assert.equal((await h.admin.post(`/admin/v1/accounts/${adv.userId}/billing/hold`, { hold: 'disabled' })).status, 200)
  assert.match((await billing(adv)).words, /Billing status Disabled by an operator/)
})

test('billing forms refuse a post without the CSRF token', async () => {
  const adv = await portalAdvertiser(h, NEW_ACCOUNT)
  assert.equal((await adv.browser.post('/portal/billing/card', { card_number: '4242424242424242' }, null)).status, 403)
  assert.equal((await adv.browser.post('/portal/billing/net30', {}, null)).status, 403)
  assert.equal((await adv.browser.post('/portal/billing/authenticate', {}, null)).status, 403)
  assert.equal((await profile(adv)).collection_status, 'not_enrolled')
})
