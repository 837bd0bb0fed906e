import assert from 'node:assert/strict'
import { test } from 'node:test'
import { LOCKOUT_THRESHOLD } from '../../src/domain/rate-limits.ts'
import { useService } from '../helpers/api.ts'
import { apiClient, NEW_ACCOUNT, PASSWORD, portalAdvertiser, PortalClient, type PortalAdvertiser } from '../helpers/portal.ts'

/**
 * `/portal/key` (operations.md section 5): the user id and the masked key;
 * "Reveal" and "Rotate" after the password (wrong guesses count toward the
 * sign-in lockout); "Rotate" shows the new key once and the old one fails at once.
 */
const h = useService()
const STORED_KEY = '7:' + 'ab'.repeat(32)
const withEnvKey = useService({ KEY_SEALING_KEY: STORED_KEY })

const keyPage = (adv: PortalAdvertiser) => adv.browser.get('/portal/key')
const reveal = async (adv: PortalAdvertiser, password: string) => adv.browser.post('/portal/key/reveal', { password }, await keyPage(adv))
const rotate = async (adv: PortalAdvertiser, password: string) => adv.browser.post('/portal/key/rotate', { password }, await keyPage(adv))
/** The error shown at the Password field of the Rotate form, or null. */
const rotateError = (page: { text: string }) => /<p class="field-error" id="f-rotate-password-error">([^<]*)<\/p>/.exec(page.text)?.[1] ?? null

test('the key page shows the user id, the masked key and its last use, never the key', async () => {
  const adv = await portalAdvertiser(h, NEW_ACCOUNT)
  const page = await keyPage(adv)
  assert.equal(page.status, 200)
  assert.equal(page.headers.get('cache-control'), 'no-store')
  assert.match(page.text, /<title>API key · Advertiser portal<\/title>/)
  assert.equal(page.byId('user-id'), adv.userId)
  const prefix = adv.apiKey.slice(0, 14)
  assert.ok(page.text.includes(`<code>${prefix}<span aria-hidden="true">••••••••••••••••</span></code>`), 'prefix + dots')
  assert.match(page.words, /\(the rest is hidden\)/)
  assert.ok(!page.text.includes(adv.apiKey), 'the full key is not on the page')
  assert.equal(page.byId('api-key'), null)
  assert.match(page.words, /Last used Not used yet/)
  assert.deepEqual(page.buttons, ['Sign out', 'Reveal', 'Rotate'])
  assert.match(page.text, /<label for="f-password">Password<\/label>/)

  await h.admin.post('/admin/v1/clock', { advance_seconds: 120 })
  assert.equal((await adv.api.get('/v1/account')).status, 200)
  assert.match((await keyPage(adv)).words, /Last used 2026-11-02 09:02 UTC/)
})

test('Reveal with the right password shows the whole key, which works on the API', async () => {
  const adv = await portalAdvertiser(h, NEW_ACCOUNT)
  const shown = await reveal(adv, PASSWORD)
  assert.equal(shown.status, 200, shown.words.slice(0, 300))
  assert.equal(shown.headers.get('cache-control'), 'no-store')
  assert.equal(shown.byId('api-key'), adv.apiKey)
  assert.match(shown.text, /data-copy="api-key"/)
  assert.equal((await apiClient(h, adv.userId, shown.byId('api-key')!).get('/v1/account')).status, 200)
  // Leaving the page hides it again.
  assert.equal((await keyPage(adv)).byId('api-key'), null)
})

test('Reveal with a wrong password: the error is next to the Password field and no key is shown', async () => {
  const adv = await portalAdvertiser(h, NEW_ACCOUNT)
  const wrong = await reveal(adv, 'not my password at all')
  assert.equal(wrong.status, 400)
  assert.equal(wrong.fieldError('password'), 'That is not your password.')
  assert.match(wrong.text, /aria-invalid="true" aria-describedby="f-password-hint f-password-error"/)
  assert.equal(wrong.byId('api-key'), null)
  assert.ok(!wrong.text.includes(adv.apiKey))
})

test('wrong Reveal passwords count toward the sign-in lockout of the address', async () => {
  const adv = await portalAdvertiser(h, NEW_ACCOUNT)
  const page = await keyPage(adv)
  // Failed sign-ins and failed reveals from one address share one count.
  const login = await adv.browser.get('/portal/login')
  for (let i = 0; i < LOCKOUT_THRESHOLD - 2; i++) {
    assert.equal((await adv.browser.post('/portal/login', { email: adv.email, password: `guess number ${i}` }, login)).status, 401)
  }
  assert.equal((await adv.browser.post('/portal/key/reveal', { password: 'one more wrong guess' }, page)).status, 400)
  const locked = await adv.browser.post('/portal/key/reveal', { password: 'the last wrong guess' }, page)
  assert.equal(locked.status, 429)
  assert.equal(locked.headers.get('retry-after'), '900')
  assert.match(locked.fieldError('password')!, /Too many wrong passwords from your network\. Try again in 15 minutes\./)
  // While locked, even the right password reveals nothing, and sign-in is locked too.
  const right = await adv.browser.post('/portal/key/reveal', { password: PASSWORD }, page)
  assert.equal(right.status, 429)
  assert.equal(right.byId('api-key'), null)
  assert.equal((await adv.browser.post('/portal/login', { email: adv.email, password: PASSWORD }, login)).status, 429)
  // Another address is not affected.
  const elsewhere = new PortalClient(h.baseUrl)
  assert.equal((await elsewhere.submit('/portal/login', '/portal/login', { email: adv.email, password: PASSWORD })).status, 303)
  assert.equal((await elsewhere.submit('/portal/key', '/portal/key/reveal', { password: PASSWORD })).byId('api-key'), adv.apiKey)
})

test('Rotate shows the new key once; the old key fails at once and the new one works', async () => {
  const adv = await portalAdvertiser(h, NEW_ACCOUNT)
  const page = await keyPage(adv)
  assert.match(page.text, /<form method="post" action="\/portal\/key\/rotate" class="narrow" data-confirm="Rotate the API key\?[^"]*" aria-label="Rotate the key">/)
  assert.match(page.text, /<label for="f-rotate-password">Password<\/label>/)
  const rotated = await adv.browser.post('/portal/key/rotate', { password: PASSWORD }, page)
  assert.equal(rotated.status, 200)
  assert.equal(rotated.headers.get('cache-control'), 'no-store')
  const fresh = rotated.byId('api-key')!
  assert.match(fresh, /^sk_live_[0-9A-Za-z]{43}$/)
  assert.notEqual(fresh, adv.apiKey)
  assert.match(rotated.words, /Your new API key The previous key has stopped working/)
  assert.ok(rotated.text.includes(`<code>${fresh.slice(0, 14)}<span aria-hidden="true">`), 'the masked key is the new one')

  const old = await adv.api.get('/v1/account')
  assert.equal(old.status, 401)
  assert.equal(old.body.detail, 'invalid credentials')
  const now = await apiClient(h, adv.userId, fresh).get('/v1/account')
  assert.equal(now.status, 200)
  assert.equal(now.body.key_prefix, fresh.slice(0, 14))
  // The rotated key is sealed too: Reveal shows it later.
  assert.equal((await reveal(adv, PASSWORD)).byId('api-key'), fresh)
  assert.equal((await keyPage(adv)).byId('api-key'), null, 'shown once: the page does not keep it')
})

test('Rotate with a wrong or no password: the error is next to its Password field and the key is not rotated', async () => {
  const adv = await portalAdvertiser(h, NEW_ACCOUNT)
  // What a stolen session alone could do before: post the Rotate form without the password.
  for (const password of ['not my password at all', '']) {
    const refused = await rotate(adv, password)
    assert.equal(refused.status, 400, refused.words.slice(0, 300))
    assert.equal(rotateError(refused), 'That is not your password. The key was not rotated.')
    assert.match(refused.text, /id="f-rotate-password" name="password" aria-invalid="true" aria-describedby="f-rotate-password-hint f-rotate-password-error"/)
    assert.equal(refused.fieldError('password'), null, 'the Reveal form has no error')
    assert.equal(refused.byId('api-key'), null)
  }
  assert.equal((await adv.api.get('/v1/account')).status, 200, 'the old key still works')
  assert.equal((await reveal(adv, PASSWORD)).byId('api-key'), adv.apiKey, 'the key is the same')
})

test('wrong Rotate passwords count toward the sign-in lockout, like Reveal; while locked the right one rotates nothing', async () => {
  const adv = await portalAdvertiser(h, NEW_ACCOUNT)
  const page = await keyPage(adv)
  for (let i = 0; i < LOCKOUT_THRESHOLD - 2; i++) assert.equal((await adv.browser.post('/portal/key/rotate', { password: `guess number ${i}` }, page)).status, 400)
  assert.equal((await adv.browser.post('/portal/key/reveal', { password: 'a reveal guess' }, page)).status, 400)
  const locked = await adv.browser.post('/portal/key/rotate', { password: 'the last wrong guess' }, page)
  assert.equal(locked.status, 429)
  assert.equal(locked.headers.get('retry-after'), '900')
  assert.equal(rotateError(locked), 'Too many wrong passwords from your network. Try again in 15 minutes. The key was not rotated.')
  const right = await adv.browser.post('/portal/key/rotate', { password: PASSWORD }, page)
  assert.equal(right.status, 429)
  assert.equal(right.byId('api-key'), null)
  assert.equal((await adv.api.get('/v1/account')).status, 200, 'not rotated')
  // Another address is not affected.
  const elsewhere = new PortalClient(h.baseUrl)
  assert.equal((await elsewhere.submit('/portal/login', '/portal/login', { email: adv.email, password: PASSWORD })).status, 303)
  const rotated = await elsewhere.post('/portal/key/rotate', { password: PASSWORD }, await elsewhere.get('/portal/key'))
  assert.equal(rotated.status, 200)
  assert.notEqual(rotated.byId('api-key'), adv.apiKey)
  assert.equal((await adv.api.get('/v1/account')).status, 401)
})

test('a key issued before keys were sealed cannot be revealed; Rotate gives one that can', async () => {
  const adv = await portalAdvertiser(h, NEW_ACCOUNT)
  // The state migration 0019 leaves a key issued before it in.
  await h.svc.service.store.db.updateTable('accounts').set({ api_key_sealed: null }).where('user_id', '=', adv.userId).execute()
  const page = await keyPage(adv)
  assert.match(page.words, /This key cannot be revealed/)
  assert.deepEqual(page.buttons, ['Sign out', 'Rotate'])
  const refused = await adv.browser.post('/portal/key/reveal', { password: PASSWORD }, page)
  assert.equal(refused.status, 409)
  assert.match(refused.words, /This key cannot be revealed\. Rotate it to get one that can\./)
  assert.equal(refused.byId('api-key'), null)
  // The key itself still authenticates: the digest is the only authentication path.
  assert.equal((await adv.api.get('/v1/account')).status, 200)

  const rotated = await adv.browser.post('/portal/key/rotate', { password: PASSWORD }, page)
  const fresh = rotated.byId('api-key')!
  assert.deepEqual((await keyPage(adv)).buttons, ['Sign out', 'Reveal', 'Rotate'])
  assert.equal((await reveal(adv, PASSWORD)).byId('api-key'), fresh)
})

test('key forms refuse a post without the CSRF token, and a signed-out browser is sent to sign in', async () => {
  const adv = await portalAdvertiser(h, NEW_ACCOUNT)
  assert.equal((await adv.browser.post('/portal/key/reveal', { password: PASSWORD }, null)).status, 403)
  assert.equal((await adv.browser.post('/portal/key/rotate', { password: PASSWORD }, null)).status, 403)
  assert.equal((await adv.api.get('/v1/account')).status, 200, 'the refused rotation changed nothing')
  const stranger = new PortalClient(h.baseUrl)
  const res = await stranger.get('/portal/key')
  assert.equal(res.status, 303)
  assert.equal(res.location, '/portal/login?next=%2Fportal%2Fkey')
})

test('the sealed copy is bound to its account and sealed under the key kept in the store', async () => {
  const a = await portalAdvertiser(h, NEW_ACCOUNT)
  const b = await portalAdvertiser(h, NEW_ACCOUNT)
  const db = h.svc.service.store.db
  const row = async (userId: string) => db.selectFrom('accounts').select(['api_key_sealed']).where('user_id', '=', userId).executeTakeFirstOrThrow()
  const sealed = (await row(a.userId)).api_key_sealed!
  assert.ok(!sealed.toString('latin1').includes(a.apiKey.slice(8)), 'not stored in clear')
  const stored = await db.selectFrom('settings').select('value').where('key', '=', 'key_sealing_key').executeTakeFirst()
  assert.match(String(stored?.value), /^[0-9a-f]{64}$/)
  // A's sealed copy put on B's row does not open there: B's page says it cannot be revealed.
  await db.updateTable('accounts').set({ api_key_sealed: sealed }).where('user_id', '=', b.userId).execute()
  const refused = await reveal(b, PASSWORD)
  assert.equal(refused.status, 409)
  assert.ok(!refused.text.includes(a.apiKey))
})

test('with KEY_SEALING_KEY set, keys are sealed under it and no key is kept in the store', async () => {
  const adv = await portalAdvertiser(withEnvKey, NEW_ACCOUNT)
  const shown = await adv.browser.post('/portal/key/reveal', { password: PASSWORD }, await adv.browser.get('/portal/key'))
  assert.equal(shown.byId('api-key'), adv.apiKey)
  const db = withEnvKey.svc.service.store.db
  const { api_key_sealed } = await db.selectFrom('accounts').select('api_key_sealed').where('user_id', '=', adv.userId).executeTakeFirstOrThrow()
  assert.equal(api_key_sealed![1], 7, 'the key id of the ring travels with the sealed copy')
  assert.equal(await db.selectFrom('settings').select('key').where('key', '=', 'key_sealing_key').executeTakeFirst(), undefined)
})
