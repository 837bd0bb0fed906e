import type { IncomingMessage } from 'node:http'
import type { App } from '../../types.ts'
import { ErrorPage } from '../../pages/error-page.tsx'
import { hasEmptySegment } from '../../plugins/errors.ts'
import { prefersHtml, underApi } from '../../page-requests.ts'

/**
 * Any unknown path a browser asks for (issue 36): an HTML 404 page with the
 * public navigation, served by a catch-all route of the web pages' context so
 * it has their security headers and CSP. The route is constrained to requests
 * that prefer HTML and lie outside the APIs; every other unknown path (an API
 * client's, anything under /v1, /admin/v1 or /serve) never matches it and
 * gets the JSON envelope of `plugins/errors.ts` (404, or 405 with Allow).
 */

/** Media types are case-insensitive (RFC 9110 8.3.1). */
const TEXT_HTML = /text\/html/i

/**
 * A path with an empty segment or a trailing slash never reaches a route: the input guard
 * redirects a browser's page request to the canonical path, and refuses the rest with the JSON
 * 404 (`plugins/input-guard.ts`).
 */
/** The router constraint (`app.addConstraintStrategy`) that lets only a browser's page request reach the catch-all. */
export const BROWSER_PAGE_CONSTRAINT = {
  name: 'browserPage',
  mustMatchWhenDerived: false,
  storage() {
    const handlers = new Map<string, unknown>()
    return {
      get: (value: string) => (handlers.get(value) ?? null) as never,
      set: (value: string, handler: unknown) => void handlers.set(value, handler),
    }
  },
  // Derived for every request, the serving path's included: an Accept header without text/html
  // (API clients, the serving clients) answers first, in a few nanoseconds.
  deriveConstraint: (req: IncomingMessage) => {
    const accept = req.headers.accept
    if (accept === undefined || !TEXT_HTML.test(accept)) return 'no'
    const url = req.url ?? '/'
    return !underApi(url) && !hasEmptySegment(url.split('?')[0]!) && prefersHtml(accept) ? 'yes' : 'no'
  },
  validate: (value: unknown) => {
    if (value !== 'yes') throw new Error('browserPage constraint: only "yes"')
  },
}

export function notFoundPageRoutes() {
  return async (app: App) => {
    app.get('/*', { constraints: { browserPage: 'yes' } }, async (_request, reply) =>
      reply.page(
        ErrorPage({
          status: 404,
          message: 'This page does not exist. Check the address, or start again from one of these pages.',
          links: [
            { href: '/', label: 'Home' },
            { href: '/status', label: 'Service status' },
            { href: '/portal/login', label: 'Sign in to the advertiser portal' },
          ],
        }),
        404,
      ),
    )
  }
}
