import type { FastifyReply, FastifyRequest } from 'fastify'
import type { RouteDeps } from '../../types.ts'
import { opsSessionCookie, secureCookies } from '../../plugins/session-cookies.ts'
import type { OpsFrame } from '../../pages/ops/frame.tsx'
import { opsNotice } from '../../pages/ops/notices.ts'
import { SESSION_MAX_MS } from '../../../domain/sign-in.ts'
import { readOperatorSession, type Operator } from '../../../services/operators.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in operator of a console page (set by requireOperator). */
    operator: Operator
  }
}

/**
 * The console's session cookie: `__Host-` under https, HttpOnly, and
 * SameSite=Strict (operators reach the console from their own bookmarks, not
 * from links on other sites, so no cross-site request ever carries it).
 */
export function opsCookieName(deps: RouteDeps): string {
  return opsSessionCookie(deps)
}

const cookieOptions = (deps: RouteDeps) => ({ path: '/', httpOnly: true, sameSite: 'strict' as const, secure: secureCookies(deps) })

export function setOpsCookie(deps: RouteDeps, reply: FastifyReply, token: string): void {
  void reply.setCookie(opsCookieName(deps), token, { ...cookieOptions(deps), maxAge: Math.floor(SESSION_MAX_MS / 1000) })
}

export function clearOpsCookie(deps: RouteDeps, reply: FastifyReply): void {
  void reply.clearCookie(opsCookieName(deps), cookieOptions(deps))
}

/** Only a path inside the console is a place to come back to after sign-in. */
export function safeOpsNext(next: unknown): string {
  return typeof next === 'string' && /^\/ops(?:[/?]|$)/.test(next) && !next.includes('//') && !next.includes('\\') ? next : '/ops'
}

/**
 * onRequest hook of the signed-in console: a live session loads its operator,
 * who is then the actor of every audited action; otherwise a GET goes to the
 * sign-in page and comes back afterwards, anything else to the sign-in page.
 */
export function requireOperator(deps: RouteDeps) {
  return async function operatorSession(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const operator = await readOperatorSession(deps, request.cookies[opsCookieName(deps)])
    if (operator === null) {
      const next = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : ''
      return reply.redirect(`/ops/login${next}`, 303)
    }
    request.operator = operator
    request.auditActor = { kind: 'operator', id: operator.operator_id }
    return undefined
  }
}

/** The frame of a signed-in console page, with the notice of `?notice=` when there is one. */
export function frameOf(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply, notice?: string): OpsFrame {
  return { csrf: reply.generateCsrf(), email: request.operator.email, manualClock: deps.clock.kind === 'manual', flash: opsNotice(notice) }
}
