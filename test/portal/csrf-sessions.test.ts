import assert from 'node:assert/strict'
import { test } from 'node:test'
import { useService } from '../helpers/api.ts'
import { OPERATOR, OpsClient, signedInOperator } from '../helpers/ops.ts'
import { NEW_ACCOUNT, newEmail, PASSWORD, portalAdvertiser, PortalClient, setPasswordPath, type PortalAdvertiser } from '../helpers/portal.ts'
import { ADMIN_TOKEN } from '../helpers/service.ts'

/**
 * CSRF tokens are bound to the session they were made for (issue 34), over
 * real HTTP on both stores: a token minted for session A is refused with
 * session B's cookie, even when B also carries A's CSRF cookie; a token from
 * before sign-in, or of an ended session, is refused; the forms used before
 * sign-in (portal and console) stay protected by their own cookie secret.
 */
const h = useService()

const termsAccepted = async (adv: PortalAdvertiser) => (await h.admin.get(`/admin/v1/accounts/${adv.userId}`)).body.access.terms_accepted as boolean

/** B's browser with every cookie of A's but A's session: what an attacker who planted A's CSRF cookie in B's browser has. */
function withCookiesOf(victim: PortalClient, attacker: PortalClient, sessionCookie: string): void {
  for (const [name, value] of attacker.cookies) if (name !== sessionCookie) victim.cookies.set(name, value)
}

test('the forms used before sign-in refuse a post without a token or with another browser’s', async () => {
  const invited = newEmail('csrf-invited')
  assert.equal((await h.admin.post('/admin/v1/accounts', { email: invited })).status, 201)
  const link = await setPasswordPath(h, invited)
  const token = new URL(link, h.baseUrl).searchParams.get('token')!
  const forms: [string, string, Record<string, string>][] = [
    ['/portal/login', '/portal/login', { email: 'x@example.dev', password: 'whatever password' }],
    ['/portal/signup', '/portal/signup', { email: 'csrf-signup@example.dev', password: 'a long enough password' }],
    ['/portal/forgot-password', '/portal/forgot-password', { email: 'x@example.dev' }],
    [link, '/portal/reset-password', { token, password: 'a long enough password' }],
    ['/ops/setup', '/ops/setup', { token: ADMIN_TOKEN, email: OPERATOR.email, password: OPERATOR.password }],
    ['/ops/login', '/ops/login', { email: OPERATOR.email, password: OPERATOR.password }],
  ]
  for (const [page, action, fields] of forms) {
    const browser = new OpsClient(h.baseUrl)
    const own = await browser.get(page)
    assert.ok(own.text.includes(`action="${action}"`), page)
    assert.equal((await browser.post(action, fields, null)).status, 403, `${action} without a token`)
    const other = await new OpsClient(h.baseUrl).get(page)
    assert.equal((await browser.post(action, fields, other)).status, 403, `${action} with another browser’s token`)
  }
  // Nothing went through: no sign-up, and the console is still to be set up.
  assert.equal((await h.admin.get('/admin/v1/accounts?query=csrf-signup')).body.accounts.length, 0)
  assert.equal((await new OpsClient(h.baseUrl).get('/ops/setup')).status, 200)
  assert.equal((await new OpsClient(h.baseUrl).get(link)).status, 200, 'the set-password link is unused')
})

test('portal: a token minted for session A, sent with session B’s cookie and A’s CSRF cookie, is refused with 403', async () => {
  const a = await portalAdvertiser(h, NEW_ACCOUNT)
  const b = await portalAdvertiser(h, NEW_ACCOUNT)
  const tokenOfA = (await a.browser.get('/portal/terms')).csrf()
  withCookiesOf(b.browser, a.browser, 'portal_session')

  const forged = await b.browser.post('/portal/terms/accept', {}, tokenOfA)
  assert.equal(forged.status, 403)
  assert.match(forged.words, /This form has expired or did not come from this site/)
  assert.equal(await termsAccepted(b), false, 'B’s terms were not accepted')

  // Each session's own token works, in its own session only.
  const own = await b.browser.post('/portal/terms/accept', {}, await b.browser.get('/portal/terms'))
  assert.equal(own.status, 303)
  assert.equal(await termsAccepted(b), true)
  assert.equal((await a.browser.post('/portal/terms/accept', {}, tokenOfA)).status, 303)
})

test('portal: a token from before sign-in, or of a session that ended, does not work in the new session', async () => {
  const adv = await portalAdvertiser(h, NEW_ACCOUNT)
  const browser = new PortalClient(h.baseUrl)
  const login = await browser.get('/portal/login')
  assert.equal((await browser.post('/portal/login', { email: adv.email, password: PASSWORD }, login)).status, 303)
  // The login page's token (the pre-sign-in cookie secret) is no token of the session.
  assert.equal((await browser.post('/portal/terms/accept', {}, login)).status, 403)

  const tokenOfFirstSession = (await browser.get('/portal/terms')).csrf()
  assert.equal((await browser.post('/portal/logout', {}, tokenOfFirstSession)).status, 303)
  assert.equal((await browser.submit('/portal/login', '/portal/login', { email: adv.email, password: PASSWORD })).status, 303)
  assert.equal((await browser.post('/portal/terms/accept', {}, tokenOfFirstSession)).status, 403)
  assert.equal(await termsAccepted(adv), false)
  assert.equal((await browser.post('/portal/terms/accept', {}, await browser.get('/portal/terms'))).status, 303)
})

test('console: a token minted for one operator session is refused in another, and a portal session’s token is refused in the console', async () => {
  const first = await signedInOperator(h)
  const second = await signedInOperator(h)
  const adv = await portalAdvertiser(h, NEW_ACCOUNT)
  const page = `/ops/accounts/${adv.userId}`
  const tokenOfFirst = (await first.get(page)).csrf()
  withCookiesOf(second, first, 'ops_session')

  const forged = await second.post(`${page}/terms`, { value: 'true' }, tokenOfFirst)
  assert.equal(forged.status, 403)
  assert.equal(await termsAccepted(adv), false)

  // The advertiser's portal token, with the operator's console cookie, is refused too.
  const portalToken = (await adv.browser.get('/portal/terms')).csrf()
  assert.equal((await second.post(`${page}/terms`, { value: 'true' }, portalToken)).status, 403)
  assert.equal(await termsAccepted(adv), false)

  assert.equal((await second.post(`${page}/terms`, { value: 'true' }, await second.get(page))).status, 303)
  assert.equal(await termsAccepted(adv), true)
})
