import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { Client, freshIp, type Advertiser, type BillingSetup, type TestHarness } from './api.ts'
import { fetchService } from './service.ts'
import { byId, csrfToken, fieldError, inputValue, submitButtons, visibleText } from './html.ts'

/**
 * A browser without JavaScript for the HTML pages (portal, operator console,
 * public pages), over real HTTP, from an address of its own: it keeps the
 * cookies the service sets (session, CSRF secret), follows no redirect by
 * itself (tests see each 303 and its `location`), and posts forms with a
 * CSRF token as a browser would: by default the one of the last page it
 * read. test/helpers/html.ts reads the pages.
 */
export class PortalClient {
  readonly cookies = new Map<string, string>()
  /** The CSRF token of the last page read that had one (every form of a page carries the same one). */
  csrf: string | null = null

  constructor(
    readonly baseUrl: string,
    readonly ip: string = freshIp(),
  ) {}

  /** One request as it is: the cookies, no CSRF token added (`form` is posted as a urlencoded body). */
  async request(method: string, path: string, form?: Record<string, string>): Promise<PageReply> {
    const headers: Record<string, string> = { 'x-forwarded-for': this.ip }
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
    let body: string | undefined
    if (form) {
      headers['content-type'] = 'application/x-www-form-urlencoded'
      body = new URLSearchParams(form).toString()
    }
    const res = await fetchService(this.baseUrl + path, { method, headers, body, redirect: 'manual' })
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';')
      const eq = pair.indexOf('=')
      const name = pair.slice(0, eq).trim()
      const value = pair.slice(eq + 1).trim()
      const cleared = value === '' || attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a))
      if (cleared) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    const reply = new PageReply(res.status, res.headers, await res.text())
    const token = /name="_csrf" value="([^"]+)"/.exec(reply.text)?.[1]
    if (token) this.csrf = token
    return reply
  }

  get(path: string): Promise<PageReply> {
    return this.request('GET', path)
  }

  /**
   * Posts `fields` as a form with a CSRF token taken from `csrf`: the last
   * page read when left out, that page or that token when given, none when
   * null (a forged post). A `_csrf` in `fields` wins.
   */
  post(path: string, fields: Record<string, string> = {}, csrf?: PageReply | string | null): Promise<PageReply> {
    const token = csrf === undefined ? this.csrf : csrf === null ? null : typeof csrf === 'string' ? csrf : csrf.csrf()
    return this.request('POST', path, token === null ? fields : { _csrf: token, ...fields })
  }

  /** Opens `page` (200, with a form posting to `action`) and submits that form with `fields` and the page's token. */
  async submit(page: string, action: string, fields: Record<string, string> = {}): Promise<PageReply> {
    const opened = await this.get(page)
    assert.equal(opened.status, 200, `${page}: ${opened.words.slice(0, 300)}`)
    assert.ok(opened.text.includes(`action="${action}"`), `${page} has no form posting to ${action}`)
    return this.post(action, fields, opened)
  }

  /** Signs up a new advertiser through the form; returns its user id (shown on the overview). */
  async signUp(email: string, password = PASSWORD): Promise<string> {
    const res = await this.submit('/portal/signup', '/portal/signup', { email, password })
    assert.equal(res.status, 303, `sign-up answered ${res.status}: ${res.words.slice(0, 300)}`)
    const overview = await this.get('/portal')
    assert.equal(overview.status, 200, overview.words.slice(0, 300))
    const userId = /User id <code>([^<]+)<\/code>/.exec(overview.text)?.[1]
    assert.ok(userId, 'the overview shows the user id')
    return userId
  }
}

/** One answer to a page request. The helpers of test/helpers/html.ts, on its text. */
export class PageReply {
  constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly text: string,
  ) {}

  /** The redirect target of a 30x, else null. */
  get location(): string | null {
    return this.headers.get('location')
  }

  /** The CSRF token of the page's forms. */
  csrf(): string {
    return csrfToken(this.text)
  }

  /** The page's text without tags, whitespace collapsed (for "the page says …" assertions). */
  get words(): string {
    return visibleText(this.text)
  }

  /** The error shown at the control named `name` (see html.ts `fieldError`), or null. */
  fieldError(name: string): string | null {
    return fieldError(this.text, name)
  }

  /** The text of the element with this id (`api-key`, `user-id`), or null. */
  byId(id: string): string | null {
    return byId(this.text, id)
  }

  /** The labels of the page's submit buttons. */
  get buttons(): string[] {
    return submitButtons(this.text)
  }
}

// ------------------------------------------------------------------------------------------ accounts

/** The password of every advertiser the tests make through the portal. */
export const PASSWORD = 'a long enough portal password'

let emailCounter = 0
/** An email address no other test (or test process) uses. */
export const newEmail = (what = 'portal') => `${what}-${process.pid}-${emailCounter++}-${randomBytes(3).toString('hex')}@example.dev`

export interface OutboxEmail {
  to: string
  subject: string
  text: string
  sent_at: string
}

/** Every outbox message to `to`, newest first (through the operator API). */
export async function outboxTo(h: TestHarness, to: string): Promise<OutboxEmail[]> {
  const res = await h.admin.get(`/admin/v1/outbox?to=${encodeURIComponent(to)}`)
  assert.equal(res.status, 200, res.text)
  return res.body.messages
}

/** The newest outbox message to `to`. */
export async function latestEmail(h: TestHarness, to: string): Promise<OutboxEmail> {
  const messages = await outboxTo(h, to)
  assert.ok(messages.length > 0, `no email to ${to}`)
  return messages[0]!
}

/** The create form with the values a person would type (the key and token from the rendered form), `fields` over them. */
export function campaignFormFields(form: PageReply, fields: Record<string, string> = {}): Record<string, string> {
  return {
    _csrf: csrfToken(form.text),
    idempotency_key: inputValue(form.text, 'idempotency_key')!,
    name: 'Spring launch',
    ad_line: 'Ship faster with Acme CI',
    brand: 'Acme',
    cpm_usd: '2.50',
    blocks: '3',
    destination_url: 'https://acme.dev/ci',
    target_surface: 'extension',
    target_countries: '',
    icon_url: '',
    kind: 'impression',
    pace_minutes: '',
    optin_leaderboard: 'on',
    ...fields,
  }
}

/** The set-password link of an operator-made account's email, as a path. */
export async function setPasswordPath(h: TestHarness, email: string): Promise<string> {
  const message = await latestEmail(h, email)
  const link = /https?:\/\/\S+\/portal\/reset-password\?token=[A-Za-z0-9_%-]+/.exec(message.text)?.[0]
  assert.ok(link, `no set-password link in: ${message.text}`)
  const url = new URL(link)
  return url.pathname + url.search
}

/** A /v1 client for a user id and key (to try a revealed, rotated or old key). */
export function apiClient(h: TestHarness, userId: string, apiKey: string): Client {
  return new Client(h, { 'x-service-user-id': userId, 'x-service-api-key': apiKey })
}

export interface PortalAdvertiser {
  email: string
  userId: string
  /** The account's API key (issued by the operator after sign-up). */
  apiKey: string
  /** The same account through /v1 (responses checked against the OpenAPI document), to check what the portal did. */
  api: Advertiser
  /** A browser signed in to the portal. */
  browser: PortalClient
}

export interface PortalAdvertiserOptions {
  /** Write approval (default true). */
  approved?: boolean
  /** The API terms accepted (default true). */
  terms?: boolean
  /** Billing enrollment (default 'card'). */
  billing?: BillingSetup
}

/** What a new self-serve account has: no write approval, no terms, no billing. */
export const NEW_ACCOUNT = { approved: false, terms: false, billing: 'none' } as const satisfies PortalAdvertiserOptions

/**
 * An advertiser who signed up through /portal/signup (and so is signed in),
 * with approval, terms and billing set through the operator API as asked (by
 * default the account may write; NEW_ACCOUNT sets none), and an API key the
 * operator issued for reading the account through /v1.
 */
export async function portalAdvertiser(h: TestHarness, options: PortalAdvertiserOptions = {}): Promise<PortalAdvertiser> {
  const { approved = true, terms = true, billing = 'card' } = options
  const browser = new PortalClient(h.baseUrl)
  const email = newEmail()
  const userId = await browser.signUp(email)

  if (approved) assert.equal((await h.admin.post(`/admin/v1/accounts/${userId}/write-approval`, { approved: true })).status, 200)
  if (terms) assert.equal((await h.admin.post(`/admin/v1/accounts/${userId}/terms`, { accepted: true })).status, 200)
  const enrollment = {
    card: { mode: 'weekly_autopay', card_number: '4242424242424242' },
    failing_card: { mode: 'weekly_autopay', card_number: '4000000000000341' },
    net30: { mode: 'net30_invoice', credit_limit_cents: 500_000 },
    none: null,
  }[billing]
  if (enrollment) assert.equal((await h.admin.post(`/admin/v1/accounts/${userId}/billing`, enrollment)).status, 200)

  const rotated = await h.admin.post(`/admin/v1/accounts/${userId}/rotate-key`)
  assert.equal(rotated.status, 200, rotated.text)
  const apiKey: string = rotated.body.api_key
  const api = apiClient(h, userId, apiKey) as Advertiser
  api.userId = userId
  api.apiKey = apiKey
  return { email, userId, apiKey, api, browser }
}

/** Signs the advertiser's browser in again through the form (its session ends after 12 idle hours of service time). */
export async function signInAgain(adv: PortalAdvertiser): Promise<void> {
  const res = await adv.browser.submit('/portal/login', '/portal/login', { email: adv.email, password: PASSWORD })
  assert.equal(res.status, 303, res.words.slice(0, 500))
}
