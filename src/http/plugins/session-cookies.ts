import type { RouteDeps } from '../types.ts'

/**
 * The names of the pages' cookies, in one place: the portal and the console
 * set their sessions under them, and the CSRF check (web-pages.ts) reads the
 * session a form belongs to from them. Under an https PUBLIC_URL each is
 * `__Host-` (Secure, path /, no Domain), so no other host can set it.
 */
export function secureCookies(deps: RouteDeps): boolean {
  return deps.settings.publicUrl.startsWith('https:')
}

/** The advertiser portal's session cookie. */
export const portalSessionCookie = (deps: RouteDeps): string => (secureCookies(deps) ? '__Host-portal_session' : 'portal_session')

/** The operator console's session cookie. */
export const opsSessionCookie = (deps: RouteDeps): string => (secureCookies(deps) ? '__Host-ops_session' : 'ops_session')

/** The CSRF secret of a browser that has no session yet (the sign-in, sign-up, reset and setup forms). */
export const csrfCookie = (deps: RouteDeps): string => (secureCookies(deps) ? '__Host-csrf' : 'csrf')
