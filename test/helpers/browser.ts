import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer, type AddressInfo } from 'node:net'
import { after, afterEach, before, beforeEach } from 'node:test'
import { chromium, type Browser, type BrowserContext, type Page, type Response } from 'playwright-core'
import { freshIp } from './api.ts'
import { ADMIN_TOKEN, STORE, callService, startService, type TestService } from './service.ts'

/**
 * Real-browser tests of the pages (issue 21): playwright-core driving the
 * machine's Chromium (Debian's package, which .ci/run installs; CHROMIUM_PATH
 * names it). One browser per test file, a fresh context (cookies, storage) per
 * test. They run on the embedded store only: the pages call the same services
 * as the API, whose tests already cover both stores.
 */

/** Why a browser test file is skipped, or false: `describe(name, { skip: browserSkip }, …)`. */
export const browserSkip: string | false = STORE === 'postgres' ? 'browser tests run on the embedded store only' : false

export const DESKTOP = { width: 1280, height: 900 }
export const PHONE = { width: 375, height: 812 }

const root = new URL('../..', import.meta.url).pathname
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    // CI runs as root, where Chromium's sandbox cannot start.
    args: ['--no-sandbox'],
    timeout: 30_000,
  })
}

/** A port free right now, so PUBLIC_URL can name the address the service will listen on. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

export interface JsonReply<T = any> {
  status: number
  body: T
  text: string
}

export interface BrowserHarness {
  svc: TestService
  /** The service's origin, which is also its PUBLIC_URL: emailed links and report links open in the browser as they are. */
  baseUrl: string
  browser: Browser
  /** This test's context and its first page (fresh for every test). */
  context: BrowserContext
  page: Page
  /** A call to the operator API. */
  admin<T = any>(method: string, path: string, body?: unknown): Promise<JsonReply<T>>
  /** A call to the advertiser API with a user id and key. */
  api<T = any>(credentials: { userId: string; apiKey: string }, method: string, path: string, body?: unknown): Promise<JsonReply<T>>
  /** Moves the manual service clock forward (jobs that fall due run first). */
  advance(seconds: number): Promise<void>
}

/**
 * Registers the hooks of a browser test file: one service (PUBLIC_URL = its
 * real address) and one Chromium for the file; for each test a new context
 * whose requests come from an address of their own (X-Forwarded-For, so
 * sign-in lockouts and sign-up limits never leak across tests), whose
 * confirmation dialogs are accepted, and which must not ask any other origin
 * for anything (checked after the test).
 */
export function useBrowser(env: Record<string, string> = {}): BrowserHarness {
  const h = {} as BrowserHarness
  let foreign: ForeignRequests | null = null
  let pageErrors: PageErrors | null = null
  before(async () => {
    const port = await freePort()
    const publicUrl = `http://127.0.0.1:${port}`
    // Both start at once; if either fails, the other is closed, so a missing Chromium fails the file
    // at once instead of leaving a started service holding the process open.
    const [svc, browser] = await Promise.allSettled([startService({ PORT: String(port), PUBLIC_URL: publicUrl, ...env }), launchChromium()])
    if (svc.status === 'rejected' || browser.status === 'rejected') {
      if (svc.status === 'fulfilled') await svc.value.close()
      if (browser.status === 'fulfilled') await browser.value.close()
      throw svc.status === 'rejected' ? svc.reason : browser.status === 'rejected' ? browser.reason : new Error('unreachable')
    }
    h.svc = svc.value
    h.browser = browser.value
    h.baseUrl = h.svc.baseUrl
    assert.equal(h.baseUrl, publicUrl)
    h.admin = (method, path, body) => callService(h.svc, method, `/admin/v1${path}`, body, { authorization: `Bearer ${ADMIN_TOKEN}` })
    h.api = (c, method, path, body) => callService(h.svc, method, `/v1${path}`, body, { 'x-service-user-id': c.userId, 'x-service-api-key': c.apiKey })
    h.advance = async (seconds) => {
      const res = await h.admin('POST', '/clock', { advance_seconds: seconds })
      assert.equal(res.status, 200, res.text)
    }
  })
  after(async () => {
    await h.browser?.close()
    await h.svc?.close()
  })
  beforeEach(async () => {
    h.context = await h.browser.newContext({ viewport: DESKTOP, extraHTTPHeaders: { 'x-forwarded-for': freshIp() } })
    h.context.setDefaultTimeout(10_000)
    h.context.on('dialog', (dialog) => void dialog.accept())
    h.page = await h.context.newPage()
    foreign = noForeignRequests(h.page, h.baseUrl)
    pageErrors = noPageErrors(h.page)
  })
  afterEach(async () => {
    await h.context.close()
    foreign?.assertNone()
    pageErrors?.assertNone()
    foreign = pageErrors = null
  })
  return h
}

// ---------------------------------------------------------------------------------------------- checks

export interface ForeignRequests {
  /** Every request made so far, in order. */
  readonly urls: string[]
  /** Fails when any request went to another origin. */
  assertNone(): void
}

/**
 * Records every request of the page's context (every page, every redirect
 * hop) and answers whether any left for another origin: the pages load
 * nothing from a CDN, send no telemetry, and never link the browser away.
 */
export function noForeignRequests(page: Page, origin: string): ForeignRequests {
  const urls: string[] = []
  page.context().on('request', (request) => void urls.push(request.url()))
  return {
    urls,
    assertNone() {
      const foreign = urls.filter((url) => !/^(data|blob|about):/.test(url) && new URL(url).origin !== origin)
      assert.deepEqual(foreign, [], `requests left ${origin} for another origin`)
    },
  }
}

export interface PageErrors {
  readonly messages: string[]
  /** Fails when a page broke its Content-Security-Policy or its script threw. */
  assertNone(): void
}

/**
 * Records what the browser refused or what failed in the pages of the page's
 * context: a CSP violation (an inline style or script, a load from another
 * origin: the browser blocks it, so it never shows as a request, only as a
 * console error) and any uncaught exception of the pages' script.
 */
export function noPageErrors(page: Page): PageErrors {
  const messages: string[] = []
  const context = page.context()
  context.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) messages.push(`${message.page()?.url() ?? ''}: ${message.text()}`)
  })
  context.on('weberror', (error) => void messages.push(`${error.page()?.url() ?? ''}: uncaught ${error.error().message}`))
  return {
    messages,
    assertNone() {
      assert.deepEqual(messages, [], 'the pages broke their Content-Security-Policy or threw')
    },
  }
}

interface AxeViolation {
  id: string
  impact: string | null
  help: string
  helpUrl: string
  nodes: string[]
}

/**
 * Runs axe-core in the page and fails on any serious or critical violation,
 * listing each with the elements it found. The pages' CSP forbids inline
 * scripts, so axe's source goes in through the DevTools protocol
 * (page.evaluate), which the CSP does not govern.
 */
export async function axeCheck(page: Page): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE)
  const violations = await page.evaluate(async (): Promise<AxeViolation[]> => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: any[] }> } }).axe
    const result = await axe.run(document, { resultTypes: ['violations'] })
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? null,
      help: v.help,
      helpUrl: v.helpUrl,
      nodes: v.nodes.map((n: { target: string[] }) => n.target.join(' ')),
    }))
  })
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  if (bad.length === 0) return
  const width = page.viewportSize()?.width ?? 0
  const list = bad.map((v) => `- [${v.impact}] ${v.id}: ${v.help} (${v.helpUrl})\n    ${v.nodes.slice(0, 5).join('\n    ')}`).join('\n')
  assert.fail(`axe found ${bad.length} serious or critical violation(s) on ${page.url()} at ${width} px:\n${list}`)
}

/**
 * What every page owes its reader (the standards): a title, exactly one <h1>,
 * no serious or critical axe violation at a desktop and at a 375 px phone
 * width, and nothing wider than the phone's screen (wide tables scroll in
 * their own box). Leaves the page at the desktop width.
 */
export async function checkPage(page: Page): Promise<void> {
  assert.notEqual((await page.title()).trim(), '', `${page.url()} has no <title>`)
  assert.equal(await page.locator('h1').count(), 1, `${page.url()} must have exactly one <h1>`)
  await page.setViewportSize(DESKTOP)
  await axeCheck(page)
  await page.setViewportSize(PHONE)
  await axeCheck(page)
  const width = await page.evaluate(() => document.documentElement.scrollWidth)
  assert.ok(width <= PHONE.width, `${page.url()} is ${width} px wide at ${PHONE.width} px: the page scrolls sideways on a phone`)
  await page.setViewportSize(DESKTOP)
}

/** Writes <folder>/<name>.png (the whole page; docs/portal unless told) when UPDATE_SCREENSHOTS=1; otherwise does nothing. */
export async function screenshot(page: Page, name: string, folder = 'docs/portal'): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return
  const dir = `${root}${folder}`
  mkdirSync(dir, { recursive: true })
  writeFileSync(`${dir}/${name}.png`, await page.screenshot({ fullPage: true, animations: 'disabled' }))
}

/** Screenshots at the desktop and the phone width (`<name>.png`, `<name>-375.png`); leaves the page at the desktop width. */
export async function screenshotBothWidths(page: Page, name: string, folder?: string): Promise<void> {
  await page.setViewportSize(DESKTOP)
  await screenshot(page, name, folder)
  await page.setViewportSize(PHONE)
  await screenshot(page, `${name}-375`, folder)
  await page.setViewportSize(DESKTOP)
}

// ---------------------------------------------------------------------------------------------- driving pages

/**
 * Lets the account write, through the operator API (approval, terms, the always-working test
 * card), and rotates its key: the credentials of the advertiser API for it.
 */
export async function letWrite(h: BrowserHarness, userId: string): Promise<{ userId: string; apiKey: string }> {
  for (const [step, body] of [
    ['write-approval', { approved: true }],
    ['terms', { accepted: true }],
    ['billing', { mode: 'weekly_autopay', card_number: '4242424242424242' }],
  ] as const) {
    const res = await h.admin('POST', `/accounts/${userId}/${step}`, body)
    assert.equal(res.status, 200, `${step}: ${res.text}`)
  }
  const rotated = await h.admin<{ api_key: string }>('POST', `/accounts/${userId}/rotate-key`)
  assert.equal(rotated.status, 200, rotated.text)
  return { userId, apiKey: rotated.body.api_key }
}

/** Opens a path of the service and expects a page (2xx after redirects). */
export async function visit(page: Page, h: BrowserHarness, path: string): Promise<Response> {
  const response = await page.goto(h.baseUrl + path)
  assert.ok(response, `no response for ${path}`)
  assert.ok(response.status() < 400, `GET ${path} answered ${response.status()} (at ${page.url()})`)
  return response
}

/**
 * Clicks a button that submits a form and waits for the page it leads to
 * (after any redirect); returns that page's response, for its status.
 */
export async function submit(page: Page, button: string): Promise<Response> {
  const navigation = page.waitForNavigation({ waitUntil: 'load' })
  await page.getByRole('button', { name: button, exact: true }).click()
  const response = await navigation
  assert.ok(response, `the "${button}" button led to no new page`)
  return response
}

/** A field by its visible label (exact text). */
export function field(page: Page, label: string) {
  return page.getByLabel(label, { exact: true })
}

/**
 * Sets a labelled field whatever its control: a <select> gets the option whose
 * value or text is `value` (case-insensitive); a radio group named by its
 * legend gets the radio labelled `value`; an input or textarea is filled.
 */
export async function setField(page: Page, label: string, value: string): Promise<void> {
  const control = field(page, label)
  if ((await control.count()) === 0) {
    await page.getByRole('radiogroup', { name: label }).or(page.getByRole('group', { name: label })).getByLabel(value, { exact: false }).check()
    return
  }
  const tag = await control.evaluate((el) => el.tagName.toLowerCase())
  if (tag !== 'select') {
    await control.fill(value)
    return
  }
  const options = await control.locator('option').evaluateAll((els) => els.map((o) => ({ value: (o as HTMLOptionElement).value, text: (o.textContent ?? '').trim() })))
  const wanted = value.toLowerCase()
  const option = options.find((o) => o.value.toLowerCase() === wanted || o.text.toLowerCase() === wanted) ?? options.find((o) => o.text.toLowerCase().includes(wanted))
  assert.ok(option, `"${label}" has no option "${value}" (options: ${options.map((o) => o.text).join(', ')})`)
  await control.selectOption(option.value)
}

/**
 * Sets a labelled date or date-time field to an instant (UTC), in the form its
 * input type takes: a date, a local date-time, or the ISO string of the API.
 */
export async function setInstant(page: Page, label: string, iso: string): Promise<void> {
  const control = field(page, label)
  const type = (await control.getAttribute('type')) ?? 'text'
  const value = type === 'date' ? iso.slice(0, 10) : type === 'datetime-local' ? iso.slice(0, 16) : iso
  await control.fill(value)
}

/**
 * Asserts that a field shows an error next to it: the input is aria-invalid
 * and aria-describedby names a visible element whose text matches.
 */
export async function assertFieldError(page: Page, label: string, message: RegExp): Promise<string> {
  const control = field(page, label)
  assert.equal(await control.getAttribute('aria-invalid'), 'true', `"${label}" is not marked aria-invalid`)
  const describedBy = ((await control.getAttribute('aria-describedby')) ?? '').split(/\s+/).filter(Boolean)
  assert.ok(describedBy.length > 0, `"${label}" has no aria-describedby`)
  const texts: string[] = []
  for (const id of describedBy) {
    const element = page.locator(`[id="${id}"]`)
    assert.equal(await element.count(), 1, `"${label}" is described by #${id}, which is not on the page`)
    if (await element.isVisible()) texts.push((await element.innerText()).trim())
  }
  const error = texts.find((t) => message.test(t))
  assert.ok(error, `no visible description of "${label}" matches ${message}: ${JSON.stringify(texts)}`)
  return error
}

/** Signs up through /portal/signup and expects the overview. */
export async function signUp(page: Page, h: BrowserHarness, email: string, password: string): Promise<void> {
  await visit(page, h, '/portal/signup')
  await field(page, 'Email').fill(email)
  await field(page, 'Password').fill(password)
  const response = await submit(page, 'Sign up')
  assert.equal(response.status(), 200, `sign-up answered ${response.status()}`)
  assert.equal(new URL(page.url()).pathname, '/portal')
}

/** Signs in through /portal/login; returns the response of the page it leads to. */
export async function signIn(page: Page, h: BrowserHarness, email: string, password: string): Promise<Response> {
  await visit(page, h, '/portal/login')
  await field(page, 'Email').fill(email)
  await field(page, 'Password').fill(password)
  return submit(page, 'Sign in')
}

/** The user id the overview shows: the first <code> after the words "User id". */
export async function userIdOnPage(page: Page): Promise<string> {
  const code = page.locator('xpath=(//text()[contains(., "User id")]/following::code)[1]')
  const userId = (await code.innerText()).trim()
  assert.match(userId, /^\S+$/, 'no user id on the page')
  return userId
}

/** The newest email to `to` in the outbox. */
export async function lastEmail(h: BrowserHarness, to: string): Promise<{ subject: string; text: string }> {
  const res = await h.admin<{ messages: { subject: string; text: string }[] }>('GET', `/outbox?to=${encodeURIComponent(to)}`)
  assert.equal(res.status, 200, res.text)
  const message = res.body.messages[0]
  assert.ok(message, `no email to ${to}`)
  return message
}

/** Opens the main navigation's "Menu" when the page shows it (below 720 px); returns whether it did. */
export async function openMenu(page: Page): Promise<boolean> {
  const menu = page.getByRole('navigation', { name: 'Main' }).locator('details.nav-menu')
  if ((await menu.count()) === 0 || !(await menu.isVisible())) return false
  if (!(await menu.evaluate((d) => (d as HTMLDetailsElement).open))) await menu.locator('summary').click()
  return true
}

/** The portal's main navigation, by its labels (through the "Menu" on a phone). */
export async function navigate(page: Page, label: string): Promise<void> {
  await openMenu(page)
  const link = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true })
  const navigation = page.waitForNavigation({ waitUntil: 'load' })
  await link.click()
  const response = await navigation
  assert.ok(response && response.status() < 400, `"${label}" answered ${response?.status()}`)
}

export interface ChartShown {
  /** The aria-label of its <svg>. */
  label: string
  caption: string
  /** The cells of its Data table, row by row (header row included); empty when it has none (an empty chart). */
  rows: string[][]
}

/**
 * What the page's charts show, checking the shape every chart has (the shared
 * contract): `<figure class="chart">` with one labelled `<svg aria-label>` (a group of focusable marks),
 * a `<figcaption>`, and its numbers in a table inside
 * `<details><summary>Data</summary>` (in the figure or right after it).
 */
export async function charts(page: Page): Promise<ChartShown[]> {
  const figures = page.locator('figure.chart')
  const count = await figures.count()
  assert.ok(count > 0, `no chart on ${page.url()}`)
  const shown: ChartShown[] = []
  for (let i = 0; i < count; i++) {
    const figure = figures.nth(i)
    const image = figure.locator('svg[aria-label]')
    assert.equal(await image.count(), 1, 'a chart is one labelled <svg>')
    const label = (await image.getAttribute('aria-label')) ?? ''
    assert.notEqual(label.trim(), '', 'the chart image has no aria-label')
    const captions = figure.locator('figcaption')
    assert.equal(await captions.count(), 1, 'a chart has one <figcaption>')
    const caption = (await captions.innerText()).trim()
    assert.notEqual(caption, '', 'the chart has an empty caption')
    // The numbers: a table in <details><summary>Data</summary>, inside the figure or right after it.
    let details = figure.locator('details')
    if ((await details.count()) === 0) details = figure.locator('xpath=following-sibling::*[1][self::details]')
    let rows: string[][] = []
    if ((await details.count()) > 0) {
      const data = await details.first().evaluate((d) => ({
        summary: d.querySelector('summary')?.textContent?.trim() ?? '',
        rows: [...d.querySelectorAll('table tr')].map((tr) => [...tr.querySelectorAll('th, td')].map((c) => (c.textContent ?? '').trim())),
      }))
      assert.equal(data.summary, 'Data', "a chart's numbers are under <summary>Data</summary>")
      rows = data.rows
    }
    shown.push({ label, caption, rows })
  }
  return shown
}

/** Whether some chart's Data table has a cell that reads exactly `value`. */
export const chartShows = (shown: ChartShown[], value: string) => shown.some((c) => c.rows.some((row) => row.includes(value)))
