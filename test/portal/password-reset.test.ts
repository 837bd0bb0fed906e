import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadSettings } from '../../src/platform/env.ts'
import { hashPassword } from '../../src/platform/passwords.ts'
import { sendSetPasswordLink } from '../../src/services/password-links.ts'
import { updatePassword } from '../../src/store/logins.ts'
import { useService } from '../helpers/api.ts'
import { newEmail, outboxTo, PortalClient } from '../helpers/portal.ts'
import { ADMIN_TOKEN } from '../helpers/service.ts'

/**
 * Issue 34, point 3 (docs/security.md, "Password reset"): eight requests for one address sent
 * eight emails with eight live links, a reset with one link left the others working, and an
 * unused set-password link outlived a reset done another way. Now: at most three reset emails
 * per address per hour (the form answers the same beyond), a bound per source, a newer link
 * replaces the older, and setting or changing the password ends every outstanding link. Both stores.
 */
const h = useService()
const db = () => h.svc.service.store.db
const advance = (seconds: number) => h.admin.post('/admin/v1/clock', { advance_seconds: seconds })

const messages = (to: string) => outboxTo(h, to)

const LINK = /https?:\/\/\S+\/portal\/reset-password\?token=[A-Za-z0-9_%-]+/g

/** The links in the messages to `to` as operators read them, newest first: only links that still work are shown. */
const liveLinks = async (to: string) => (await messages(to)).flatMap((m) => [...m.text.matchAll(LINK)].map((x) => new URL(x[0])))

/** Asks for a reset of `email` from a browser of its own (a source address of its own); the page's words. */
async function askReset(email: string, browser = new PortalClient(h.baseUrl)): Promise<{ status: number; words: string }> {
  const res = await browser.submit('/portal/forgot-password', '/portal/forgot-password', { email })
  return { status: res.status, words: res.words }
}

/** Uses a link to set `password`; the answer's status (303: set and signed in). */
async function useLink(link: URL, password = 'a brand new long password'): Promise<number> {
  const browser = new PortalClient(h.baseUrl)
  const path = link.pathname + link.search
  const form = await browser.get(path)
  if (form.status !== 200) return form.status
  return (await browser.post('/portal/reset-password', { token: link.searchParams.get('token')!, password }, form)).status
}

const opens = async (link: URL) => (await new PortalClient(h.baseUrl).get(link.pathname + link.search)).status

/** The set-password email an operator's "send the link again" would send: no route does it for an account with a login yet, so the service is called as a route would. */
async function mailSetPasswordLink(userId: string): Promise<void> {
  const settings = loadSettings({ ADMIN_TOKEN, CLOCK: 'manual', PUBLIC_URL: h.baseUrl })
  await sendSetPasswordLink({ db: db(), clock: h.svc.clock, settings, mailer: null, log: { warn: () => {} } }, userId)
}

test('eight reset requests for one address send three emails, answer like any address, and leave one live link', async () => {
  const email = newEmail('spam')
  await new PortalClient(h.baseUrl).signUp(email)
  const unknown = await askReset(newEmail('nobody'))
  assert.equal(unknown.status, 200)

  // Each from a source of its own, so only the per-address limit is at play.
  const answers = []
  for (let i = 0; i < 8; i++) answers.push(await askReset(email))
  for (const answer of answers) assert.deepEqual(answer, unknown, 'the same page as for an address without an account')
  const resets = (await messages(email)).filter((m) => m.subject === 'Reset your password')
  assert.equal(resets.length, 3, 'three emails, not eight')

  // Only the newest link works; the two before it read as replaced in the outbox and fail.
  const links = await liveLinks(email)
  assert.equal(links.length, 1)
  assert.ok(resets[0]!.text.includes(links[0]!.href))
  for (const older of resets.slice(1)) assert.match(older.text, /\[link removed: a newer link replaced it\]/)
  assert.equal(await opens(links[0]!), 200)

  // An hour after the first of the three, the address may be sent one again.
  assert.equal((await advance(3600)).status, 200)
  await askReset(email)
  assert.equal((await messages(email)).filter((m) => m.subject === 'Reset your password').length, 4)
})

test('one source may ask for ten resets an hour, for any addresses; the eleventh is refused, whatever the address', async () => {
  const email = newEmail('source')
  await new PortalClient(h.baseUrl).signUp(email)
  const attacker = new PortalClient(h.baseUrl)
  for (let i = 0; i < 10; i++) assert.equal((await askReset(newEmail('sprayed'), attacker)).status, 200)
  const before = (await messages(email)).length

  const refused = await attacker.submit('/portal/forgot-password', '/portal/forgot-password', { email })
  assert.equal(refused.status, 429)
  assert.equal(refused.headers.get('retry-after'), '3600')
  assert.match(refused.words, /Too many reset requests from your network\. Try again in an hour\./)
  assert.equal((await messages(email)).length, before, 'no email for a refused request')
  const unknownRefused = await attacker.submit('/portal/forgot-password', '/portal/forgot-password', { email: newEmail('nobody') })
  assert.equal(unknownRefused.status, 429)
  assert.equal(unknownRefused.words, refused.words, 'the same page for an address without an account')

  // Another source is not held back, and this one may ask again an hour later.
  assert.equal((await askReset(email)).status, 200)
  assert.equal((await messages(email)).length, before + 1)
  assert.equal((await advance(3600)).status, 200)
  assert.equal((await askReset(newEmail('later'), attacker)).status, 200)
})

test('after a reset with one link, every other link of the account fails: a set-password link too', async () => {
  const email = newEmail('ends')
  const userId = await new PortalClient(h.baseUrl).signUp(email)
  await mailSetPasswordLink(userId)
  const [setLink] = await liveLinks(email)
  assert.ok(setLink)
  await askReset(email)
  const links = await liveLinks(email)
  assert.equal(links.length, 2, 'the reset link and the set-password link are both live')
  const resetLink = links.find((l) => l.href !== setLink.href)!

  assert.equal(await useLink(resetLink), 303)
  assert.equal(await opens(setLink), 410)
  assert.equal(await useLink(setLink, 'the attacker password'), 410)
  const [reset, set] = (await messages(email)).filter((m) => m.subject !== 'Your advertiser account was created')
  assert.match(reset!.text, /\[link removed: it was used\]/)
  assert.match(set!.text, /\[link removed: the password was set or changed since\]/)
  assert.deepEqual(await liveLinks(email), [])
  const signIn = await new PortalClient(h.baseUrl).submit('/portal/login', '/portal/login', { email, password: 'a brand new long password' })
  assert.equal(signIn.status, 303)
})

test('a password changed without a link ends the unused set-password and reset links', async () => {
  const email = newEmail('change')
  const userId = await new PortalClient(h.baseUrl).signUp(email)
  await mailSetPasswordLink(userId)
  await askReset(email)
  const links = await liveLinks(email)
  assert.equal(links.length, 2)
  for (const link of links) assert.equal(await opens(link), 200)

  // What every password change goes through (src/store/logins.ts; the reset above used it too).
  await updatePassword(db(), userId, await hashPassword('changed another way'), h.svc.clock.now())
  for (const link of links) {
    assert.equal(await opens(link), 410)
    assert.equal(await useLink(link, 'the attacker password'), 410)
  }
  assert.deepEqual(await liveLinks(email), [])
})

test('an operator-made account whose owner never set a password gets a one-hour link from the forgot form, within the same limits', async () => {
  const email = newEmail('operator-made')
  const made = await h.admin.post('/admin/v1/accounts', { email })
  assert.equal(made.status, 201, made.text)
  // The set-password email is lost; the owner asks the forgot-password form, with the address in other letters.
  for (let i = 0; i < 4; i++) await askReset(email.toUpperCase())
  const sent = (await messages(email)).filter((m) => m.subject === 'Set the password of your advertiser account')
  assert.equal(sent.length, 3, 'three an hour, as for a reset')
  const links = await liveLinks(email)
  assert.equal(links.length, 2, 'the operator’s seven-day link and the newest one-hour link')
  const newest = links.find((l) => sent[0]!.text.includes(l.href))!
  assert.equal(await useLink(newest), 303)
  assert.deepEqual(await liveLinks(email), [], 'the first password ends every other link')
  const signIn = await new PortalClient(h.baseUrl).submit('/portal/login', '/portal/login', { email, password: 'a brand new long password' })
  assert.equal(signIn.status, 303)
})
