import type { FastifyRequest } from 'fastify'
import type { RouteDeps } from './types.ts'
import type { AuditActor } from '../domain/audit.ts'
import type { Audited } from '../services/audit.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** Who acts on an operator route: the token (set by the operator API's hook) or a console operator (set by the session hook). */
    auditActor: AuditActor
  }
}

export const TOKEN_ACTOR: AuditActor = { kind: 'token', id: null }

/** What an operator use case (services/operator-actions.ts) needs from a request: the deps, who acts, and from which address. */
export function asOperator(deps: RouteDeps, request: FastifyRequest): RouteDeps & Audited {
  return { ...deps, audit: { actor: request.auditActor, address: request.clientAddress } }
}
