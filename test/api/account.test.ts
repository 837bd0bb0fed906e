import assert from 'node:assert/strict'
import { test } from 'node:test'
import { TERMS_VERSION } from '../../src/domain/terms.ts'
import { useService } from '../helpers/api.ts'

const h = useService()

test('GET /account returns every field, balance computed and zero for a new account', async () => {
  const adv = await h.advertiser({ approved: false, terms: false, billing: 'none' })
  const res = await adv.get('/v1/account')
  assert.equal(res.status, 200)
  const a = res.body
  assert.equal(a.user_id, adv.userId)
  assert.ok(adv.apiKey.startsWith(a.key_prefix))
  assert.match(a.key_prefix, /^sk_live_/)
  assert.equal(a.currency, 'usd')
  assert.equal(a.billing, 'delivered_value_postpay')
  assert.equal(a.outstanding_cents, 0)
  assert.equal(a.balance.owed_cents, 0)
  assert.equal(a.balance.amount_basis, 'delivered_value')
  assert.equal(a.billing_profile.collection_status, 'not_enrolled')
  assert.equal(a.billing_profile.effective_billing_mode, 'disabled')
  assert.deepEqual(a.access, {
    reporting: 'operational',
    campaign_writes: 'pending_approval',
    billing_reason: 'billing_not_enrolled',
    write_approved: false,
    terms_accepted: false,
    terms_version: null,
  })
  assert.deepEqual(a.balance.overdue_invoices, [])
  assert.equal(a.config.block_impressions, 1000)
  assert.equal(a.config.min_cpm_usd, 0.5)
  assert.equal(a.config.max_blocks, 100)
})

test('access.terms_version names the accepted terms version (null until accepted)', async () => {
  const adv = await h.advertiser({ terms: false, billing: 'none' })
  assert.equal((await adv.get('/v1/account')).body.access.terms_version, null)
  assert.equal((await h.admin.post(`/admin/v1/accounts/${adv.userId}/terms`, { accepted: true })).status, 200)
  const access = (await adv.get('/v1/account')).body.access
  assert.equal(access.terms_accepted, true)
  assert.equal(access.terms_version, TERMS_VERSION)
})

test('key_last_used_at is stamped with service time on use', async () => {
  const adv = await h.advertiser()
  const res = await adv.get('/v1/account')
  assert.equal(res.body.key_last_used_at, h.svc.clock.now().toISOString())
})

test('access.campaign_writes names the first missing prerequisite', async () => {
  const cases = [
    [{ approved: false, terms: false, billing: 'none' }, 'pending_approval'],
    [{ approved: true, terms: false, billing: 'none' }, 'terms_required'],
    [{ approved: true, terms: true, billing: 'none' }, 'billing_required'],
    [{ approved: true, terms: true, billing: 'card' }, 'operational'],
    [{ approved: true, terms: true, billing: 'net30' }, 'operational'],
  ] as const
  for (const [setup, expected] of cases) {
    const adv = await h.advertiser(setup)
    assert.equal((await adv.get('/v1/account')).body.access.campaign_writes, expected, JSON.stringify(setup))
  }
  const disabled = await h.advertiser()
  await h.admin.post(`/admin/v1/accounts/${disabled.userId}/writes`, { enabled: false })
  assert.equal((await disabled.get('/v1/account')).body.access.campaign_writes, 'disabled')
})

test('weekly auto-pay enrollment shows the card and the Monday 06:00 UTC cadence', async () => {
  const adv = await h.advertiser({ billing: 'card' })
  const a = (await adv.get('/v1/account')).body
  assert.equal(a.billing, 'weekly_autopay')
  assert.deepEqual(a.billing_profile.payment_method, { brand: 'visa', last4: '4242' })
  assert.equal(a.billing_profile.collection_status, 'ready')
  assert.equal(a.balance.cadence, 'weekly_monday_0600_utc')
  assert.equal(a.balance.billing_mode, 'weekly_autopay')
  // The clock starts Monday 2026-11-02 09:00 UTC: the next run is the following Monday.
  assert.equal(a.balance.next_invoice_at, '2026-11-09T06:00:00.000Z')
  assert.equal(a.billing_profile.next_bill_at, '2026-11-09T06:00:00.000Z')
})

test('Net 30 enrollment bills monthly on the 1st', async () => {
  const adv = await h.advertiser({ billing: 'net30' })
  const a = (await adv.get('/v1/account')).body
  assert.equal(a.billing, 'net30_invoice')
  assert.equal(a.billing_profile.credit_limit_cents, 500_000)
  assert.equal(a.balance.cadence, 'monthly_1st_0600_utc_net30')
  assert.equal(a.balance.next_invoice_at, '2026-12-01T06:00:00.000Z')
})

test('an unknown card is refused by the processor', async () => {
  const adv = await h.advertiser({ billing: 'none' })
  const res = await h.admin.post(`/admin/v1/accounts/${adv.userId}/billing`, { mode: 'weekly_autopay', card_number: '4111111111111111' })
  assert.equal(res.status, 400)
  assert.deepEqual(res.body.detail, { field: 'card_number', reason: 'card_rejected_by_processor' })
})
