import assert from 'node:assert/strict'
import { test } from 'node:test'
import { useService } from '../helpers/api.ts'
import { PortalClient } from '../helpers/portal.ts'
import { startService } from '../helpers/service.ts'

/**
 * Portal sign-in over real HTTP (operations.md section 5): sign-up, sessions
 * in the store, CSRF on every form, the lockout, sign-out, expiry, and the
 * emailed reset link. The same flows in Chromium: test/browser/.
 */
const h = useService()
let n = 0
const email = () => `portal-${process.pid}-${n++}@example.dev`
const advance = (seconds: number) => h.admin.post('/admin/v1/clock', { advance_seconds: seconds })

test('sign-up creates an account waiting for approval and signs in at once with a hardened session cookie', async () => {
  const browser = new PortalClient(h.baseUrl)
  const signup = await browser.get('/portal/signup')
  assert.equal(signup.status, 200)
  const res = await browser.post('/portal/signup', { email: email(), password: 'correct horse battery' }, signup)
  assert.equal(res.status, 303)
  assert.equal(res.location, '/portal?notice=welcome')
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('portal_session='))
  assert.ok(cookie, 'a session cookie is set')
  assert.match(cookie, /HttpOnly/)
  assert.match(cookie, /SameSite=Lax/)
  assert.doesNotMatch(cookie, /Secure/, 'plain http PUBLIC_URL: no Secure flag')

  const overview = await browser.get('/portal?notice=welcome')
  assert.equal(overview.status, 200)
  assert.match(overview.words, /Account approval \(next step\) We review new accounts within one business day/)
  assert.match(overview.words, /Welcome!/)
  const userId = /usr_[0-9A-Za-z]{22}/.exec(overview.text)![0]
  // The account is an ordinary advertiser: the operator API knows it and its key works.
  const key = await h.admin.post(`/admin/v1/accounts/${userId}/rotate-key`)
  assert.equal(key.status, 200)
  const account = await h.anonymous.get('/v1/account', { headers: { 'x-service-user-id': userId, 'x-service-api-key': key.body.api_key } })
  assert.equal(account.status, 200)
  assert.equal(account.body.access.campaign_writes, 'pending_approval')
})

test('sign-up errors are shown next to their field and keep the typed email', async () => {
  const browser = new PortalClient(h.baseUrl)
  const short = await browser.submit('/portal/signup', '/portal/signup', { email: 'someone@example.dev', password: 'too short' })
  assert.equal(short.status, 400)
  assert.equal(short.fieldError('password'), 'Use at least 12 characters.')
  assert.match(short.text, /aria-describedby="f-password-hint f-password-error"/)
  assert.match(short.text, /value="someone@example.dev"/)

  const bad = await browser.submit('/portal/signup', '/portal/signup', { email: 'not-an-email', password: 'long enough password' })
  assert.equal(bad.fieldError('email'), 'Enter an email address like name@example.com.')

  const address = email()
  assert.equal((await new PortalClient(h.baseUrl).submit('/portal/signup', '/portal/signup', { email: address, password: 'long enough password' })).status, 303)
  const again = await browser.submit('/portal/signup', '/portal/signup', { email: `  ${address.toUpperCase()} `, password: 'another long password' })
  assert.equal(again.status, 400)
  assert.match(again.fieldError('email')!, /already exists/)
})

test('a state-changing form without a valid CSRF token is refused with 403', async () => {
  const browser = new PortalClient(h.baseUrl)
  await browser.get('/portal/login')
  const missing = await browser.post('/portal/login', { email: 'x@example.dev', password: 'whatever password' }, null)
  assert.equal(missing.status, 403)
  assert.match(missing.words, /This form has expired or did not come from this site/)
  const forged = await browser.post('/portal/login', { email: 'x@example.dev', password: 'whatever password' }, 'forged-token')
  assert.equal(forged.status, 403)
  // A token from another browser (another CSRF secret) does not work either.
  const other = await new PortalClient(h.baseUrl).get('/portal/login')
  assert.equal((await browser.post('/portal/login', { email: 'x@example.dev', password: 'whatever password' }, other)).status, 403)
})

test('sign-in, sign-out, and a replayed cookie after sign-out', async () => {
  const address = email()
  const first = new PortalClient(h.baseUrl)
  await first.signUp(address, 'first long password')
  const session = first.cookies.get('portal_session')!

  const browser = new PortalClient(h.baseUrl)
  const wrong = await browser.submit('/portal/login', '/portal/login', { email: address, password: 'not the password' })
  assert.equal(wrong.status, 401)
  assert.match(wrong.words, /That email and password do not match an account/)
  const ok = await browser.submit('/portal/login?next=%2Fportal%2Fbilling', '/portal/login', {
    email: address.toUpperCase(),
    password: 'first long password',
    next: '/portal/billing',
  })
  assert.equal(ok.status, 303)
  assert.equal(ok.location, '/portal/billing')

  const out = await first.post('/portal/logout', {}, await first.get('/portal'))
  assert.equal(out.status, 303)
  assert.equal(out.location, '/portal/login?notice=signed_out')
  const replay = new PortalClient(h.baseUrl)
  replay.cookies.set('portal_session', session)
  const after = await replay.get('/portal')
  assert.equal(after.status, 303)
  assert.equal(after.location, '/portal/login?next=%2Fportal')
  // The other session is untouched.
  assert.equal((await browser.get('/portal')).status, 200)
})

test('only portal paths are followed after sign-in', async () => {
  const address = email()
  await new PortalClient(h.baseUrl).signUp(address, 'first long password')
  for (const next of ['//evil.example/portal', 'https://evil.example/', '/\\evil.example', '/v1/account', '/portalx']) {
    const browser = new PortalClient(h.baseUrl)
    const res = await browser.submit('/portal/login', '/portal/login', { email: address, password: 'first long password', next })
    assert.equal(res.status, 303)
    assert.equal(res.location, '/portal', next)
  }
})

test('failed sign-ins lock the address like the API lockout, and the lock lifts after 15 minutes', async () => {
  const address = email()
  await new PortalClient(h.baseUrl).signUp(address, 'the right password')
  const attacker = new PortalClient(h.baseUrl)
  const page = await attacker.get('/portal/login')
  const statuses: number[] = []
  for (let i = 0; i < 10; i++) statuses.push((await attacker.post('/portal/login', { email: address, password: `guess ${i} guess` }, page)).status)
  assert.deepEqual(statuses, [401, 401, 401, 401, 401, 401, 401, 401, 401, 429])
  const locked = await attacker.post('/portal/login', { email: address, password: 'the right password' }, page)
  assert.equal(locked.status, 429)
  assert.equal(locked.headers.get('retry-after'), '900')
  assert.match(locked.words, /Too many failed sign-ins/)
  // Another address is not locked.
  assert.equal((await new PortalClient(h.baseUrl).submit('/portal/login', '/portal/login', { email: address, password: 'the right password' })).status, 303)
  await advance(15 * 60 + 1)
  assert.equal((await attacker.post('/portal/login', { email: address, password: 'the right password' }, page)).status, 303)
})

test('a session ends after 12 idle hours on the service clock', async () => {
  const browser = new PortalClient(h.baseUrl)
  await browser.signUp(email())
  await advance(11 * 3600)
  assert.equal((await browser.get('/portal')).status, 200, 'used within the idle limit: still signed in')
  await advance(11 * 3600)
  assert.equal((await browser.get('/portal')).status, 200, 'the last use moved the idle deadline')
  await advance(12 * 3600 + 60)
  const expired = await browser.get('/portal/billing')
  assert.equal(expired.status, 303)
  assert.equal(expired.location, '/portal/login?next=%2Fportal%2Fbilling')
})

test('forgot password: the emailed link sets a new password once and ends the other sessions', async () => {
  const address = email()
  const old = new PortalClient(h.baseUrl)
  await old.signUp(address, 'the old password')

  const browser = new PortalClient(h.baseUrl)
  const sent = await browser.submit('/portal/forgot-password', '/portal/forgot-password', { email: address })
  assert.equal(sent.status, 200)
  assert.match(sent.words, /If an account signs in with that email, we have sent it a link/)
  // An unknown address gets the same answer and no email.
  const unknown = await browser.submit('/portal/forgot-password', '/portal/forgot-password', { email: 'nobody@example.dev' })
  assert.equal(unknown.words, sent.words)
  assert.deepEqual((await h.admin.get('/admin/v1/outbox?to=nobody@example.dev')).body.messages, [])

  const outbox = await h.admin.get(`/admin/v1/outbox?to=${encodeURIComponent(address)}`)
  const [message] = outbox.body.messages
  assert.equal(message.subject, 'Reset your password')
  const link = new URL(/https?:\/\/\S+\/portal\/reset-password\?token=\S+/.exec(message.text)![0])
  const token = link.searchParams.get('token')!
  const path = link.pathname + link.search

  const form = await browser.get(path)
  assert.equal(form.status, 200)
  assert.match(form.words, /Choose a new password/)
  const short = await browser.post('/portal/reset-password', { token, password: 'short' }, form)
  assert.equal(short.fieldError('password'), 'Use at least 12 characters.')
  const set = await browser.post('/portal/reset-password', { token, password: 'the new password' }, form)
  assert.equal(set.status, 303)
  assert.equal(set.location, '/portal?notice=password_set')
  assert.equal((await browser.get('/portal')).status, 200)

  assert.equal((await old.get('/portal')).status, 303, 'the session opened with the old password has ended')
  const fresh = new PortalClient(h.baseUrl)
  assert.equal((await fresh.submit('/portal/login', '/portal/login', { email: address, password: 'the old password' })).status, 401)
  assert.equal((await fresh.submit('/portal/login', '/portal/login', { email: address, password: 'the new password' })).status, 303)

  const reused = await browser.get(path)
  assert.equal(reused.status, 410)
  assert.match(reused.words, /This link has expired or was already used/)
})

test('pages carry security headers: a CSP without inline script, no framing, no referrer', async () => {
  const res = await new PortalClient(h.baseUrl).get('/portal/login')
  const csp = res.headers.get('content-security-policy')!
  assert.match(csp, /frame-ancestors 'none'/)
  assert.match(csp, /script-src 'self'(;|$)/)
  assert.doesNotMatch(csp, /unsafe-inline/)
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer')
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff')
  assert.equal(res.headers.get('cache-control'), 'no-store')
  assert.match(res.text, /^<!doctype html><html lang="en">/)
  assert.equal(res.text.match(/<h1[ >]/g)?.length, 1)
  assert.match(res.text, /<title>Sign in · Advertiser portal<\/title>/)
  // The stylesheet and script are served from the service itself.
  const css = await fetch(`${h.baseUrl}/assets/site.css`)
  assert.equal(css.status, 200)
  assert.match(css.headers.get('content-type')!, /text\/css/)
  const etag = css.headers.get('etag')!
  assert.equal((await fetch(`${h.baseUrl}/assets/site.css`, { headers: { 'if-none-match': etag } })).status, 304)
  assert.equal((await fetch(`${h.baseUrl}/assets/nope.js`)).status, 404)
})

test('under an https PUBLIC_URL the cookies are Secure and __Host- prefixed, and HSTS is sent', async () => {
  const svc = await startService({ PUBLIC_URL: 'https://ads.example' })
  try {
    const browser = new PortalClient(svc.baseUrl)
    const page = await browser.get('/portal/signup')
    assert.match(page.headers.get('strict-transport-security') ?? '', /max-age=\d+/)
    assert.ok(page.headers.getSetCookie().some((c) => c.startsWith('__Host-csrf=') && /; Secure/.test(c)))
    const res = await browser.post('/portal/signup', { email: email(), password: 'correct horse battery' }, page)
    assert.equal(res.status, 303)
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('__Host-portal_session='))
    assert.ok(cookie && /; Secure/.test(cookie) && /Path=\//.test(cookie) && !/Domain=/i.test(cookie), cookie)
    assert.equal((await browser.get('/portal')).status, 200)
  } finally {
    await svc.close()
  }
})
