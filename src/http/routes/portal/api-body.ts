import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Static, TSchema } from 'typebox'
import { invalid } from '../../../domain/errors.ts'
import { findInputProblem } from '../../../domain/input-rules.ts'
import { bodySchemaError } from '../../plugins/errors.ts'

/**
 * A body the portal built from a form, checked exactly as the API checks its
 * own: the endpoint's schema through the API's body validator (strict, no
 * coercion, the service's date-time rule), then the edge's input rules. A
 * violation is the API's 400 `{field, reason}`, which the page shows at the
 * form field it came from. So the portal states no rule of its own.
 */
export function asApiBody<T extends TSchema>(request: FastifyRequest, schema: T, body: Record<string, unknown>): Static<T> {
  const validate = request.compileValidationSchema(schema, 'body')
  if (validate(body) !== true) throw bodySchemaError(validate.errors ?? [{ keyword: 'invalid', instancePath: '', params: {} }])
  const problem = findInputProblem(body)
  if (problem) throw invalid(problem.field === '' ? 'body' : problem.field, problem.reason)
  return body as Static<T>
}


/**
 * A route's error handler that shows a refused form on its own page. `show`
 * re-throws what it does not handle; that goes on to the pages' error handler
 * (Fastify hands an error sent from an error handler to the parent's).
 */
export function formErrorHandler(show: (error: unknown, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply): void => {
    void show(error, request, reply).catch((unhandled: unknown) => reply.send(unhandled))
  }
}
