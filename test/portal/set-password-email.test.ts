import assert from 'node:assert/strict'
import { test } from 'node:test'
import { useService } from '../helpers/api.ts'
import { latestEmail, newEmail, PortalClient, setPasswordPath } from '../helpers/portal.ts'

/**
 * operations.md section 5: "Accounts made by an operator get an email with a
 * link to set a password." POST /admin/v1/accounts sends it; following the
 * link (GET, then POST with the page's CSRF token and cookie) signs in.
 */
const h = useService()

test('an operator-made account is emailed a set-password link that signs the advertiser in', async () => {
  const email = newEmail('operator-made')
  const created = await h.admin.post('/admin/v1/accounts', { email })
  assert.equal(created.status, 201, created.text)
  const userId: string = created.body.user_id

  const message = await latestEmail(h, email)
  assert.equal(message.to, email)
  assert.equal(message.subject, 'Your advertiser account is ready: set your password')
  assert.match(message.text, new RegExp(`Your user id: ${userId}`))
  assert.equal(message.sent_at, h.svc.clock.now().toISOString())
  const path = await setPasswordPath(h, email)
  assert.match(path, /^\/portal\/reset-password\?token=/)
  const token = new URL(path, h.baseUrl).searchParams.get('token')!

  const browser = new PortalClient(h.baseUrl)
  const form = await browser.get(path)
  assert.equal(form.status, 200)
  assert.deepEqual(form.buttons, ['Set password'])
  assert.match(form.text, /<label for="f-password">Password<\/label>/)

  // The form refuses a post without the CSRF token, and the link stays usable.
  assert.equal((await browser.post('/portal/reset-password', { token, password: 'a long enough password' }, null)).status, 403)

  const set = await browser.post('/portal/reset-password', { token, password: 'a long enough password' }, form)
  assert.equal(set.status, 303)
  assert.equal(set.location, '/portal?notice=password_set')
  assert.ok(browser.cookies.get('portal_session'), 'a session cookie is set')
  const overview = await browser.get('/portal?notice=password_set')
  assert.equal(overview.status, 200)
  assert.match(overview.words, /Your password is set/)
  assert.ok(overview.text.includes(userId), 'the overview is the new account’s')

  // The password now signs in on its own; the link works once.
  const again = new PortalClient(h.baseUrl)
  assert.equal((await again.submit('/portal/login', '/portal/login', { email, password: 'a long enough password' })).status, 303)
  assert.equal((await again.get(path)).status, 410)
})

test('self-serve sign-up sends a welcome email with the user id and no set-password link (the advertiser chose a password)', async () => {
  const email = newEmail('self-serve')
  const browser = new PortalClient(h.baseUrl)
  assert.equal((await browser.submit('/portal/signup', '/portal/signup', { email, password: 'a long enough password' })).status, 303)
  const res = await h.admin.get(`/admin/v1/outbox?to=${encodeURIComponent(email)}`)
  assert.equal(res.body.messages.length, 1)
  const [message] = res.body.messages
  assert.equal(message.subject, 'Your advertiser account was created')
  const userId = /usr_[0-9A-Za-z]{22}/.exec(message.text)?.[0]
  assert.ok(userId, message.text)
  assert.match(message.text, /\/portal\/login/)
  assert.doesNotMatch(message.text, /reset-password\?token=/)
  // The id in the email is the account's: the overview shows the same one.
  assert.match((await browser.get('/portal')).text, new RegExp(userId))
})
