import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { Client, freshIp, type Advertiser, type BillingSetup, type TestHarness } from './api.ts'

/**
 * A person in the portal over real HTTP: a cookie jar, the CSRF token read
 * from each page's forms, form posts, and redirects not followed (tests look
 * at them). Used by the campaign list, create form and exports page tests.
 */

export interface PageReply {
  status: number
  headers: Headers
  text: string
  /** The redirect target of a 30x, else null. */
  location: string | null
}

export class PortalSession {
  readonly ip = freshIp()
  private readonly jar = new Map<string, string>()
  constructor(readonly baseUrl: string) {}

  private cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ')
  }

  async request(method: string, path: string, form?: Record<string, string>): Promise<PageReply> {
    const headers: Record<string, string> = { 'x-forwarded-for': this.ip }
    if (this.jar.size > 0) headers.cookie = this.cookieHeader()
    let body: string | undefined
    if (form) {
      headers['content-type'] = 'application/x-www-form-urlencoded'
      body = new URLSearchParams(form).toString()
    }
    const res = await fetch(this.baseUrl + path, { method, headers, body, redirect: 'manual' })
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';')
      const at = pair!.indexOf('=')
      const name = pair!.slice(0, at).trim()
      const value = pair!.slice(at + 1).trim()
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a))
      if (value === '' || expired) this.jar.delete(name)
      else this.jar.set(name, value)
    }
    return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location') }
  }

  get = (path: string) => this.request('GET', path)

  /** Posts a form; the CSRF token is read from `from` (a page already fetched, or a path to fetch) unless given in `fields`. */
  async post(path: string, fields: Record<string, string>, from?: PageReply | string): Promise<PageReply> {
    const form = { ...fields }
    if (from !== undefined && form._csrf === undefined) {
      const page = typeof from === 'string' ? await this.get(from) : from
      form._csrf = csrfToken(page.text)
    }
    return this.request('POST', path, form)
  }
}

// ------------------------------------------------------------------------------------------ HTML

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'" }
export const decode = (text: string) => text.replace(/&(amp|lt|gt|quot|#39|apos);/g, (_, e: string) => ENTITIES[e]!)

/** The page's text without tags (for "does the page say …" checks). */
export const pageText = (html: string) => decode(html.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ')

export function csrfToken(html: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(html)
  assert.ok(m, 'the page has a form with a CSRF token')
  return m[1]!
}

/** The opening tag of the form control named `name` (input, select). */
export function control(html: string, name: string): string {
  const m = new RegExp(`<(?:input|select)\\b[^>]*\\bname="${name}"[^>]*>`).exec(html)
  assert.ok(m, `a control named ${name}`)
  return m[0]
}

/** An attribute's value; a bare attribute (`value`, as an empty value is written) is the empty string. */
export function attribute(tag: string, name: string): string | null {
  const m = new RegExp(`\\s${name}(?:="([^"]*)")?(?=[\\s/>])`).exec(tag)
  return m ? decode(m[1] ?? '') : null
}

/** What an input shows (its value attribute). */
export const inputValue = (html: string, name: string) => attribute(control(html, name), 'value')

/** The selected option of a select. */
export function selectedOption(html: string, name: string): string | null {
  const m = new RegExp(`<select\\b[^>]*\\bname="${name}"[^>]*>([\\s\\S]*?)</select>`).exec(html)
  assert.ok(m, `a select named ${name}`)
  const option = /<option\b[^>]*\bselected\b[^>]*>/.exec(m[1]!)
  return option ? attribute(option[0], 'value') : null
}

/**
 * The error shown beside the control named `name`: the element the control's
 * aria-describedby names with `-error`, which must say it (so a person using a
 * screen reader hears it at the field).
 */
export function fieldError(html: string, name: string): string | null {
  const tag = control(html, name)
  const id = attribute(tag, 'id')
  const described = attribute(tag, 'aria-describedby') ?? ''
  const m = new RegExp(`<p class="field-error" id="${id}-error">([^<]*)</p>`).exec(html)
  if (!m) return null
  assert.ok(described.split(' ').includes(`${id}-error`), `the ${name} control is described by its error`)
  assert.equal(attribute(tag, 'aria-invalid'), 'true', `the ${name} control is marked invalid`)
  return decode(m[1]!)
}

/** Every field error on the page, by control name. */
export function fieldErrors(html: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const m of html.matchAll(/<p class="field-error" id="f-([a-z_]+)-error">([^<]*)<\/p>/g)) out[m[1]!] = decode(m[2]!)
  return out
}

/** The visible label text of each field, by control id. */
export function labels(html: string): string[] {
  return [...html.matchAll(/<label for="[^"]+">([^<]*)<\/label>/g)].map((m) => decode(m[1]!))
}

// ------------------------------------------------------------------------------------------ accounts

export const PORTAL_PASSWORD = 'correct horse battery staple'

export interface PortalAdvertiser {
  session: PortalSession
  email: string
  /** Signs in again (after the session ended, e.g. the clock moved past its idle limit). */
  signIn(): Promise<void>
  userId: string
  /** The same account through the API (a key issued by the operator), to check what the portal did. */
  api: Advertiser
}

/**
 * Signs up through /portal/signup (the CSRF token read from the page), reads
 * the user id from the overview, then sets approval, terms and billing
 * through the operator API. By default the account may write.
 */
export async function portalAdvertiser(
  h: TestHarness,
  o: { approved?: boolean; terms?: boolean; billing?: BillingSetup } = {},
): Promise<PortalAdvertiser> {
  const { approved = true, terms = true, billing = 'card' } = o
  const session = new PortalSession(h.baseUrl)
  const email = `portal-${randomBytes(4).toString('hex')}@example.dev`
  const signedUp = await session.post('/portal/signup', { email, password: PORTAL_PASSWORD }, '/portal/signup')
  assert.equal(signedUp.status, 303, signedUp.text)
  const overview = await session.get('/portal')
  assert.equal(overview.status, 200, overview.text)
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

  const rotated = await h.admin.post(`/admin/v1/accounts/${userId}/rotate-key`)
  assert.equal(rotated.status, 200, rotated.text)
  const api = new Client(h, { 'x-service-user-id': userId, 'x-service-api-key': rotated.body.api_key }) as Advertiser
  api.userId = userId
  api.apiKey = rotated.body.api_key
  const signIn = async () => {
    const res = await session.post('/portal/login', { email, password: PORTAL_PASSWORD }, '/portal/login')
    assert.equal(res.status, 303, res.text)
  }
  return { session, email, userId, api, signIn }
}
