import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { Client, freshIp, type Advertiser, type BillingSetup, type TestHarness } from './api.ts'

/**
 * The account pages' tests (key, terms, billing, the set-password email): a
 * cookie-keeping fetch client for the HTML pages. It follows no redirect by
 * itself, so a test sees each 303, and it posts the CSRF token of the page a
 * form is on, as a browser would.
 */
export class PortalBrowser {
  readonly cookies = new Map<string, string>()
  constructor(
    readonly baseUrl: string,
    readonly ip: string = freshIp(),
  ) {}

  #headers(extra: Record<string, string> = {}): Record<string, string> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
    return { 'x-forwarded-for': this.ip, ...(cookie ? { cookie } : {}), ...extra }
  }

  #keep(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';')
      const eq = pair.indexOf('=')
      const name = pair.slice(0, eq).trim()
      const value = pair.slice(eq + 1).trim()
      const cleared = value === '' || attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a))
      if (cleared) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
  }

  async get(path: string): Promise<HtmlReply> {
    const res = await fetch(this.baseUrl + path, { headers: this.#headers(), redirect: 'manual' })
    this.#keep(res)
    return new HtmlReply(res.status, res.headers, await res.text())
  }

  /** Posts a form; `_csrf` comes from `from` (a page, or a token), unless it is null (a forged post). */
  async post(path: string, fields: Record<string, string>, from: HtmlReply | string | null): Promise<HtmlReply> {
    const token: Record<string, string> = from === null ? {} : { _csrf: typeof from === 'string' ? from : from.csrf() }
    const res = await fetch(this.baseUrl + path, {
      method: 'POST',
      headers: this.#headers({ 'content-type': 'application/x-www-form-urlencoded' }),
      body: new URLSearchParams({ ...token, ...fields }).toString(),
      redirect: 'manual',
    })
    this.#keep(res)
    return new HtmlReply(res.status, res.headers, await res.text())
  }

  /** Opens `page` and submits one of its forms (to `action`) with `fields`. */
  async submit(page: string, action: string, fields: Record<string, string> = {}): Promise<HtmlReply> {
    const opened = await this.get(page)
    assert.equal(opened.status, 200, `${page}: ${opened.words.slice(0, 300)}`)
    assert.ok(opened.text.includes(`action="${action}"`), `${page} has no form posting to ${action}`)
    return this.post(action, fields, opened)
  }
}

export class HtmlReply {
  constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly text: string,
  ) {}

  get location(): string | null {
    return this.headers.get('location')
  }

  csrf(): string {
    const token = /name="_csrf" value="([^"]+)"/.exec(this.text)?.[1]
    if (!token) throw new Error(`no CSRF token on the page: ${this.words.slice(0, 200)}`)
    return token
  }

  /** The page's text without tags, whitespace collapsed. */
  get words(): string {
    return this.text
      .replace(/<(script|style)[\s\S]*?<\/\1>/g, '')
      .replace(/<[^>]+>/g, ' ')
      .replace(/&amp;/g, '&')
      .replace(/&#39;|&#x27;/g, "'")
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/\s+/g, ' ')
      .trim()
  }

  /** The error shown under the field `name` (forms.tsx `Field`), or null. */
  fieldError(name: string): string | null {
    const m = new RegExp(`id="f-${name}-error"[^>]*>([^<]*)<`).exec(this.text)
    return m ? m[1]!.trim() : null
  }

  /** The text of the element with this id (`api-key`, `user-id`), or null. */
  byId(id: string): string | null {
    const m = new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(this.text)
    return m ? m[1]!.trim() : null
  }

  /** The labels of the page's submit buttons. */
  get buttons(): string[] {
    return [...this.text.matchAll(/<button[^>]*type="submit"[^>]*>([\s\S]*?)<\/button>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, '').trim())
  }
}

export const PASSWORD = 'a long enough portal password'

let emailCounter = 0
export const newEmail = (what = 'acct') => `${what}-${process.pid}-${emailCounter++}-${randomBytes(3).toString('hex')}@example.dev`

/** The newest outbox message to `to` (through the operator API). */
export async function latestEmail(h: TestHarness, to: string): Promise<{ to: string; subject: string; text: string; sent_at: string }> {
  const res = await h.admin.get(`/admin/v1/outbox?to=${encodeURIComponent(to)}`)
  assert.equal(res.status, 200, res.text)
  assert.ok(res.body.messages.length > 0, `no email to ${to}`)
  return res.body.messages[0]
}

/** The set-password link of an operator-made account's email, as a path. */
export async function setPasswordPath(h: TestHarness, email: string): Promise<string> {
  const message = await latestEmail(h, email)
  const link = /https?:\/\/\S+\/portal\/reset-password\?token=[A-Za-z0-9_%-]+/.exec(message.text)?.[0]
  assert.ok(link, `no set-password link in: ${message.text}`)
  const url = new URL(link)
  return url.pathname + url.search
}

export interface PortalAdvertiser {
  email: string
  userId: string
  /** The key the operator API answered at creation. */
  apiKey: string
  /** The advertiser's /v1 client (responses checked against the OpenAPI document). */
  api: Advertiser
  /** A browser signed in to the portal through the set-password email. */
  browser: PortalBrowser
}

/**
 * An operator-made advertiser (POST /admin/v1/accounts), signed in to the
 * portal by following the set-password link of its email. The write
 * prerequisites are set through the operator API as asked (none by default).
 */
export async function portalAdvertiser(h: TestHarness, o: { approved?: boolean; terms?: boolean; billing?: BillingSetup } = {}): Promise<PortalAdvertiser> {
  const email = newEmail()
  const created = await h.admin.post('/admin/v1/accounts', { email })
  assert.equal(created.status, 201, created.text)
  const { user_id: userId, api_key: apiKey } = created.body
  if (o.approved) assert.equal((await h.admin.post(`/admin/v1/accounts/${userId}/write-approval`, { approved: true })).status, 200)
  if (o.terms) assert.equal((await h.admin.post(`/admin/v1/accounts/${userId}/terms`, { accepted: true })).status, 200)
  const enrollment = {
    card: { mode: 'weekly_autopay', card_number: '4242424242424242' },
    failing_card: { mode: 'weekly_autopay', card_number: '4000000000000341' },
    net30: { mode: 'net30_invoice', credit_limit_cents: 500_000 },
    none: null,
  }[o.billing ?? 'none']
  if (enrollment) assert.equal((await h.admin.post(`/admin/v1/accounts/${userId}/billing`, enrollment)).status, 200)

  const browser = new PortalBrowser(h.baseUrl)
  const path = await setPasswordPath(h, email)
  const set = await browser.post('/portal/reset-password', { token: new URL(path, h.baseUrl).searchParams.get('token')!, password: PASSWORD }, await browser.get(path))
  assert.equal(set.status, 303, set.words.slice(0, 300))
  const api = new Client(h, { 'x-service-user-id': userId, 'x-service-api-key': apiKey }) as Advertiser
  api.userId = userId
  api.apiKey = apiKey
  return { email, userId, apiKey, api, browser }
}

/** A /v1 client for a user id and key (to try a revealed, rotated or old key). */
export function apiClient(h: TestHarness, userId: string, apiKey: string): Client {
  return new Client(h, { 'x-service-user-id': userId, 'x-service-api-key': apiKey })
}

/** Signs the advertiser's browser in again (its session ends after 12 idle hours of service time). */
export async function signBackIn(adv: PortalAdvertiser): Promise<void> {
  const res = await adv.browser.submit('/portal/login', '/portal/login', { email: adv.email, password: PASSWORD })
  assert.equal(res.status, 303, res.words.slice(0, 300))
}
