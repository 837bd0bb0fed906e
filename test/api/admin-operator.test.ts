import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, Client, useService } from '../helpers/api.ts'
import { auditEntries } from '../helpers/ops.ts'
import { LOCKOUT_THRESHOLD } from '../../src/domain/rate-limits.ts'

/**
 * The operator API's additions for the console (issue 22): the audit log of
 * token calls, account search and view, the moderation queue with rejection
 * reasons the advertiser sees, unlocking an address, jobs and invoices.
 */
const h = useService({}, { create_rate_limit_per_min: 1000 })
const BORDERLINE = 'Instant loans for freelancers'

test('token calls are audited with actor "token", the target before and after, and the caller address; failures record nothing', async () => {
  const created = await h.admin.post('/admin/v1/accounts', { email: 'audited@example.dev' })
  const userId = created.body.user_id
  const [creation] = await auditEntries(h, { target_id: userId })
  assert.deepEqual(creation.actor, { kind: 'token', operator_id: null, email: null })
  assert.equal(creation.action, 'account.create')
  assert.equal(creation.before, null)
  assert.equal(creation.after.email, 'audited@example.dev')
  assert.equal(creation.source_address, h.admin.ip)
  assert.ok(!JSON.stringify(creation).includes(created.body.api_key), 'the new key never reaches the log')

  assert.equal((await h.admin.post(`/admin/v1/accounts/${userId}/write-approval`, { approved: true })).status, 200)
  const [approval] = await auditEntries(h, { target_id: userId, action: 'account.write_approval' })
  assert.deepEqual([approval.before.write_approved, approval.after.write_approved], [false, true])
  assert.match(approval.at, /^2026-11-02T/)

  const count = (await auditEntries(h, { limit: '200' })).length
  assert.equal((await h.admin.post('/admin/v1/accounts/usr_unknown/rotate-key')).status, 404)
  assert.equal((await h.admin.patch('/admin/v1/config', { max_blocks: 0 })).status, 400)
  assert.equal((await auditEntries(h, { limit: '200' })).length, count, 'refused calls changed nothing and record nothing')

  // Newest first, one page at a time; filters by action.
  const first = await h.admin.get(`/admin/v1/audit?target_id=${userId}&limit=1`)
  assert.equal(first.body.entries[0].action, 'account.write_approval')
  const second = await h.admin.get(`/admin/v1/audit?target_id=${userId}&limit=1&cursor=${first.body.next_cursor}`)
  assert.equal(second.body.entries[0].action, 'account.create')
  assert.equal(second.body.next_cursor, null)
  assert.equal((await h.admin.get('/admin/v1/audit?action=nope')).status, 400)
  assert.equal((await h.admin.get('/admin/v1/audit?cursor=nope')).status, 400)
})

test('GET /admin/v1/accounts/{id}: access, collection, billing, balance and invoices of one account', async () => {
  const adv = await h.advertiser({ terms: false })
  const view = (await h.admin.get(`/admin/v1/accounts/${adv.userId}`)).body
  assert.equal(view.user_id, adv.userId)
  assert.equal(view.access.campaign_writes, 'terms_required')
  assert.equal(view.access.writes_enabled, true)
  assert.deepEqual(view.collection, { status: 'ready', hold: null })
  assert.equal(view.billing_profile.payment_method.last4, '4242')
  assert.equal(view.balance.owed_cents, 0)
  assert.deepEqual(view.invoices, [])
  assert.equal(view.portal_login, false)
  assert.ok(adv.apiKey.startsWith(view.key_prefix))
  assert.ok(!JSON.stringify(view).includes(adv.apiKey))
})

test('moderation queue: pending creatives oldest first with the content-safety verdict; cancelled campaigns leave it', async () => {
  const adv = await h.advertiser()
  const ids: string[] = []
  for (const line of [BORDERLINE, 'Buy bitcoin the easy way', `${BORDERLINE} now`]) {
    const res = await adv.post('/v1/campaigns', campaignBody({ ad_line: line }))
    assert.equal(res.body.moderation_status, 'pending', line)
    ids.push(res.body.campaign_id)
    await h.admin.post('/admin/v1/clock', { advance_seconds: 30 })
  }
  const queue = (await h.admin.get('/admin/v1/moderation?status=pending')).body.creatives
  const mine = queue.filter((c: any) => ids.includes(c.campaign_id))
  assert.deepEqual(mine.map((c: any) => c.campaign_id), ids, 'oldest first')
  assert.deepEqual(mine[0].content_safety, { verdict: 'review', category: 'lending' })
  assert.deepEqual(mine[1].content_safety, { verdict: 'review', category: 'crypto_offer' })
  assert.equal(mine[0].moderation_reason, 'lending', 'the reason the line was held for')
  assert.equal(mine[0].user_id, adv.userId)
  // The advertiser does not see the screening reason while the creative waits.
  const creative = (await adv.get(`/v1/campaigns/${ids[0]}`)).body.creatives[0]
  assert.equal(creative.moderation_status, 'pending')
  assert.equal(creative.moderation_reason, null)

  // Paging keeps the order.
  const page1 = (await h.admin.get('/admin/v1/moderation?limit=1')).body
  const page2 = (await h.admin.get(`/admin/v1/moderation?limit=1&cursor=${page1.next_cursor}`)).body
  assert.notEqual(page1.creatives[0].campaign_id, page2.creatives[0].campaign_id)

  assert.equal((await adv.delete(`/v1/campaigns/${ids[2]}`)).status, 200)
  const after = (await h.admin.get('/admin/v1/moderation')).body.creatives.map((c: any) => c.campaign_id)
  assert.ok(!after.includes(ids[2]), 'a cancelled campaign needs no decision')
  assert.equal((await h.admin.get('/admin/v1/moderation?status=maybe')).status, 400)
})

test('a rejection reason is stored and shown to the advertiser; approvals take none and clear it', async () => {
  const adv = await h.advertiser()
  const id = (await adv.post('/v1/campaigns', campaignBody({ ad_line: BORDERLINE }))).body.campaign_id
  const withReason = await h.admin.post(`/admin/v1/campaigns/${id}/moderation`, { status: 'approved', reason: 'fine' })
  assert.equal(withReason.status, 400)
  assert.deepEqual(withReason.body.detail, { field: 'reason', reason: 'rejection_only' })
  assert.equal((await h.admin.post(`/admin/v1/campaigns/${id}/moderation`, { status: 'rejected', reason: 'x'.repeat(501) })).status, 400)

  const rejected = await h.admin.post(`/admin/v1/campaigns/${id}/moderation`, { status: 'rejected', reason: '  Needs a licence number.  ' })
  assert.deepEqual(rejected.body, { campaign_id: id, moderation_status: 'rejected', moderation_reason: 'Needs a licence number.' })
  const campaign = (await adv.get(`/v1/campaigns/${id}`)).body
  const creativeId = campaign.creatives[0].creative_id
  assert.equal((await adv.get(`/v1/creatives/${creativeId}`)).body.moderation_reason, 'Needs a licence number.')
  assert.equal((await adv.get('/v1/creatives')).body.creatives.find((c: any) => c.creative_id === creativeId).moderation_reason, 'Needs a licence number.')
  const [entry] = await auditEntries(h, { action: 'campaign.moderate', target_id: id })
  assert.equal(entry.actor.kind, 'token')
  assert.equal(entry.after.moderation_reason, 'Needs a licence number.')

  const noReason = await h.admin.post(`/admin/v1/campaigns/${id}/moderation`, { status: 'rejected' })
  assert.equal(noReason.body.moderation_reason, null)
  assert.equal((await h.admin.post(`/admin/v1/campaigns/${id}/moderation`, { status: 'approved', reason: '' })).status, 200)
  assert.equal((await adv.get(`/v1/creatives/${creativeId}`)).body.moderation_reason, null)
})

test('POST /admin/v1/unlock lifts an API lockout at once and forgets the failures', async () => {
  const adv = await h.advertiser()
  const attacker = new Client(h, { 'x-service-user-id': adv.userId, 'x-service-api-key': 'sk_live_wrong' })
  for (let i = 0; i < LOCKOUT_THRESHOLD; i++) await attacker.get('/v1/account')
  const victim = new Client(h, adv.auth)
  Object.assign(victim, { ip: attacker.ip })
  assert.equal((await victim.get('/v1/account')).status, 429)

  const res = await h.admin.post('/admin/v1/unlock', { address: attacker.ip })
  assert.equal(res.status, 200)
  assert.deepEqual(res.body, { address: attacker.ip, lifted: ['api'] })
  assert.equal((await victim.get('/v1/account')).status, 200)
  // The failures are forgotten: one more does not lock again.
  assert.equal((await attacker.get('/v1/account')).status, 401)
  assert.equal((await victim.get('/v1/account')).status, 200)

  assert.deepEqual((await h.admin.post('/admin/v1/unlock', { address: '2001:db8::1' })).body, { address: '2001:db8::1', lifted: [] })
  const bad = await h.admin.post('/admin/v1/unlock', { address: 'example.com' })
  assert.equal(bad.status, 400)
  assert.deepEqual(bad.body.detail, { field: 'address', reason: 'invalid_format' })
  const [entry] = await auditEntries(h, { action: 'address.unlock', target_id: attacker.ip })
  assert.match(entry.before.locked_until.api, /^2026-/)
  assert.equal(entry.after.locked_until.api, null)
})

test('GET /admin/v1/jobs: each job with its watermark and next occurrence', async () => {
  const jobs = (await h.admin.get('/admin/v1/jobs')).body.jobs
  assert.deepEqual(jobs.map((j: any) => j.job).sort(), ['expiry', 'exports', 'invoicing', 'ledger-partitions', 'rollups', 'traffic-review'])
  const invoicing = jobs.find((j: any) => j.job === 'invoicing')
  // The next invoicing instant after the watermark is a Monday, the 1st or the 15th at 06:00 UTC.
  assert.match(invoicing.next_due_at, /T06:00:00\.000Z$/)
})

test('GET /admin/v1/invoices: every account\'s, newest first, by status', async () => {
  const all = await h.admin.get('/admin/v1/invoices')
  assert.equal(all.status, 200)
  assert.ok(Array.isArray(all.body.invoices))
  assert.equal((await h.admin.get('/admin/v1/invoices?status=open')).status, 200)
  assert.equal((await h.admin.get('/admin/v1/invoices?status=late')).status, 400)
})
