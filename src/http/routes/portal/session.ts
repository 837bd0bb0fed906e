import type { FastifyReply, FastifyRequest } from 'fastify'
import type { RouteDeps } from '../../types.ts'
import { portalSessionCookie, secureCookies } from '../../plugins/session-cookies.ts'
import { SESSION_MAX_MS } from '../../../domain/sign-in.ts'
import { requireAccount } from '../../../services/accounts.ts'
import { readSession } from '../../../services/sessions.ts'
import type { AccountRow } from '../../../services/read-models.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in advertiser of a portal page (set by requireAdvertiser). */
    advertiser: AccountRow
  }
}

/** The portal's session cookie; `__Host-` under https (Secure, path /, no Domain). */
export function sessionCookieName(deps: RouteDeps): string {
  return portalSessionCookie(deps)
}

export function setSessionCookie(deps: RouteDeps, reply: FastifyReply, token: string): void {
  void reply.setCookie(sessionCookieName(deps), token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: secureCookies(deps),
    maxAge: Math.floor(SESSION_MAX_MS / 1000),
  })
}

export function clearSessionCookie(deps: RouteDeps, reply: FastifyReply): void {
  void reply.clearCookie(sessionCookieName(deps), { path: '/', httpOnly: true, sameSite: 'lax', secure: secureCookies(deps) })
}

/** Only a path inside the portal is a place to come back to after sign-in. */
export function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/portal(?:[/?]|$)/.test(next) && !next.includes('//') && !next.includes('\\') ? next : '/portal'
}

/**
 * onRequest hook of the signed-in portal: a live session loads its account;
 * otherwise a GET goes to the sign-in page and comes back afterwards, and any
 * other request goes to the sign-in page (its form is lost).
 */
export function requireAdvertiser(deps: RouteDeps) {
  return async function advertiserSession(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const userId = await readSession(deps, 'advertiser', request.cookies[sessionCookieName(deps)])
    if (userId === null) {
      const next = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : ''
      return reply.redirect(`/portal/login${next}`, 303)
    }
    request.advertiser = await requireAccount(deps, userId)
    request.accountId = request.advertiser.user_id
    return undefined
  }
}
