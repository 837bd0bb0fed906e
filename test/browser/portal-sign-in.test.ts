import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { assertFieldError, browserSkip, checkPage, field, lastEmail, signIn, signUp, submit, useBrowser, visit } from '../helpers/browser.ts'

/**
 * The portal's front door in Chromium (issue 21, operations.md section 5):
 * sign-up, sign-out, sign-in, errors at their fields, CSRF refusal, session
 * expiry and the emailed reset link. Every page visited is checked for axe
 * violations at 1280 and 375 px.
 */

const PASSWORD = 'correct horse battery'
let emails = 0
const newEmail = () => `signin-${process.pid}-${emails++}@example.dev`

describe('portal sign-in in a browser', { skip: browserSkip }, () => {
  const h = useBrowser()

  test('sign up lands on the overview with the steps that block writes; sign out; sign in again', { timeout: 60_000 }, async () => {
    const { page } = h
    const email = newEmail()
    await visit(page, h, '/portal/signup')
    await checkPage(page)
    await signUp(page, h, email, PASSWORD)
    await checkPage(page)

    // In the order of access.campaign_writes: approval (we review…), terms (a link), billing (a link).
    const steps = page.getByRole('region', { name: 'Before you can create campaigns' }).getByRole('listitem')
    assert.equal(await steps.count(), 3)
    assert.match(await steps.nth(0).innerText(), /we review/i)
    assert.equal(await steps.nth(1).getByRole('link').getAttribute('href'), '/portal/terms')
    assert.equal(await steps.nth(2).getByRole('link').getAttribute('href'), '/portal/billing')

    await submit(page, 'Sign out')
    assert.equal(new URL(page.url()).pathname, '/portal/login')
    await assert.doesNotReject(page.getByRole('status').filter({ hasText: 'signed out' }).waitFor())
    await checkPage(page)
    // The session is gone: the overview asks for a sign-in and comes back afterwards.
    await visit(page, h, '/portal')
    assert.equal(new URL(page.url()).pathname, '/portal/login')

    await field(page, 'Email').fill(email)
    await field(page, 'Password').fill(PASSWORD)
    const signedIn = await submit(page, 'Sign in')
    assert.equal(signedIn.status(), 200)
    assert.equal(new URL(page.url()).pathname, '/portal')
    assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Overview')
  })

  test('a wrong password is refused with an error, and the email stays filled in', { timeout: 60_000 }, async () => {
    const { page } = h
    const email = newEmail()
    await signUp(page, h, email, PASSWORD)
    await submit(page, 'Sign out')

    const refused = await signIn(page, h, email, 'not the password at all')
    assert.equal(refused.status(), 401)
    assert.equal(new URL(page.url()).pathname, '/portal/login')
    assert.match(await page.getByRole('alert').innerText(), /do not match/)
    assert.equal(await field(page, 'Email').inputValue(), email)
    assert.equal(await field(page, 'Password').inputValue(), '')
    await checkPage(page)
  })

  test('a sign-up error is shown at its field, tied to the input', { timeout: 60_000 }, async () => {
    const { page } = h
    const email = newEmail()
    await visit(page, h, '/portal/signup')
    // The browser's own check (minlength) would stop the form first; the server's answer is what is tested here.
    await page.locator('form').filter({ has: page.getByRole('button', { name: 'Sign up' }) }).evaluate((form) => form.setAttribute('novalidate', ''))
    await field(page, 'Email').fill(email)
    await field(page, 'Password').fill('too short')
    const response = await submit(page, 'Sign up')
    assert.equal(response.status(), 400)
    await assertFieldError(page, 'Password', /at least 12 characters/)
    assert.equal(await field(page, 'Email').getAttribute('aria-invalid'), null)
    assert.equal(await field(page, 'Email').inputValue(), email)
    await checkPage(page)

    // Fixed, the same form signs up.
    await field(page, 'Password').fill(PASSWORD)
    await submit(page, 'Sign up')
    assert.equal(new URL(page.url()).pathname, '/portal')
  })

  test('a form without its CSRF cookie, or with a tampered token, is refused with 403', { timeout: 60_000 }, async () => {
    const { page, context } = h
    const email = newEmail()
    await signUp(page, h, email, PASSWORD)
    await submit(page, 'Sign out')

    await visit(page, h, '/portal/login')
    await field(page, 'Email').fill(email)
    await field(page, 'Password').fill(PASSWORD)
    await context.clearCookies({ name: 'csrf' })
    const noCookie = await submit(page, 'Sign in')
    assert.equal(noCookie.status(), 403)
    assert.match(await page.locator('main').innerText(), /did not come from this site/)
    await checkPage(page)

    await visit(page, h, '/portal/login')
    await field(page, 'Email').fill(email)
    await field(page, 'Password').fill(PASSWORD)
    await page.locator('input[name="_csrf"]').first().evaluate((input) => {
      const token = input as HTMLInputElement
      token.value = token.value.slice(0, -4) + (token.value.endsWith('AAAA') ? 'BBBB' : 'AAAA')
    })
    const tampered = await submit(page, 'Sign in')
    assert.equal(tampered.status(), 403)
    // Neither attempt signed in.
    await visit(page, h, '/portal')
    assert.equal(new URL(page.url()).pathname, '/portal/login')

    // The untouched form works.
    await field(page, 'Email').fill(email)
    await field(page, 'Password').fill(PASSWORD)
    await submit(page, 'Sign in')
    assert.equal(new URL(page.url()).pathname, '/portal')
  })

  test('a session idle for 13 hours has ended: the overview sends the browser to sign in, and back', { timeout: 60_000 }, async () => {
    const { page } = h
    const email = newEmail()
    await signUp(page, h, email, PASSWORD)
    await visit(page, h, '/portal')
    await h.advance(13 * 3600)
    await page.reload()
    assert.equal(new URL(page.url()).pathname, '/portal/login')
    assert.equal(new URL(page.url()).searchParams.get('next'), '/portal')
    await checkPage(page)
    await field(page, 'Email').fill(email)
    await field(page, 'Password').fill(PASSWORD)
    await submit(page, 'Sign in')
    assert.equal(new URL(page.url()).pathname, '/portal')
  })

  test('a forgotten password: the emailed link sets a new one and signs in; the old one fails', { timeout: 60_000 }, async () => {
    const { page } = h
    const email = newEmail()
    await signUp(page, h, email, PASSWORD)
    await submit(page, 'Sign out')

    await page.getByRole('link', { name: 'Forgot password?' }).click()
    await page.waitForURL('**/portal/forgot-password')
    await checkPage(page)
    await field(page, 'Email').fill(email)
    await submit(page, 'Send reset link')
    assert.match(await page.getByRole('status').innerText(), /sent it a link/)
    await checkPage(page)

    const message = await lastEmail(h, email)
    const link = /https?:\/\/\S+\/portal\/reset-password\?token=[\w-]+/.exec(message.text)?.[0]
    assert.ok(link, `no reset link in: ${message.text}`)
    assert.equal(new URL(link).origin, h.baseUrl)
    await page.goto(link)
    await checkPage(page)
    const newPassword = 'a brand new passphrase'
    await field(page, 'Password').fill(newPassword)
    const set = await submit(page, 'Set password')
    assert.equal(set.status(), 200)
    assert.equal(new URL(page.url()).pathname, '/portal')
    await checkPage(page)
    // The link works once.
    const again = await page.goto(link)
    assert.equal(again?.status(), 410)
    await checkPage(page)

    await visit(page, h, '/portal')
    await submit(page, 'Sign out')
    const old = await signIn(page, h, email, PASSWORD)
    assert.equal(old.status(), 401)
    const fresh = await signIn(page, h, email, newPassword)
    assert.equal(fresh.status(), 200)
    assert.equal(new URL(page.url()).pathname, '/portal')
  })
})
