import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, STORE_UNAVAILABLE, PROVISIONING_INCOMPLETE } from '../../domain/errors.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Reason for a body field the schema does not allow (default `unknown_field`). */
    unknownFieldReason?: string
  }
}

interface AjvError {
  keyword: string
  instancePath: string
  params: Record<string, unknown>
}

const REASONS: Record<string, string> = {
  required: 'required',
  type: 'invalid_type',
  minLength: 'too_short',
  maxLength: 'too_long',
  pattern: 'invalid_format',
  format: 'invalid_format',
  enum: 'invalid_value',
  const: 'invalid_value',
  minimum: 'below_minimum',
  exclusiveMinimum: 'below_minimum',
  maximum: 'above_maximum',
  exclusiveMaximum: 'above_maximum',
  multipleOf: 'not_a_multiple',
  minItems: 'too_few_items',
  maxItems: 'too_many_items',
  uniqueItems: 'duplicate_items',
  additionalProperties: 'unknown_field',
  minProperties: 'empty_body',
}

/** Turns the first schema violation into `{ field, reason, ...facts }`. */
function validationDetail(err: AjvError, context: string, unknownFieldReason: string) {
  const path = err.instancePath.split('/').filter(Boolean).join('.')
  const where = path === '' ? (context === 'body' ? 'body' : context) : path
  const p = err.params
  switch (err.keyword) {
    case 'required':
      return { field: path ? `${path}.${String(p.missingProperty)}` : String(p.missingProperty), reason: 'required' }
    case 'additionalProperties':
      return { field: path ? `${path}.${String(p.additionalProperty)}` : String(p.additionalProperty), reason: unknownFieldReason }
    case 'enum':
      return { field: where, reason: 'invalid_value', allowed: p.allowedValues }
    case 'type':
      return { field: where, reason: 'invalid_type', expected: p.type }
    case 'minimum':
    case 'exclusiveMinimum':
      return { field: where, reason: 'below_minimum', minimum: p.limit }
    case 'maximum':
    case 'exclusiveMaximum':
      return { field: where, reason: 'above_maximum', maximum: p.limit }
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
      return { field: where, reason: REASONS[err.keyword]!, limit: p.limit }
    case 'multipleOf':
      return { field: where, reason: 'not_a_multiple', multiple_of: p.multipleOf }
    default:
      return { field: where, reason: REASONS[err.keyword] ?? 'invalid' }
  }
}

/** PostgreSQL / connection failures that mean "try again later", not a bug. */
function storeTrouble(err: unknown): 'unavailable' | 'contention' | null {
  const code = (err as { code?: unknown }).code
  if (typeof code !== 'string') return null
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P03', '08000', '08003', '08006', '53300'].includes(code)) {
    return 'unavailable'
  }
  if (code === '40001' || code === '40P01' || code === '55P03') return 'contention'
  return null
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    // An unknown route is 404 whatever its body looked like.
    if (request.is404) return reply.code(404).send({ detail: `no route ${request.method} ${request.url.split('?')[0]}` })
    if (error instanceof ApiError) {
      return reply.code(error.status).headers(error.headers).send({ detail: error.detail })
    }
    if (error.validation && error.validation.length > 0) {
      const reason = request.routeOptions.config?.unknownFieldReason ?? 'unknown_field'
      return reply.code(400).send({ detail: validationDetail(error.validation[0] as AjvError, error.validationContext ?? 'body', reason) })
    }
    if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError) {
      return reply.code(400).send({ detail: 'malformed JSON body' })
    }
    if (error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
      return reply.code(400).send({ detail: 'empty JSON body; send an object' })
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.code(413).send({ detail: 'request body too large' })
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.code(415).send({ detail: 'unsupported content type; send application/json' })
    }
    const trouble = storeTrouble(error)
    if (trouble) {
      request.log.warn({ err: error }, 'store trouble')
      const detail = trouble === 'contention' && request.routeOptions.url === '/v1/campaigns' ? PROVISIONING_INCOMPLETE : STORE_UNAVAILABLE
      return reply.code(503).header('retry-after', '2').send({ detail })
    }
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send({ detail: error.message })
    }
    request.log.error({ err: error }, 'unhandled error')
    return reply.code(500).send({ detail: 'internal error' })
  })

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ detail: `no route ${request.method} ${request.url.split('?')[0]}` })
  })
}
