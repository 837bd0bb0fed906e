import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { Client, freshIp, type Advertiser, type BillingSetup, type TestHarness } from './api.ts'

/**
 * A browser without JavaScript, over real HTTP: keeps the cookies the service
 * sets (session, CSRF secret), follows nothing by itself, and posts forms
 * with the CSRF token of the last page it read.
 */
export class PortalBrowser {
  readonly ip = freshIp()
  readonly cookies = new Map<string, string>()
  /** The CSRF token of the last page read (every form of a page carries the same one). */
  csrf: string | null = null

  constructor(readonly baseUrl: string) {}

  async request(method: string, path: string, form?: Record<string, string>): Promise<PageReply> {
    const headers: Record<string, string> = { 'x-forwarded-for': this.ip }
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
    let body: string | undefined
    if (form) {
      headers['content-type'] = 'application/x-www-form-urlencoded'
      body = new URLSearchParams(form).toString()
    }
    const res = await fetch(this.baseUrl + path, { method, headers, body, redirect: 'manual' })
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';')
      const at = pair!.indexOf('=')
      const name = pair!.slice(0, at)
      const value = pair!.slice(at + 1)
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(cookie)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    const text = await res.text()
    const token = /name="_csrf" value="([^"]+)"/.exec(text)
    if (token) this.csrf = token[1]!
    return { status: res.status, headers: res.headers, text, location: res.headers.get('location') }
  }

  get(path: string): Promise<PageReply> {
    return this.request('GET', path)
  }

  /** Posts a form with the CSRF token of the last page (unless `csrf: false`, or another token is given). */
  post(path: string, fields: Record<string, string> = {}, options: { csrf?: boolean | string } = {}): Promise<PageReply> {
    const csrf = options.csrf === undefined || options.csrf === true ? this.csrf : options.csrf === false ? null : options.csrf
    return this.request('POST', path, csrf === null ? fields : { _csrf: csrf, ...fields })
  }
}

export interface PageReply {
  status: number
  headers: Headers
  text: string
  location: string | null
}

export const PORTAL_PASSWORD = 'correct horse battery staple'

export interface PortalAdvertiser {
  browser: PortalBrowser
  /** The same account through the API, with a key the operator issued. */
  api: Advertiser
  userId: string
  email: string
}

/**
 * Signs up through the portal's form (CSRF token from the page, cookies
 * kept), reads the user id off the overview, then has the operator open
 * writes as asked (approval, terms, billing, as test/helpers/api.ts does)
 * and issue an API key for reading the account through /v1.
 */
export async function portalAdvertiser(
  h: TestHarness,
  { approved = true, terms = true, billing = 'card' }: { approved?: boolean; terms?: boolean; billing?: BillingSetup } = {},
): Promise<PortalAdvertiser> {
  const browser = new PortalBrowser(h.baseUrl)
  assert.equal((await browser.get('/portal/signup')).status, 200)
  const email = `camp-${randomBytes(5).toString('hex')}@example.dev`
  const signedUp = await browser.post('/portal/signup', { email, password: PORTAL_PASSWORD })
  assert.equal(signedUp.status, 303, signedUp.text.slice(0, 500))
  const overview = await browser.get('/portal')
  assert.equal(overview.status, 200)
  const userId = /User id <code>([^<]+)<\/code>/.exec(overview.text)?.[1]
  assert.ok(userId, 'the overview shows the user id')

  if (approved) assert.equal((await h.admin.post(`/admin/v1/accounts/${userId}/write-approval`, { approved: true })).status, 200)
  if (terms) assert.equal((await h.admin.post(`/admin/v1/accounts/${userId}/terms`, { accepted: true })).status, 200)
  const enrollment = {
    card: { mode: 'weekly_autopay', card_number: '4242424242424242' },
    failing_card: { mode: 'weekly_autopay', card_number: '4000000000000341' },
    net30: { mode: 'net30_invoice', credit_limit_cents: 500_000 },
    none: null,
  }[billing]
  if (enrollment) assert.equal((await h.admin.post(`/admin/v1/accounts/${userId}/billing`, enrollment)).status, 200)
  const key = await h.admin.post(`/admin/v1/accounts/${userId}/rotate-key`)
  assert.equal(key.status, 200, key.text)
  const api = new Client(h, { 'x-service-user-id': userId, 'x-service-api-key': key.body.api_key }) as Advertiser
  api.userId = userId
  api.apiKey = key.body.api_key
  return { browser, api, userId, email }
}

/** The text of an HTML fragment with tags removed and whitespace collapsed, for reading a page like a person. */
export function visibleText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/\s+/g, ' ')
    .trim()
}

/**
 * The rows of the data table inside a chart's <details><summary>Data</summary>
 * (pages/chart.tsx), found by the chart's id: [time, value] pairs as shown.
 */
export function chartData(html: string, chartId: string): [string, string][] {
  const start = html.indexOf(`<figure class="chart" id="${chartId}"`)
  assert.ok(start >= 0, `chart ${chartId} is on the page`)
  const figure = html.slice(start, html.indexOf('</figure>', start))
  assert.match(figure, /<details class="chart-data"><summary>Data<\/summary>/)
  const body = figure.slice(figure.indexOf('<tbody>'), figure.indexOf('</tbody>'))
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) => {
    const cells = [...row[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => visibleText(c[1]!))
    return [cells[0] ?? '', cells[1] ?? '']
  })
}

/** The aria-label of a chart's SVG. */
export function chartLabel(html: string, chartId: string): string {
  const start = html.indexOf(`<figure class="chart" id="${chartId}"`)
  assert.ok(start >= 0, `chart ${chartId} is on the page`)
  const label = /<svg[^>]*aria-label="([^"]*)"/.exec(html.slice(start))?.[1]
  assert.ok(label !== undefined, 'the chart has an aria-label')
  return visibleText(label)
}

/** Signs in again through the form (after a clock move past the session's idle limit). */
export async function signInAgain(adv: PortalAdvertiser): Promise<void> {
  assert.equal((await adv.browser.get('/portal/login')).status, 200)
  const res = await adv.browser.post('/portal/login', { email: adv.email, password: PORTAL_PASSWORD })
  assert.equal(res.status, 303, res.text.slice(0, 500))
}
