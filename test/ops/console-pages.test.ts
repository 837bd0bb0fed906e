import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService } from '../helpers/api.ts'
import { auditEntries, OPERATOR, OpsClient, signedInOperator } from '../helpers/ops.ts'
import { deliver, privateCountry } from '../helpers/serving.ts'
import { startService } from '../helpers/service.ts'

/**
 * The console's other pages over real HTTP: moderation, components, live
 * config, invoices, jobs, the clock and the audit log. Each action is
 * checked through the APIs and in the audit log.
 */
const h = useService({}, { create_rate_limit_per_min: 1000 })
const BORDERLINE = 'Instant loans for freelancers'

test('moderation: the queue is oldest first with the verdict; a rejection reason reaches the advertiser; approve takes no reason', async () => {
  const ops = await signedInOperator(h)
  const adv = await h.advertiser()
  const older = (await adv.post('/v1/campaigns', campaignBody({ ad_line: BORDERLINE, name: 'Older loans' }))).body.campaign_id
  await h.admin.post('/admin/v1/clock', { advance_seconds: 60 })
  const newer = (await adv.post('/v1/campaigns', campaignBody({ ad_line: `${BORDERLINE} today`, name: 'Newer loans' }))).body.campaign_id

  const page = await ops.get('/ops/moderation')
  assert.equal(page.status, 200)
  assert.ok(page.text.indexOf(older) < page.text.indexOf(newer), 'oldest first')
  assert.match(page.words, /Older loans Ad line Instant loans for freelancers Content safety needs review: lending/)
  // Its real state, not the lifecycle's "(active)" (issue 51).
  assert.ok(page.words.includes(`Campaign ${older} , waiting for review, not serving`) || page.words.includes(`Campaign ${older}, waiting for review, not serving`), page.words.slice(0, 600))
  assert.doesNotMatch(page.words, /\(active\)/)
  const api = (await h.admin.get('/admin/v1/moderation?status=pending')).body.creatives.map((c: any) => c.campaign_id)
  assert.ok(api.indexOf(older) < api.indexOf(newer) && api.indexOf(older) >= 0)

  const withReason = await ops.act('/ops/moderation', `/ops/moderation/${older}`, { status: 'approved', reason: 'looks fine' })
  assert.equal(withReason.status, 400)
  assert.match(withReason.text, new RegExp(`id="f-reason-${older}-error"[^>]*>Give a reason only when rejecting\\.<`))
  assert.match(withReason.text, /value="looks fine"/)
  const tooLong = await ops.act('/ops/moderation', `/ops/moderation/${older}`, { status: 'rejected', reason: 'x'.repeat(501) })
  assert.match(tooLong.text, new RegExp(`id="f-reason-${older}-error"[^>]*>Use at most 500 characters\\.<`))

  const rejected = await ops.act('/ops/moderation', `/ops/moderation/${older}`, { status: 'rejected', reason: 'Lending offers need a licence number.' })
  assert.equal(rejected.status, 303)
  assert.equal(rejected.location, '/ops/moderation?notice=moderated')
  const campaign = (await adv.get(`/v1/campaigns/${older}`)).body
  assert.equal(campaign.moderation_status, 'rejected')
  const creative = (await adv.get(`/v1/creatives/${campaign.creatives[0].creative_id}`)).body
  assert.equal(creative.moderation_reason, 'Lending offers need a licence number.')
  assert.equal(campaign.creatives[0].moderation_reason, 'Lending offers need a licence number.')
  assert.ok(!(await ops.get('/ops/moderation')).text.includes(older), 'decided: out of the queue')

  const approved = await ops.act('/ops/moderation', `/ops/moderation/${newer}`, { status: 'approved', reason: '' })
  assert.equal(approved.status, 303)
  assert.equal((await adv.get(`/v1/campaigns/${newer}`)).body.creatives[0].moderation_reason, null)

  const [entry] = await auditEntries(h, { action: 'campaign.moderate', target_id: older })
  assert.equal(entry.actor.email, OPERATOR.email)
  assert.deepEqual([entry.before.moderation_status, entry.before.moderation_reason], ['pending', 'lending'])
  assert.deepEqual([entry.after.moderation_status, entry.after.moderation_reason], ['rejected', 'Lending offers need a licence number.'])
})

test('components: a switch changes GET /v1/status and refuses orders; an unknown state is refused', async () => {
  const ops = await signedInOperator(h)
  const adv = await h.advertiser()
  const page = await ops.get('/ops/components')
  assert.equal(page.status, 200)
  for (const c of ['api', 'site_proxy', 'authentication', 'campaign_creation', 'reporting', 'exports', 'invoicing']) assert.match(page.words, new RegExp(`${c} Now:`))

  const off = await ops.act('/ops/components', '/ops/components/campaign_creation', { state: 'disabled' })
  assert.equal(off.status, 303)
  assert.equal((await h.anonymous.get('/v1/status')).body.components.campaign_creation, 'disabled')
  assert.equal((await adv.post('/v1/campaigns', campaignBody())).status, 503)
  assert.match((await ops.get('/ops/components')).text, /id="state-campaign_creation-disabled" name="state" value="disabled" checked/)
  assert.equal((await ops.act('/ops/components', '/ops/components/campaign_creation', { state: 'operational' })).status, 303)
  assert.equal((await h.anonymous.get('/v1/status')).body.components.campaign_creation, 'operational')

  const [entry] = await auditEntries(h, { action: 'component.set', target_id: 'campaign_creation' })
  assert.deepEqual([entry.before.state, entry.after.state], ['disabled', 'operational'])

  const broken = await ops.act('/ops/components', '/ops/components/api', { state: 'broken' })
  assert.equal(broken.status, 400)
  assert.match(broken.words, /api: Choose one of: operational, degraded, disabled\./)
  const unknown = await ops.act('/ops/components', '/ops/components/nope', { state: 'disabled' })
  assert.equal(unknown.status, 400)
})

/** The config form as a browser submits it untouched: every field with its current value. */
async function configForm(): Promise<Record<string, string>> {
  const config = (await h.admin.get('/admin/v1/config')).body as Record<string, unknown>
  return Object.fromEntries(Object.entries(config).map(([k, v]) => [k, v === null ? '' : String(v)]))
}

test('config: current and default values shown; refusals at their field; only changed fields are saved, and audited', async () => {
  const ops = await signedInOperator(h)
  const page = await ops.get('/ops/config')
  assert.equal(page.status, 200)
  assert.match(page.words, /read_rate_limit_per_min Other API calls per account per minute\. Current: 60\. Default: 60\./)
  assert.match(page.words, /create_rate_limit_per_min .* Current: 1000\. Default: 5 \(changed\)\./)

  const zero = await ops.act('/ops/config', '/ops/config', { ...(await configForm()), max_blocks: '0' })
  assert.equal(zero.status, 400)
  assert.equal(zero.fieldError('max_blocks'), 'Enter 1 or more.')
  assert.match(zero.text, /name="max_blocks"[^>]*value="0"|value="0"[^>]*name="max_blocks"/)
  assert.equal((await ops.act('/ops/config', '/ops/config', { ...(await configForm()), min_cpm_usd: 'abc' })).fieldError('min_cpm_usd'), 'Enter a number.')
  assert.equal((await ops.act('/ops/config', '/ops/config', { ...(await configForm()), min_cpm_usd: '0' })).fieldError('min_cpm_usd'), 'Enter more than 0.')
  const days = await ops.act('/ops/config', '/ops/config', { ...(await configForm()), export_max_days: '45' })
  assert.equal(days.fieldError('export_max_days'), 'Enter 31 or less.')
  assert.equal((await h.admin.get('/admin/v1/config')).body.max_blocks, 100, 'nothing saved')

  const unchanged = await ops.act('/ops/config', '/ops/config', await configForm())
  assert.equal(unchanged.location, '/ops/config?notice=config_unchanged')

  const saved = await ops.act('/ops/config', '/ops/config', { ...(await configForm()), read_rate_limit_per_min: '120', outstanding_balance_cap_usd: '' })
  assert.equal(saved.status, 303)
  assert.equal(saved.location, '/ops/config?notice=config')
  const config = (await h.admin.get('/admin/v1/config')).body
  assert.equal(config.read_rate_limit_per_min, 120)
  assert.equal(config.outstanding_balance_cap_usd, null)
  const [entry] = await auditEntries(h, { action: 'config.update' })
  assert.equal(entry.actor.kind, 'operator')
  assert.deepEqual([entry.before.read_rate_limit_per_min, entry.after.read_rate_limit_per_min], [60, 120])
  assert.deepEqual([entry.before.outstanding_balance_cap_usd, entry.after.outstanding_balance_cap_usd], [10_000, null])
  const audit = await ops.get('/ops/audit?action=config.update')
  assert.match(audit.words, /read_rate_limit_per_min : 60 → 120/)
  await h.config({ read_rate_limit_per_min: 60, outstanding_balance_cap_usd: 10_000 })
})

test('invoices: listed across accounts; mark paid and void (memo required) change them, and are audited', async () => {
  const payers = [await h.advertiser({ billing: 'failing_card' }), await h.advertiser({ billing: 'failing_card' })]
  for (const adv of payers) {
    const country = privateCountry()
    assert.equal((await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], cpm_usd: 10, impressions: 1000 }))).status, 201)
    assert.equal(await deliver(h, country, 2), 2)
  }
  // Monday 06:00: the weekly invoices are finalized, and the declined cards leave them payment_failed.
  assert.equal((await h.admin.post('/admin/v1/clock', { now: '2026-11-09T06:00:00Z' })).status, 200)
  const [toPay, toVoid] = await Promise.all(payers.map(async (p) => (await h.admin.get(`/admin/v1/accounts/${p.userId}/invoices`)).body.invoices[0]))
  assert.equal(toPay.status, 'payment_failed')
  // A week went by: earlier console sessions ended (12 idle hours); sign in again.
  const ops = await signedInOperator(h)

  const list = await ops.get('/ops/invoices?status=payment_failed')
  assert.equal(list.status, 200)
  assert.ok(list.text.includes(toPay.invoice_id) && list.text.includes(toVoid.invoice_id))
  assert.deepEqual(
    (await h.admin.get('/admin/v1/invoices?status=payment_failed')).body.invoices.map((i: any) => i.invoice_id).filter((id: string) => [toPay.invoice_id, toVoid.invoice_id].includes(id)).length,
    2,
  )
  const mine = await ops.get(`/ops/invoices?user_id=${payers[0]!.userId}`)
  assert.ok(mine.text.includes(toPay.invoice_id) && !mine.text.includes(toVoid.invoice_id))

  const paid = await ops.act('/ops/invoices', `/ops/invoices/${toPay.invoice_id}/mark-paid`)
  assert.equal(paid.status, 303)
  assert.equal(paid.location, '/ops/invoices?notice=paid')
  assert.equal((await h.admin.get(`/admin/v1/accounts/${payers[0]!.userId}/invoices`)).body.invoices[0].status, 'paid')

  const noMemo = await ops.act('/ops/invoices', `/ops/invoices/${toVoid.invoice_id}/void`, { memo: '' })
  assert.equal(noMemo.status, 400)
  assert.match(noMemo.text, new RegExp(`id="f-memo-${toVoid.invoice_id}-error"[^>]*>Enter a value\\.<`))
  const voided = await ops.act(`/ops/invoices?user_id=${payers[1]!.userId}`, `/ops/invoices/${toVoid.invoice_id}/void`, { memo: 'disputed', user_id: payers[1]!.userId })
  assert.equal(voided.status, 303)
  assert.equal(voided.location, `/ops/invoices?user_id=${payers[1]!.userId}&notice=voided`)
  assert.equal((await h.admin.get(`/admin/v1/accounts/${payers[1]!.userId}/invoices`)).body.invoices[0].status, 'void')
  // The page offers no void form for a paid invoice; a stale one is refused by the use case, on the invoice's card.
  const late = await ops.post(`/ops/invoices/${toPay.invoice_id}/void`, { memo: 'too late' }, await ops.get('/ops/invoices'))
  assert.equal(late.status, 409)
  assert.match(late.words, /Only an unpaid invoice can be voided\./)

  const [pay] = await auditEntries(h, { action: 'invoice.mark_paid', target_id: toPay.invoice_id })
  assert.deepEqual([pay.before.status, pay.after.status], ['payment_failed', 'paid'])
  const [voidEntry] = await auditEntries(h, { action: 'invoice.void', target_id: toVoid.invoice_id })
  assert.deepEqual([voidEntry.after.status, voidEntry.after.memo], ['void', 'disputed'])
})

test('jobs: watermark and next due per job; "Run now" runs it and is audited', async () => {
  const ops = await signedInOperator(h)
  const page = await ops.get('/ops/jobs')
  assert.equal(page.status, 200)
  for (const job of ['rollups', 'invoicing', 'exports', 'expiry', 'traffic-review']) assert.match(page.words, new RegExp(`${job} .*Ran through .*Next due`))
  const jobs = (await h.admin.get('/admin/v1/jobs')).body.jobs
  const invoicing = jobs.find((j: any) => j.job === 'invoicing')
  assert.ok(new Date(invoicing.next_due_at) > new Date(invoicing.ran_through))

  const ran = await ops.act('/ops/jobs', '/ops/jobs/expiry/run')
  assert.equal(ran.status, 303)
  assert.equal(ran.location, '/ops/jobs?notice=job_ran')
  const [entry] = await auditEntries(h, { action: 'job.run', target_id: 'expiry' })
  assert.equal(entry.before, null)
  assert.equal(entry.after.job, 'expiry')
  assert.equal(typeof entry.after.result, 'object')
  assert.equal((await ops.act('/ops/jobs', '/ops/jobs/nope/run')).status, 404)
})

test('clock: advance and set move service time (forward only, errors at the field), audited', async () => {
  const ops = await signedInOperator(h)
  const before = (await h.admin.post('/admin/v1/clock', { advance_seconds: 0 })).body.now
  const page = await ops.get('/ops/clock')
  assert.equal(page.status, 200)
  assert.ok(page.text.includes(before))

  assert.equal((await ops.act('/ops/clock', '/ops/clock/advance', { advance_seconds: 'soon' })).fieldError('advance_seconds'), 'Enter a number.')
  const back = await ops.act('/ops/clock', '/ops/clock/set', { now: '2020-01-01T00:00:00Z' })
  assert.equal(back.status, 400)
  assert.match(back.fieldError('now')!, /^The clock only moves forward/)
  assert.equal((await ops.act('/ops/clock', '/ops/clock/set', { now: 'tomorrow' })).fieldError('now'), 'Enter a UTC instant like 2026-11-09T06:00:00Z.')

  const moved = await ops.act('/ops/clock', '/ops/clock/advance', { advance_seconds: '3600' })
  assert.equal(moved.status, 303)
  const after = new Date(new Date(before).getTime() + 3_600_000).toISOString()
  assert.ok((await ops.get('/ops/clock')).text.includes(after))
  const target = new Date(new Date(after).getTime() + 86_400_000).toISOString()
  assert.equal((await ops.act('/ops/clock', '/ops/clock/set', { now: target })).status, 303)
  const [entry] = await auditEntries(h, { action: 'clock.move' })
  assert.deepEqual([entry.before.now, entry.after.now], [after, target])
})

test('audit log page: newest first, filtered by action and by target id', async () => {
  const ops = await signedInOperator(h)
  const adv = await h.advertiser()
  await ops.act(`/ops/accounts/${adv.userId}`, `/ops/accounts/${adv.userId}/credits`, { amount_cents: '100', memo: 'first' })
  await ops.act(`/ops/accounts/${adv.userId}`, `/ops/accounts/${adv.userId}/credits`, { amount_cents: '200', memo: 'second' })
  const all = await ops.get('/ops/audit')
  assert.equal(all.status, 200)
  const byTarget = await ops.get(`/ops/audit?target_id=${adv.userId}`)
  const words = byTarget.words
  assert.ok(words.indexOf('"second"') < words.indexOf('"first"'), 'newest first')
  assert.match(words, /account\.credit on account .* by first\.operator@example\.dev/)
  assert.match(words, /account\.billing_enroll on account .* by the token \(operator API\)/)
  assert.doesNotMatch(words, /component\.set on/)
  const byAction = await ops.get(`/ops/audit?action=account.credit&target_id=${adv.userId}`)
  assert.doesNotMatch(byAction.words, /account\.billing_enroll on/)
  assert.match(byAction.text, /<option value="account.credit" selected/)
})

test('under the system clock the console has no clock page and no Clock link', async () => {
  const svc = await startService({ CLOCK: 'system' })
  try {
    const setup = await new OpsClient(svc.baseUrl).setup()
    assert.equal(setup.status, 303)
    const ops = new OpsClient(svc.baseUrl)
    assert.equal((await ops.login()).status, 303)
    const clock = await ops.get('/ops/clock')
    assert.equal(clock.status, 404)
    assert.match(clock.words, /system clock/)
    const jobs = await ops.get('/ops/jobs')
    assert.doesNotMatch(jobs.text, /href="\/ops\/clock"/)
    assert.equal((await ops.post('/ops/clock/advance', { advance_seconds: '60' }, jobs)).status, 405, 'no such form: only the not-found page answers GET')
  } finally {
    await svc.close()
  }
})
