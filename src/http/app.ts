import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyBaseLogger, type FastifyServerOptions } from 'fastify'
import swagger from '@fastify/swagger'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { App, RouteDeps } from './types.ts'
import { ErrorBody, errors } from './schemas/common.ts'
import { registerErrorHandling } from './plugins/errors.ts'
import { authenticate } from './plugins/auth.ts'
import { accountRoutes } from './routes/v1/account.ts'
import { statusRoutes } from './routes/v1/status.ts'
import { campaignRoutes } from './routes/v1/campaigns.ts'
import { creativeRoutes } from './routes/v1/creatives.ts'
import { previewRoutes } from './routes/v1/previews.ts'
import { exportRoutes } from './routes/v1/exports.ts'
import { statsRoutes } from './routes/v1/stats.ts'
import { adminRoutes } from './routes/admin/index.ts'
import { pageRoutes } from './routes/pages.ts'
import { servingRoutes } from './routes/serve.ts'
import { OPENAPI_VERSION, openApiOptions } from './openapi.ts'

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

/**
 * Bodies are validated strictly (a string is never coerced into a number);
 * query strings and path parameters are text and may be coerced.
 */
function validators() {
  const base = { allErrors: false, removeAdditional: false, useDefaults: false, strict: false } as const
  const body = addFormats(new Ajv({ ...base, coerceTypes: false }))
  const params = addFormats(new Ajv({ ...base, coerceTypes: 'array' }))
  for (const ajv of [body, params]) ajv.addSchema(ErrorBody)
  return { body, params }
}

export const REDACTED_PATHS = [
  'req.headers["x-service-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
]

export function loggerOptions(level: string): FastifyServerOptions['logger'] & object {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: {
      // Paths only: a query string or a preview token in the path is a capability, not a log field.
      req: (req: { method: string; url: string; ip?: string }) => ({
        method: req.method,
        url: req.url.split('?')[0]!.replace(/^\/preview\/[^/]+/, '/preview/[token]'),
        ip: req.ip,
      }),
    },
  }
}

export async function buildApp(deps: RouteDeps, options: { logger: FastifyBaseLogger }): Promise<App> {
  const app = Fastify({
    loggerInstance: options.logger,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    trustProxy: deps.settings.trustProxy,
    bodyLimit: 64 * 1024,
    // Impression ids are sealed offers of about 200 characters.
    routerOptions: { maxParamLength: 1024 },
    return503OnClosing: true,
  }).withTypeProvider<TypeBoxTypeProvider>()

  const ajv = validators()
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? ajv.body : ajv.params).compile(schema))
  app.addSchema(ErrorBody)
  // Body-less calls (pause, resume, …) may still say `Content-Type: application/json`:
  // an empty body is no body. Anything else goes through Fastify's safe JSON parser.
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') done(null, undefined)
    else parseJson(request, body as string, done)
  })
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })
  registerErrorHandling(app)

  await app.register(swagger, openApiOptions(deps.settings.publicUrl))

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }))
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) =>
    (await deps.db.selectNoFrom((eb) => eb.val(1).as('one')).execute().then(
      () => true,
      () => false,
    ))
      ? { status: 'ready' }
      : reply.code(503).send({ detail: 'store unreachable' }),
  )

  let openapi: unknown
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => (openapi ??= app.swagger()))

  await app.register(
    async (v1) => {
      v1.addHook('onRoute', (route) => {
        // Answers every route can give, documented once: body parsing (400/413/415) and store trouble (503).
        const schema = (route.schema ??= {}) as { body?: unknown; response?: Record<number, unknown> }
        const common = [500, 503, ...(schema.body ? [400, 413, 415] : [])]
        schema.response = { ...errors(...common), ...(schema.response ?? {}) }
      })
      await v1.register(statusRoutes(deps))
      await v1.register(async (authed) => {
        authed.addHook('onRequest', authenticate(deps))
        await authed.register(accountRoutes(deps))
        await authed.register(campaignRoutes(deps))
        await authed.register(creativeRoutes(deps))
        await authed.register(previewRoutes(deps))
        await authed.register(exportRoutes(deps))
        await authed.register(statsRoutes(deps))
      })
    },
    { prefix: '/v1' },
  )

  if (deps.settings.adminToken !== null) {
    const token = deps.settings.adminToken
    await app.register(
      async (admin) => {
        admin.addHook('onRoute', (route) => {
          route.schema = { ...route.schema, hide: true }
        })
        await admin.register(adminRoutes(deps, token))
      },
      { prefix: '/admin/v1' },
    )
  }
  await app.register(pageRoutes(deps))
  await app.register(
    async (serve) => {
      serve.addHook('onRoute', (route) => {
        route.schema = { ...route.schema, hide: true }
      })
      await serve.register(servingRoutes(deps))
    },
    { prefix: '/serve/v1' },
  )

  void OPENAPI_VERSION
  return app
}
