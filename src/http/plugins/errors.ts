import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, STORE_UNAVAILABLE, PROVISIONING_INCOMPLETE } from '../../domain/errors.ts'
import { EDGE_REASONS, edgeDetail, type EdgeReason } from '../error-reasons.ts'
import { TIMEOUTS } from '../../platform/timeouts.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Reason for a body field the schema does not allow (default `unknown_field`). */
    unknownFieldReason?: string
    /**
     * false: the per-request deadline does not apply (operator actions that answer once jobs
     * ran, as long as they take). The dependencies' own timeouts still bound every query.
     */
    deadline?: false
  }
}

export interface AjvError {
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
export function validationDetail(err: AjvError, context: string, unknownFieldReason: string) {
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

/**
 * The API's 400 for a body that fails its schema (`errors` as Ajv reports
 * them). The portal builds API bodies from its forms and checks them with the
 * API's own schemas, so a form gets the same `{field, reason}` as the API.
 */
export function bodySchemaError(errors: readonly unknown[]): ApiError {
  return new ApiError(400, validationDetail(errors[0] as AjvError, 'body', 'unknown_field'))
}

/**
 * pg's own errors carry no code, only a message: its client-side query timeout
 * ("Query read timeout"), the pool's wait for a connection ("timeout exceeded
 * when trying to connect"), a connection cut under a query ("Connection
 * terminated", "... unexpectedly", "... due to connection timeout") or one
 * already dead ("... not queryable").
 */
const STORE_TROUBLE_MESSAGES = [/^Query read timeout$/, /^timeout exceeded when trying to connect$/, /^Connection terminated\b/, /is not queryable$/]

/**
 * PostgreSQL / connection failures that mean "try again later", not a bug:
 * unreachable or stalled (the timeouts of src/platform/timeouts.ts),
 * statement_timeout (57014), idle-in-transaction timeout (25P03), shutdown
 * (57P01, 57P03), connection failures (08xxx), too many connections (53300).
 */
export function storeTrouble(err: unknown): 'unavailable' | 'contention' | null {
  if (typeof err !== 'object' || err === null) return null
  const code = 'code' in err ? err.code : undefined
  if (typeof code !== 'string') {
    const message = err instanceof Error ? err.message : ''
    return STORE_TROUBLE_MESSAGES.some((m) => m.test(message)) ? 'unavailable' : null
  }
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57014', '25P03', '57P01', '57P03', '08000', '08003', '08006', '53300'].includes(code)) {
    return 'unavailable'
  }
  if (code === '40001' || code === '40P01' || code === '55P03') return 'contention'
  return null
}

/**
 * Store trouble as the answer it gets everywhere, the API and the pages alike:
 * 503 with `Retry-After`; a create caught in lock contention is told to retry
 * the identical body (its idempotency key makes that safe). Null: not store trouble.
 */
export function storeTroubleError(error: unknown, request: FastifyRequest): ApiError | null {
  const trouble = storeTrouble(error)
  if (!trouble) return null
  request.log.warn({ err: error }, 'store trouble')
  const url = request.routeOptions.url
  const create = url === '/v1/campaigns' || url === '/portal/campaigns/new'
  return new ApiError(503, trouble === 'contention' && create ? PROVISIONING_INCOMPLETE : STORE_UNAVAILABLE, { 'retry-after': String(TIMEOUTS.http.retryAfterS) })
}

export const BODY_LIMIT_BYTES = 64 * 1024

/** An answer of the HTTP edge (see error-reasons.ts), as an ApiError so it takes the one path out. */
export const edgeError = (reason: EdgeReason, facts: Record<string, unknown> = {}, field?: string, headers: Record<string, string> = {}) =>
  new ApiError(EDGE_REASONS[reason].status, edgeDetail(reason, facts, field), headers)

/** Fastify's own 4xx errors, by code. */
const FRAMEWORK_ERRORS: Record<string, () => ApiError> = {
  FST_ERR_CTP_INVALID_JSON_BODY: () => edgeError('invalid_json'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new ApiError(400, { field: 'body', reason: 'empty_body' }),
  FST_ERR_CTP_BODY_TOO_LARGE: () => edgeError('payload_too_large', { limit_bytes: BODY_LIMIT_BYTES }),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => edgeError('unsupported_media_type', { allowed: ['application/json'] }),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => edgeError('invalid_content_length'),
  FST_ERR_BAD_URL: () => edgeError('malformed_url'),
  FST_ERR_MAX_PARAM_LENGTH: () => edgeError('uri_too_long', { max_length: 1024 }),
}

/** Maps any error to its answer: the catalogue's, Fastify's, schema violations, store trouble, else a bare 500. */
function toApiError(error: FastifyError, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error
  if (error.validation && error.validation.length > 0) {
    const context = error.validationContext ?? 'body'
    const reason = context === 'querystring' ? 'unknown_parameter' : (request.routeOptions.config?.unknownFieldReason ?? 'unknown_field')
    return new ApiError(400, validationDetail(error.validation[0] as AjvError, context, reason))
  }
  const framework = FRAMEWORK_ERRORS[error.code]
  if (framework) return framework()
  if (error instanceof SyntaxError) return edgeError('invalid_json')
  const trouble = storeTroubleError(error, request)
  if (trouble) return trouble
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    // A client error raised inside Fastify or Node that has no entry above yet: still the envelope, logged to be named.
    request.log.warn({ err: error }, 'unnamed client error')
    return new ApiError(error.statusCode, edgeDetail('bad_request'))
  }
  request.log.error({ err: error }, 'unhandled error')
  return new ApiError(500, 'internal error')
}

const send = (reply: FastifyReply, error: ApiError) => reply.code(error.status).headers(error.headers).send({ detail: error.detail })

/**
 * One URL per resource: `/v1/campaigns/` or `/v1/campaigns//pause` would
 * otherwise reach a route with an empty id, so they are no route at all.
 */
export const hasEmptySegment = (path: string) => /\/\/|.\/$/.test(path)

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const

/**
 * No route for this method and path: 405 with `Allow` when the path has
 * routes for other methods (Fastify itself answers 404), else 404.
 */
function noRoute(app: FastifyInstance, request: FastifyRequest): ApiError {
  const path = request.url.split('?')[0]!
  if (hasEmptySegment(path)) return edgeError('not_found')
  const allowed = METHODS.filter((method) => app.findRoute({ method, url: path }) !== null)
  if (allowed.length === 0) return edgeError('not_found')
  return edgeError('method_not_allowed', { allowed }, undefined, { allow: allowed.join(', ') })
}

/** The API's error handler: every error as `{detail}` with its status (also for JSON routes among the HTML pages). */
export function apiErrorHandler(app: FastifyInstance) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) =>
    // An unknown route is 404 (or 405) whatever its body looked like.
    send(reply, request.is404 ? noRoute(app, request) : toApiError(error, request))
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(apiErrorHandler(app))
  app.setNotFoundHandler((request, reply) => send(reply, noRoute(app, request)))

  // Fastify's own answer while closing has no detail: answer it here instead (return503OnClosing is off).
  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return
    reply.header('connection', 'close')
    throw new ApiError(503, 'the service is shutting down; retry shortly', { 'retry-after': '1' })
  })
}

/** The deadline's answer (docs/operations.md, "Timeouts and limits"). */
export const DEADLINE_DETAIL = 'the service could not answer in time (a dependency is slow or unavailable); retry after a pause'

/**
 * The per-request deadline, a safety net under the store's and Redis's own
 * timeouts: a request that has not started its answer `deadlineMs` after it
 * arrived gets 503 + Retry-After. An answer already started (a CSV download
 * streaming) is never cut. The work behind it goes on and its late answer
 * is dropped; a view it was recording is either durable or not, never both
 * (a 503 is no acknowledgement, and a retried view never bills twice).
 */
export function registerDeadline(app: FastifyInstance, deadlineMs: number): void {
  const timers = new WeakMap<FastifyRequest, NodeJS.Timeout>()
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config?.deadline === false) {
      // Nor does the socket's idle timeout while it works (no byte moves until it answers).
      request.raw.socket.setTimeout(0)
      return
    }
    const timer = setTimeout(() => {
      if (reply.sent || reply.raw.headersSent || reply.raw.destroyed) return
      request.log.warn({ deadline_ms: deadlineMs }, 'request deadline passed; answering 503')
      void send(reply.header('connection', 'close'), new ApiError(503, DEADLINE_DETAIL, { 'retry-after': String(TIMEOUTS.http.retryAfterS) }))
    }, deadlineMs)
    timer.unref()
    timers.set(request, timer)
  })
  const clear = async (request: FastifyRequest) => {
    clearTimeout(timers.get(request))
    timers.delete(request)
  }
  app.addHook('onResponse', async (request) => {
    await clear(request)
    if (request.routeOptions.config?.deadline === false) request.raw.socket.setTimeout(TIMEOUTS.http.socketIdleMs)
  })
  app.addHook('onRequestAbort', clear)
}

/**
 * Fastify's `frameworkErrors`: routing failures (bad percent-encoding, an
 * over-long path parameter) that happen before any route or hook runs.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  void send(reply.header('x-request-id', request.id), toApiError(error, request))
}

/**
 * The server's `clientError`: a request Node's parser refused (head over
 * 16 KiB, malformed request line, timeout) has no Fastify request, so the
 * answer is written on the socket, still in the envelope.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const reason: EdgeReason =
    error.code === 'HPE_HEADER_OVERFLOW' ? 'header_too_large' : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'request_timeout' : 'malformed_request'
  const status = EDGE_REASONS[reason].status
  const body = JSON.stringify({ detail: edgeDetail(reason) })
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy()
}
