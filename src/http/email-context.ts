import type { FastifyRequest } from 'fastify'
import type { RouteDeps } from './types.ts'
import type { EmailContext } from '../services/email.ts'

/** What a use case that sends email needs, from a request: the mailer and the request's logger. */
export function emailContext(deps: RouteDeps, request: FastifyRequest): EmailContext {
  return { ...deps, log: request.log }
}
