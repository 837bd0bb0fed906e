import { freshIp } from './api.ts'

/**
 * A cookie-keeping HTTP client for the HTML pages (no browser): it follows no
 * redirect by itself, so tests see each 303, and it reads the CSRF token from
 * the page a form is on, as a browser would submit it.
 */
export class PortalClient {
  readonly cookies = new Map<string, string>()
  constructor(
    readonly baseUrl: string,
    readonly ip: string = freshIp(),
  ) {}

  #headers(extra: Record<string, string> = {}): Record<string, string> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
    return { 'x-forwarded-for': this.ip, ...(cookie ? { cookie } : {}), ...extra }
  }

  #remember(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';')
      const eq = pair!.indexOf('=')
      const name = pair!.slice(0, eq).trim()
      const value = pair!.slice(eq + 1).trim()
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a))
      if (expired || value === '') this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
  }

  async get(path: string): Promise<PageReply> {
    const res = await fetch(this.baseUrl + path, { headers: this.#headers(), redirect: 'manual' })
    this.#remember(res)
    return new PageReply(res.status, res.headers, await res.text())
  }

  /** Posts fields as a form; `_csrf` is taken from `csrf` (a page or a token) unless the fields carry one. */
  async post(path: string, fields: Record<string, string>, csrf?: PageReply | string | null): Promise<PageReply> {
    const token = csrf === undefined || csrf === null ? null : typeof csrf === 'string' ? csrf : csrf.csrf()
    const body = new URLSearchParams({ ...(token === null ? {} : { _csrf: token }), ...fields })
    const res = await fetch(this.baseUrl + path, {
      method: 'POST',
      headers: this.#headers({ 'content-type': 'application/x-www-form-urlencoded' }),
      body: body.toString(),
      redirect: 'manual',
    })
    this.#remember(res)
    return new PageReply(res.status, res.headers, await res.text())
  }

  /** Opens `page`, then submits its form to `action` with `fields` and the page's token. */
  async submit(page: string, action: string, fields: Record<string, string>): Promise<PageReply> {
    return this.post(action, fields, await this.get(page))
  }

  /** Signs up a new advertiser through the form and returns its user id (shown on the overview). */
  async signUp(email: string, password = 'a long enough password'): Promise<string> {
    const res = await this.submit('/portal/signup', '/portal/signup', { email, password })
    if (res.status !== 303) throw new Error(`sign-up answered ${res.status}: ${res.text.slice(0, 300)}`)
    const overview = await this.get('/portal')
    const userId = /usr_[0-9A-Za-z]{22}/.exec(overview.text)?.[0]
    if (!userId) throw new Error('no user id on the overview page')
    return userId
  }
}

export class PageReply {
  constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly text: string,
  ) {}

  get location(): string | null {
    return this.headers.get('location')
  }

  /** The first form's CSRF token on the page. */
  csrf(): string {
    const token = /name="_csrf" value="([^"]+)"/.exec(this.text)?.[1]
    if (!token) throw new Error('no CSRF token on the page')
    return token
  }

  /** The text of the page without tags (for "the page says …" assertions). */
  get words(): string {
    return this.text
      .replace(/<(script|style)[\s\S]*?<\/\1>/g, '')
      .replace(/<[^>]+>/g, ' ')
      .replace(/&amp;/g, '&')
      .replace(/&#39;|&#x27;/g, "'")
      .replace(/&quot;/g, '"')
      .replace(/\s+/g, ' ')
      .trim()
  }

  /** The error shown under the field `name` (the `Field` component's markup), or null. */
  fieldError(name: string): string | null {
    const m = new RegExp(`id="f-${name}-error"[^>]*>([^<]*)<`).exec(this.text)
    return m ? m[1]!.trim() : null
  }
}
