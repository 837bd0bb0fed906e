import assert from 'node:assert/strict'
import { test } from 'node:test'
import { TERMS_TEXT, TERMS_VERSION } from '../../src/domain/terms.ts'
import { useService } from '../helpers/api.ts'
import { NEW_ACCOUNT, portalAdvertiser } from '../helpers/portal.ts'

/**
 * `/portal/terms` (operations.md section 5): the versioned terms and "Accept";
 * accepting records the version and the service time, shown on the page and
 * by GET /v1/account (`access.terms_version`). The operator's terms call
 * records the version too.
 */
const h = useService()
const advance = async (seconds: number) => assert.equal((await h.admin.post('/admin/v1/clock', { advance_seconds: seconds })).status, 200)
const acceptedAt = async (userId: string) =>
  (await h.svc.service.store.db.selectFrom('accounts').select('terms_accepted_at').where('user_id', '=', userId).executeTakeFirstOrThrow()).terms_accepted_at

test('the terms page shows the versioned text and Accept; accepting records version and time', async () => {
  const adv = await portalAdvertiser(h, { ...NEW_ACCOUNT, approved: true })
  const before = (await adv.api.get('/v1/account')).body
  assert.equal(before.access.terms_accepted, false)
  assert.equal(before.access.terms_version, null)

  const page = await adv.browser.get('/portal/terms')
  assert.equal(page.status, 200)
  assert.match(page.text, /<title>API terms · Advertiser portal<\/title>/)
  assert.match(page.words, new RegExp(`Version ${TERMS_VERSION}`))
  for (const paragraph of TERMS_TEXT) assert.ok(page.words.includes(paragraph), paragraph.slice(0, 40))
  assert.match(page.words, /You have not accepted the API terms yet/)
  assert.deepEqual(page.buttons, ['Sign out', 'Accept'])

  await advance(5 * 60 + 7)
  const accepted = await adv.browser.post('/portal/terms/accept', {}, page)
  assert.equal(accepted.status, 303)
  assert.equal(accepted.location, '/portal/terms?notice=terms_accepted')
  const now = h.svc.clock.now()
  assert.equal((await acceptedAt(adv.userId))?.toISOString(), now.toISOString(), 'the service clock’s instant')

  const after = await adv.browser.get('/portal/terms?notice=terms_accepted')
  assert.match(after.words, /Thank you: the API terms are accepted\./)
  assert.match(after.words, new RegExp(`You accepted version ${TERMS_VERSION} on 2026-11-02 09:05 UTC\\.`))
  assert.deepEqual(after.buttons, ['Sign out'], 'nothing left to accept')

  const account = (await adv.api.get('/v1/account')).body
  assert.equal(account.access.terms_accepted, true)
  assert.equal(account.access.terms_version, TERMS_VERSION)
  assert.equal(account.access.campaign_writes, 'billing_required', 'the next step is billing')

  // Accepting the same version again (a double submit) keeps the first record.
  await advance(60)
  assert.equal((await adv.browser.post('/portal/terms/accept', {}, page)).status, 303)
  assert.equal((await acceptedAt(adv.userId))?.toISOString(), now.toISOString())
})

test('the operator terms call records the current version; withdrawing clears it', async () => {
  const adv = await portalAdvertiser(h, NEW_ACCOUNT)
  assert.equal((await h.admin.post(`/admin/v1/accounts/${adv.userId}/terms`, { accepted: true })).status, 200)
  assert.equal((await adv.api.get('/v1/account')).body.access.terms_version, TERMS_VERSION)
  assert.match((await adv.browser.get('/portal/terms')).words, new RegExp(`You accepted version ${TERMS_VERSION} on `))

  assert.equal((await h.admin.post(`/admin/v1/accounts/${adv.userId}/terms`, { accepted: false })).status, 200)
  const account = (await adv.api.get('/v1/account')).body
  assert.equal(account.access.terms_accepted, false)
  assert.equal(account.access.terms_version, null)
  assert.equal(await acceptedAt(adv.userId), null)
  assert.deepEqual((await adv.browser.get('/portal/terms')).buttons, ['Sign out', 'Accept'])
})

test('an acceptance recorded before versions were kept asks to accept the current version', async () => {
  const adv = await portalAdvertiser(h, { ...NEW_ACCOUNT, terms: true })
  // What migration 0018 left for accounts that had accepted before it: accepted, no version.
  await h.svc.service.store.db.updateTable('accounts').set({ terms_version: null }).where('user_id', '=', adv.userId).execute()
  assert.equal((await adv.api.get('/v1/account')).body.access.terms_version, null)
  const page = await adv.browser.get('/portal/terms')
  assert.match(page.words, new RegExp(`You accepted an earlier version of the terms on .* please read and accept version ${TERMS_VERSION}\\.`))
  assert.deepEqual(page.buttons, ['Sign out', 'Accept'])
  assert.equal((await adv.browser.post('/portal/terms/accept', {}, page)).status, 303)
  assert.equal((await adv.api.get('/v1/account')).body.access.terms_version, TERMS_VERSION)
})

test('the overview is a checklist: each blocking step linked to its page, the next one marked, ticks and a count; the terms page then says what is next', async () => {
  const adv = await portalAdvertiser(h, NEW_ACCOUNT)
  const overview = await adv.browser.get('/portal')
  assert.match(overview.words, /Before you can create campaigns 0 of 3 steps done/)
  assert.match(overview.text, /<progress max="3" value="0"/)
  assert.match(overview.words, /1 Account approval \(next step\) We review new accounts within one business day/)
  assert.match(overview.text, /<a href="\/portal\/terms">Read and accept the API terms<\/a>/)
  assert.match(overview.words, /3 Billing \(to do\) Now: Not set up\. Enroll a card for weekly auto-pay, or request Net 30 invoicing\. Go to billing \./)
  assert.match(overview.text, /<a href="\/portal\/billing">Go to billing<\/a>/)

  const accepted = await adv.browser.post('/portal/terms/accept', {}, await adv.browser.get('/portal/terms'))
  const terms = await adv.browser.get(accepted.location!)
  assert.match(terms.words, /Next: set up billing \./, 'after accepting, the next step is on the terms page')
  assert.match(terms.text, /<a href="\/portal\/billing">set up billing<\/a>/)
  const after = await adv.browser.get('/portal')
  assert.match(after.words, /1 of 3 steps done/)
  assert.match(after.words, /✓ API terms \(done\) You accepted the API terms\./)
})

test('the accept form refuses a post without the CSRF token', async () => {
  const adv = await portalAdvertiser(h, NEW_ACCOUNT)
  assert.equal((await adv.browser.post('/portal/terms/accept', {}, null)).status, 403)
  assert.equal((await adv.api.get('/v1/account')).body.access.terms_accepted, false)
})
