import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { FastifyReply, FastifyRequest } from 'fastify'
import cookie from '@fastify/cookie'
import csrf from '@fastify/csrf-protection'
import formbody from '@fastify/formbody'
import helmet from '@fastify/helmet'
import type { VNode } from 'preact'
import type { App, RouteDeps } from '../types.ts'
import { renderDocument } from '../pages/render.ts'
import { ErrorPage, errorMessage } from '../pages/error-page.tsx'
import { OPS_HOME } from '../pages/ops/frame.tsx'
import { ApiError } from '../../domain/errors.ts'
import { storeTroubleError } from './errors.ts'
import { csrfCookie, opsSessionCookie, portalSessionCookie, secureCookies } from './session-cookies.ts'

/**
 * What every HTML page stands on (operations.md section 5): form bodies,
 * cookies, a CSRF token on every state-changing form (a POST without a valid
 * one is 403), security headers (a CSP with no inline script, no framing), the
 * shared stylesheet and script, and errors rendered as pages instead of JSON.
 * Registered once around the portal, the public pages and the console.
 */

/** Form bodies are small; the API's 64 KiB limit applies too. */
const FORM_FIELD_LIMIT = 50

const ASSETS: Record<string, { type: string; file: string }> = {
  'site.css': { type: 'text/css; charset=utf-8', file: 'site.css' },
  'site.js': { type: 'text/javascript; charset=utf-8', file: 'site.js' },
  'public.css': { type: 'text/css; charset=utf-8', file: 'public.css' },
  'ad-surfaces.css': { type: 'text/css; charset=utf-8', file: 'ad-surfaces.css' },
}

function loadAssets() {
  const loaded = new Map<string, { type: string; body: Buffer; etag: string }>()
  for (const [name, asset] of Object.entries(ASSETS)) {
    const body = readFileSync(new URL(`../pages/assets/${asset.file}`, import.meta.url))
    loaded.set(name, { type: asset.type, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` })
  }
  return loaded
}

declare module 'fastify' {
  interface FastifyReply {
    /** Sends a page: status, HTML type, no caching by shared caches. */
    page(page: VNode, status?: number): FastifyReply
  }
  interface FastifyRequest {
    /** Where @fastify/csrf-protection finds this request's CSRF secret (`csrfSecretHolder`). */
    session: CsrfSecretHolder | null
  }
}

/** The property of `request.session` that @fastify/csrf-protection reads and, for a browser without a secret, writes. */
const CSRF_SECRET = 'csrfSecret'

interface CsrfSecretHolder {
  [CSRF_SECRET]: string | undefined
}

/**
 * A CSRF token is bound to the session it was made for (issue 34), not only
 * to a cookie: for a browser with a session (the console's under /ops, the
 * portal's elsewhere) the secret the token is made from and checked against
 * is derived from that session's token, which the browser holds in an
 * HttpOnly cookie and the store keeps only as a digest. A token made for one
 * session is refused in any other, and refused once its session is replaced
 * (sign-in, sign-out). A browser without a session (sign-in, sign-up, the
 * password forms, the console's setup) keeps a random secret in a cookie of
 * its own, as before.
 *
 * The plugin runs in its `@fastify/session` mode, reading and writing
 * `request.session.csrfSecret`; this holder is that session.
 */
function csrfSecretHolder(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply): CsrfSecretHolder {
  let minted: string | undefined
  return {
    get [CSRF_SECRET]() {
      const session = request.cookies[request.url.startsWith('/ops') ? opsSessionCookie(deps) : portalSessionCookie(deps)]
      if (session) return createHash('sha256').update(`csrf-secret:${session}`, 'utf8').digest('base64url')
      return minted ?? request.cookies[csrfCookie(deps)]
    },
    set [CSRF_SECRET](secret: string | undefined) {
      if (secret === undefined) return
      minted = secret
      void reply.setCookie(csrfCookie(deps), secret, { path: '/', sameSite: 'lax', httpOnly: true, secure: secureCookies(deps) })
    },
  }
}

/** The HTML error page for any error under the pages; the status of the API's envelope is kept. */
function pageError(raised: unknown, request: FastifyRequest, reply: FastifyReply) {
  // Store trouble is the API's 503 (retry shortly), not a bug of ours.
  const error = storeTroubleError(raised, request) ?? raised
  const e = error as { code?: string; statusCode?: number; validation?: unknown }
  let status = 500
  let message = 'Something went wrong on our side. Try again in a moment.'
  if (e.code === 'FST_CSRF_INVALID_TOKEN' || e.code === 'FST_CSRF_MISSING_SECRET') {
    status = 403
    message = 'This form has expired or did not come from this site. Go back, reload the page and try again.'
  } else if (error instanceof ApiError) {
    status = error.status
    message = errorMessage(error.status, error.detail)
    if (error.headers['retry-after']) void reply.header('retry-after', error.headers['retry-after'])
  } else if (e.validation) {
    status = 400
    message = 'The form was incomplete or malformed. Go back, reload the page and try again.'
  } else if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    status = e.statusCode
    message = 'The request could not be understood. Go back and try again.'
  } else {
    request.log.error({ err: error }, 'page error')
  }
  const home = request.url.startsWith('/ops') ? OPS_HOME : undefined
  return reply.page(ErrorPage({ status, message, home }), status)
}

/** Registers the page machinery in the calling (encapsulated) context; `routes` then add their pages. */
export async function registerWebPages(app: App, deps: RouteDeps): Promise<void> {
  await app.register(formbody, { bodyLimit: 64 * 1024, parser: (body) => Object.fromEntries(formEntries(body)) })
  await app.register(cookie)
  app.decorateRequest('session', null)
  app.addHook('onRequest', async (request, reply) => {
    request.session = csrfSecretHolder(deps, request, reply)
  })
  await app.register(csrf, { sessionPlugin: '@fastify/session', sessionKey: CSRF_SECRET })
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        baseUri: ["'none'"],
        frameAncestors: ["'none'"],
      },
    },
    // Same-origin pages only; HSTS is the TLS terminator's business (PUBLIC_URL may be plain http locally).
    strictTransportSecurity: secureCookies(deps),
    referrerPolicy: { policy: 'no-referrer' },
  })

  app.decorateReply('page', function (this: FastifyReply, page: VNode, status = 200) {
    return this.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(renderDocument(page))
  })
  app.setErrorHandler((error, request, reply) => pageError(error, request, reply))
  // Every state-changing request under the pages carries a CSRF token (forms post `_csrf`), checked before the form itself.
  app.addHook('preValidation', (request, reply, done) => {
    if (request.method === 'GET' || request.method === 'HEAD') return done()
    app.csrfProtection(request, reply, done)
  })

  const assets = loadAssets()
  app.get<{ Params: { name: string } }>('/assets/:name', { schema: { hide: true } }, async (request, reply) => {
    const asset = assets.get(request.params.name)
    if (!asset) throw new ApiError(404, 'no such asset')
    reply.header('etag', asset.etag).header('cache-control', 'public, max-age=300')
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send()
    return reply.type(asset.type).send(asset.body)
  })
}

/** application/x-www-form-urlencoded, first value of each name, at most FORM_FIELD_LIMIT fields. */
function formEntries(body: string): [string, string][] {
  const entries: [string, string][] = []
  for (const [name, value] of new URLSearchParams(body)) {
    if (entries.length >= FORM_FIELD_LIMIT) break
    if (!entries.some(([n]) => n === name)) entries.push([name, value])
  }
  return entries
}
