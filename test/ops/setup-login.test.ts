import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Client, useService } from '../helpers/api.ts'
import { auditEntries, OPERATOR, OpsClient, signedInOperator } from '../helpers/ops.ts'
import { PortalClient } from '../helpers/portal.ts'
import { ADMIN_TOKEN, startService } from '../helpers/service.ts'

/**
 * The console's doors over real HTTP (operations.md section 5): the
 * first-operator setup with ADMIN_TOKEN (once, throttled), operator sign-in
 * with the lockout, sessions and sign-out, and no console without ADMIN_TOKEN.
 * The tests of this file run in order: the first one sets the console up.
 */
const h = useService()
const advance = (seconds: number) => h.admin.post('/admin/v1/clock', { advance_seconds: seconds })

test('setup: a wrong token is refused and throttled per address; the right one creates the operator once, and the setup closes', async () => {
  const attacker = new OpsClient(h.baseUrl)
  const open = await attacker.get('/ops/setup')
  assert.equal(open.status, 200)
  assert.match(open.words, /Token .*Email.*Password/)
  assert.match((await attacker.get('/ops/login')).words, /No operator account exists yet\. Set up the console/)

  const wrong = await attacker.setup({ token: 'not the admin token at all' })
  assert.equal(wrong.status, 403)
  assert.equal(wrong.fieldError('token'), 'That is not the ADMIN_TOKEN this service was started with.')
  assert.match(wrong.text, /value="first.operator@example.dev"/, 'the email is kept')
  const statuses = []
  for (let i = 0; i < 9; i++) statuses.push((await attacker.setup({ token: `guess ${i}` })).status)
  assert.deepEqual(statuses, [403, 403, 403, 403, 403, 403, 403, 403, 429])
  const locked = await attacker.setup()
  assert.equal(locked.status, 429, 'while locked even the right token is refused')
  assert.equal(locked.headers.get('retry-after'), '900')
  assert.match(locked.words, /Too many wrong tokens/)

  // The lockout is the address's: another address sets the console up; its own mistakes show at their fields.
  const owner = new OpsClient(h.baseUrl)
  const short = await owner.setup({ password: 'short' })
  assert.equal(short.status, 400)
  assert.equal(short.fieldError('password'), 'Use at least 12 characters.')
  assert.equal((await owner.setup({ email: 'nope' })).fieldError('email'), 'Enter an email address like name@example.com.')
  const done = await owner.setup()
  assert.equal(done.status, 303)
  assert.equal(done.location, '/ops/accounts?notice=setup_done')
  const cookie = done.headers.getSetCookie().find((c) => c.startsWith('ops_session='))!
  assert.match(cookie, /HttpOnly/)
  assert.match(cookie, /SameSite=Strict/)
  assert.match(cookie, /Path=\//)
  const accounts = await owner.get('/ops/accounts?notice=setup_done')
  assert.equal(accounts.status, 200)
  assert.match(accounts.words, /The console is set up and you are signed in/)
  assert.match(accounts.words, /first\.operator@example\.dev Sign out/)

  // Closed for good: the page, the form, and the right token again.
  assert.equal((await new OpsClient(h.baseUrl).get('/ops/setup')).status, 404)
  const late = new OpsClient(h.baseUrl)
  const again = await late.post('/ops/setup', { token: ADMIN_TOKEN, email: 'second@example.dev', password: OPERATOR.password }, await late.get('/ops/login'))
  assert.equal(again.status, 404)
  assert.match(again.words, /already set up/)
  assert.doesNotMatch((await new OpsClient(h.baseUrl).get('/ops/login')).words, /Set up the console/)

  // The setup is in the audit log, by the token, without the password.
  const [entry] = await auditEntries(h, { action: 'operator.setup' })
  assert.equal(entry.actor.kind, 'token')
  assert.equal(entry.target.kind, 'operator')
  assert.match(entry.target.id, /^opr_[0-9A-Za-z]{22}$/)
  assert.deepEqual(Object.keys(entry.after).sort(), ['created_at', 'email', 'operator_id'])
  assert.equal(entry.source_address, owner.ip)
  assert.ok(!JSON.stringify(entry).includes(OPERATOR.password))

  // An operator lifts the attacker's setup lock like any other lockout.
  const unlocked = await h.admin.post('/admin/v1/unlock', { address: attacker.ip })
  assert.deepEqual(unlocked.body, { address: attacker.ip, lifted: ['setup'] })
})

test('sign-in, next, sign-out, and a replayed cookie after sign-out', async () => {
  const browser = new OpsClient(h.baseUrl)
  const wrong = await browser.login(OPERATOR.email, 'not the password')
  assert.equal(wrong.status, 401)
  assert.match(wrong.words, /That email and password do not match an operator/)
  const ok = await browser.login(OPERATOR.email.toUpperCase(), OPERATOR.password, '/ops/audit')
  assert.equal(ok.status, 303)
  assert.equal(ok.location, '/ops/audit')
  for (const next of ['//evil.example/ops', 'https://evil.example/', '/portal', '/opsx']) {
    assert.equal((await new OpsClient(h.baseUrl).login(OPERATOR.email, OPERATOR.password, next)).location, '/ops', next)
  }
  assert.equal((await browser.get('/ops')).location, '/ops/accounts')
  const session = browser.cookies.get('ops_session')!
  const out = await browser.post('/ops/logout', {}, await browser.get('/ops/accounts'))
  assert.equal(out.status, 303)
  assert.equal(out.location, '/ops/login?notice=signed_out')
  assert.match((await browser.get('/ops/login?notice=signed_out')).words, /You are signed out/)
  const replay = new OpsClient(h.baseUrl)
  replay.cookies.set('ops_session', session)
  const after = await replay.get('/ops/jobs')
  assert.equal(after.status, 303)
  assert.equal(after.location, '/ops/login?next=%2Fops%2Fjobs')
})

test('failed sign-ins lock the address like the portal; another address is not locked; unlock lifts it', async () => {
  const attacker = new OpsClient(h.baseUrl)
  const page = await attacker.get('/ops/login')
  const statuses: number[] = []
  for (let i = 0; i < 10; i++) statuses.push((await attacker.post('/ops/login', { email: OPERATOR.email, password: `guess ${i} guess` }, page)).status)
  assert.deepEqual(statuses, [401, 401, 401, 401, 401, 401, 401, 401, 401, 429])
  const locked = await attacker.post('/ops/login', { email: OPERATOR.email, password: OPERATOR.password }, page)
  assert.equal(locked.status, 429)
  assert.equal(locked.headers.get('retry-after'), '900')
  assert.match(locked.words, /Too many failed sign-ins/)
  // The console's lockout is its own: the same address still reaches the portal's sign-in and the API.
  assert.equal((await new Client(h).get('/v1/status')).status, 200)

  // Another operator session unlocks the address from an account page; the lift is audited.
  const ops = await signedInOperator(h)
  const adv = await h.advertiser()
  const refused = await ops.act(`/ops/accounts/${adv.userId}`, `/ops/accounts/${adv.userId}/unlock`, { address: 'not an address' })
  assert.equal(refused.status, 400)
  assert.equal(refused.fieldError('address'), 'Enter an IPv4 or IPv6 address, like 198.51.100.7.')
  const unlocked = await ops.act(`/ops/accounts/${adv.userId}`, `/ops/accounts/${adv.userId}/unlock`, { address: attacker.ip })
  assert.equal(unlocked.status, 303)
  assert.equal(unlocked.location, `/ops/accounts/${adv.userId}?notice=unlocked`)
  assert.equal((await attacker.post('/ops/login', { email: OPERATOR.email, password: OPERATOR.password }, page)).status, 303)
  const [entry] = await auditEntries(h, { action: 'address.unlock', target_id: attacker.ip })
  assert.equal(entry.actor.kind, 'operator')
  assert.equal(entry.actor.email, OPERATOR.email)
  assert.match(entry.before.locked_until.console, /^\d{4}-/)
  assert.equal(entry.after.locked_until.console, null)
})

test('the lock lifts by itself after 15 minutes of service time', async () => {
  const attacker = new OpsClient(h.baseUrl)
  const page = await attacker.get('/ops/login')
  for (let i = 0; i < 10; i++) await attacker.post('/ops/login', { email: 'someone@example.dev', password: `guess ${i} guess` }, page)
  assert.equal((await attacker.post('/ops/login', { email: OPERATOR.email, password: OPERATOR.password }, page)).status, 429)
  await advance(15 * 60 + 1)
  assert.equal((await attacker.post('/ops/login', { email: OPERATOR.email, password: OPERATOR.password }, page)).status, 303)
})

test('console pages need an operator session: GETs go to sign-in and come back, forms without a CSRF token are 403', async () => {
  const stranger = new OpsClient(h.baseUrl)
  for (const path of ['/ops', '/ops/accounts', '/ops/moderation', '/ops/components', '/ops/config', '/ops/invoices', '/ops/jobs', '/ops/clock', '/ops/audit']) {
    const res = await stranger.get(path)
    assert.equal(res.status, 303, path)
    assert.equal(res.location, `/ops/login?next=${encodeURIComponent(path)}`)
  }
  const ops = await signedInOperator(h)
  const noToken = await ops.post('/ops/components/api', { state: 'disabled' }, null)
  assert.equal(noToken.status, 403)
  assert.match(noToken.words, /This form has expired or did not come from this site/)
  assert.equal((await h.anonymous.get('/v1/status')).body.components.api, 'operational')
  const missing = await ops.get('/ops/nothing-here')
  assert.equal(missing.status, 404)
  assert.match(missing.words, /no such page in the console/)

  // A portal session is no console session, even under the console's cookie name.
  const advertiser = new PortalClient(h.baseUrl)
  await advertiser.signUp(`portal-${process.pid}@example.dev`)
  const borrowed = new OpsClient(h.baseUrl)
  borrowed.cookies.set('ops_session', advertiser.cookies.get('portal_session')!)
  assert.equal((await borrowed.get('/ops/accounts')).status, 303)
  // …and a console session opens no portal page.
  const crossed = new PortalClient(h.baseUrl)
  crossed.cookies.set('portal_session', ops.cookies.get('ops_session')!)
  assert.equal((await crossed.get('/portal')).status, 303)
})

test('without ADMIN_TOKEN there is no console', async () => {
  const svc = await startService({ ADMIN_TOKEN: '' })
  try {
    for (const path of ['/ops/setup', '/ops/login', '/ops', '/ops/accounts']) {
      assert.equal((await fetch(svc.baseUrl + path, { redirect: 'manual' })).status, 404, path)
    }
    const res = await fetch(`${svc.baseUrl}/ops/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: ADMIN_TOKEN, email: OPERATOR.email, password: OPERATOR.password }).toString(),
    })
    assert.equal(res.status, 404)
  } finally {
    await svc.close()
  }
})
