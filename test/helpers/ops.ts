import assert from 'node:assert/strict'
import type { TestHarness } from './api.ts'
import { PortalClient, type PageReply } from './portal.ts'
import { ADMIN_TOKEN } from './service.ts'

/** The operator each test service's console is set up with (the setup closes after the first). */
export const OPERATOR = { email: 'first.operator@example.dev', password: 'the operator password' }

/**
 * A browser for the operator console (test/helpers/portal.ts does the
 * cookies, forms and CSRF tokens): it sets the console up, signs in, and
 * submits the forms of console pages.
 */
export class OpsClient extends PortalClient {
  /** Submits the setup form. */
  setup(fields: { token?: string; email?: string; password?: string } = {}): Promise<PageReply> {
    return this.submit('/ops/setup', '/ops/setup', { token: ADMIN_TOKEN, email: OPERATOR.email, password: OPERATOR.password, ...fields })
  }

  /** Submits the sign-in form. */
  login(email = OPERATOR.email, password = OPERATOR.password, next?: string): Promise<PageReply> {
    return this.submit('/ops/login', '/ops/login', { email, password, ...(next === undefined ? {} : { next }) })
  }

  /**
   * Opens `page` and posts `fields` to `action` with that page's CSRF token,
   * as a browser would; unlike `submit`, `action` need not be a form of the
   * page (an unknown job or component).
   */
  async act(page: string, action: string, fields: Record<string, string> = {}): Promise<PageReply> {
    return this.post(action, fields, await this.get(page))
  }
}

const ready = new WeakMap<TestHarness, Promise<void>>()

/** The service's first operator exists (set up once per service through the form). */
export function ensureOperator(h: TestHarness): Promise<void> {
  let done = ready.get(h)
  if (!done) {
    done = (async () => {
      const browser = new OpsClient(h.baseUrl)
      // Already set up (by a test of the setup itself, always as OPERATOR): nothing to do.
      if ((await browser.get('/ops/setup')).status === 404) return
      const res = await browser.setup()
      assert.equal(res.status, 303, `setup answered ${res.status}: ${res.words.slice(0, 300)}`)
    })()
    ready.set(h, done)
  }
  return done
}

/** A browser signed in to the console as the first operator, from an address of its own. */
export async function signedInOperator(h: TestHarness): Promise<OpsClient> {
  await ensureOperator(h)
  const ops = new OpsClient(h.baseUrl)
  const res = await ops.login()
  assert.equal(res.status, 303, `sign-in answered ${res.status}: ${res.words.slice(0, 300)}`)
  return ops
}

/** The newest audit entries through the token API (optionally of one action / target). */
export async function auditEntries(h: TestHarness, query: Record<string, string> = {}): Promise<any[]> {
  const res = await h.admin.get(`/admin/v1/audit?${new URLSearchParams(query).toString()}`)
  assert.equal(res.status, 200, res.text)
  return res.body.entries
}
