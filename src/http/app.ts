import { randomUUID } from 'node:crypto'
import Fastify, { LogController, type FastifyBaseLogger, type FastifyServerOptions } from 'fastify'
import swagger from '@fastify/swagger'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { App, RouteDeps } from './types.ts'
import { ErrorBody } from './schemas/common.ts'
import { BODY_LIMIT_BYTES, clientErrorHandler, frameworkErrors, registerDeadline, registerErrorHandling } from './plugins/errors.ts'
import { registerInputGuard } from './plugins/input-guard.ts'
import { registerClientAddress } from './plugins/client-address.ts'
import { buildSerializer } from './compiled-schemas.ts'
import { routeValidators } from './validation.ts'
import { notReadyDetail, readiness } from '../services/status.ts'
import { TIMEOUTS } from '../platform/timeouts.ts'
import { authenticate } from './plugins/auth.ts'
import { refundOn503 } from './plugins/refunds.ts'
import { accountRoutes } from './routes/v1/account.ts'
import { statusRoutes } from './routes/v1/status.ts'
import { campaignRoutes } from './routes/v1/campaigns.ts'
import { creativeRoutes } from './routes/v1/creatives.ts'
import { previewRoutes } from './routes/v1/previews.ts'
import { exportRoutes } from './routes/v1/exports.ts'
import { statsRoutes } from './routes/v1/stats.ts'
import { auctionRoutes } from './routes/v1/auction.ts'
import { webhookRoutes } from './routes/v1/webhooks.ts'
import { ledgerRoutes } from './routes/v1/ledger.ts'
import { adminRoutes } from './routes/admin/index.ts'
import { adminAuth } from './plugins/admin-auth.ts'
import { UNMATCHED_ROUTE } from '../platform/metric-names.ts'
import { pageRoutes } from './routes/pages.ts'
import { portalRoutes } from './routes/portal/index.ts'
import { publicRoutes } from './routes/public/index.ts'
import { opsRoutes } from './routes/ops/index.ts'
import { registerWebPages } from './plugins/web-pages.ts'
import { BROWSER_PAGE_CONSTRAINT } from './routes/public/not-found.ts'
import { servingRoutes } from './routes/serve.ts'
import { devAttesterRoutes, issuerDirectoryRoutes, tokenRoutes } from './routes/privacy-pass.ts'
import { documentCommonErrors, OPENAPI_VERSION, openApiOptions } from './openapi.ts'

/** A route as declared: what tests and tools need to drive every route, hidden ones included. */
export interface RouteEntry {
  method: string
  url: string
  schema: { params?: unknown; querystring?: unknown; body?: unknown }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The advertiser a request acts for, once authenticated (API key or portal session): the completion log line's account_id. */
    accountId: string | null
  }
  interface FastifyInstance {
    /** Every route with its request schemas, in registration order (the fuzz test drives /admin and /serve from it). */
    routeCatalogue: readonly RouteEntry[]
  }
}

/**
 * TRUST_PROXY hops (operations.md section 1): the socket and the n-1 entries
 * nearest it in X-Forwarded-For are our proxies, so the client is the n-th
 * entry from the right; whatever a client wrote further left is ignored.
 * That entry is made canonical, or replaced by the socket's address, by
 * plugins/client-address.ts (`request.clientAddress`).
 * (Fastify 5 refuses a bare number, so the hop rule is given as proxy-addr's
 * trust function: hop 0 is the socket.)
 */
export function trustHops(hops: number): false | ((address: string, hop: number) => boolean) {
  return hops === 0 ? false : (_address, hop) => hop < hops
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

/** An incoming X-Request-Id is kept when it is this safe (no spaces, quotes or control characters: it goes into logs and a header). */
export const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** The caller's X-Request-Id when it is safe, else a fresh UUID. */
export function requestId(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID()
}

type CompletionLevel = 'debug' | 'info' | 'warn' | 'error'

/**
 * The level of a request's completion line: a server error is an error;
 * the serving hot path (/serve/v1/*) logs a success at debug (off by
 * default) and a client error at warn; everything else at info.
 */
export function completionLevel(status: number, hotPath: boolean): CompletionLevel {
  if (status >= 500) return 'error'
  if (hotPath) return status >= 400 ? 'warn' : 'debug'
  return 'info'
}

export async function buildApp(deps: RouteDeps, options: { logger: FastifyBaseLogger }): Promise<App> {
  const app = Fastify({
    loggerInstance: options.logger,
    // An incoming X-Request-Id is honoured when safe (it ties our lines to a proxy's or a client's); else a UUID.
    genReqId: (req) => requestId(req.headers['x-request-id']),
    requestIdHeader: false,
    // One completion line per request instead of Fastify's two (see the onResponse hook below).
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: trustHops(deps.settings.trustProxy),
    bodyLimit: BODY_LIMIT_BYTES,
    // Impression ids are sealed offers of about 200 characters.
    routerOptions: { maxParamLength: 1024 },
    // Serializers compiled once per process and schema (compiled-schemas.ts).
    schemaController: { compilersFactory: { buildSerializer } },
    // Fastify's own answers to these have no `detail`; plugins/errors.ts gives them the envelope.
    return503OnClosing: false,
    frameworkErrors,
    clientErrorHandler,
    // Slow or idle clients (docs/operations.md, "Timeouts and limits").
    requestTimeout: TIMEOUTS.http.requestMs,
    keepAliveTimeout: TIMEOUTS.http.keepAliveMs,
    connectionTimeout: TIMEOUTS.http.socketIdleMs,
    http: {
      requestTimeout: TIMEOUTS.http.requestMs,
      headersTimeout: TIMEOUTS.http.headersMs,
      connectionsCheckingInterval: TIMEOUTS.http.checkIntervalMs,
    },
  }).withTypeProvider<TypeBoxTypeProvider>()
  app.server.maxConnections = TIMEOUTS.http.maxConnections

  // First of all hooks: every limit, lockout and bound after it reads request.clientAddress.
  registerClientAddress(app, deps.metrics)
  const ajv = routeValidators
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? ajv.body : ajv.params).compile(schema))
  app.addSchema(ErrorBody)
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id)
    // No response is ever sniffed into another type (JSON as HTML, a CSV as script).
    reply.header('x-content-type-options', 'nosniff')
    // Draining (SIGTERM): still served, but clients reconnect, to another instance (docs/operations.md, "Shutdown").
    if (deps.lifecycle.draining) reply.header('connection', 'close')
  })
  app.decorateRequest('accountId', null)
  // Each answered request: its duration in the histogram and its one completion line.
  const hotPathDebug = ['debug', 'trace'].includes(options.logger.level)
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE
    const status = reply.statusCode
    const durationMs = reply.elapsedTime
    deps.metrics.request(request.method, route, status, durationMs / 1000)
    const level = completionLevel(status, route.startsWith('/serve/v1/'))
    if (level === 'debug' && !hotPathDebug) return
    request.log[level](
      { method: request.method, route, status, duration_ms: Math.round(durationMs * 100) / 100, account_id: request.accountId ?? undefined },
      'request completed',
    )
  })
  registerErrorHandling(app)
  // A browser's page request for an unknown path reaches the HTML 404 page (routes/public/not-found.ts); API clients never do.
  app.addConstraintStrategy(BROWSER_PAGE_CONSTRAINT)
  registerDeadline(app, TIMEOUTS.http.deadlineMs)
  registerInputGuard(app)
  const routeCatalogue: RouteEntry[] = []
  app.decorate('routeCatalogue', routeCatalogue)
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routeCatalogue.push({ method, url: route.url, schema: route.schema ?? {} })
  })

  await app.register(swagger, openApiOptions(deps.settings.publicUrl))

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }))
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    // Shutting down comes first: the load balancer stops sending here while requests are still served.
    if (deps.lifecycle.draining) {
      return reply.code(503).header('retry-after', String(TIMEOUTS.http.retryAfterS)).send({ detail: 'shutting down', status: 'draining' })
    }
    const { ready, checks } = await readiness(deps)
    if (ready) return { status: 'ready', checks }
    return reply
      .code(503)
      .header('retry-after', String(TIMEOUTS.http.retryAfterS))
      .send({ detail: notReadyDetail(checks), checks })
  })

  // Prometheus scrape (docs/metrics-and-logs.md): behind the operator token, absent (404) without ADMIN_TOKEN.
  const adminToken = deps.settings.adminToken
  if (adminToken !== null) {
    await app.register(async (scrape) => {
      scrape.addHook('onRequest', adminAuth(deps, adminToken))
      scrape.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
        const { contentType, body } = await deps.metrics.scrape()
        return reply.header('content-type', contentType).header('cache-control', 'no-store').send(body)
      })
    })
  }

  let openapi: unknown
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => (openapi ??= app.swagger()))

  await app.register(
    async (v1) => {
      documentCommonErrors(v1)
      await v1.register(statusRoutes(deps))
      await v1.register(async (authed) => {
        authed.addHook('onRequest', authenticate(deps))
        authed.addHook('onSend', refundOn503(deps))
        // An authenticated answer is one account's data: no cache keeps it (a route may say more, e.g. `private, no-store`).
        authed.addHook('onSend', async (_request, reply) => {
          if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store')
        })
        for (const routes of [accountRoutes, campaignRoutes, creativeRoutes, previewRoutes, exportRoutes, statsRoutes, auctionRoutes, webhookRoutes, ledgerRoutes]) {
          await authed.register(routes(deps))
        }
      })
    },
    { prefix: '/v1' },
  )

  // The operator API describes itself in a document of its own, /admin/v1/openapi.json, behind its token.
  if (deps.settings.adminToken !== null) await app.register(adminRoutes(deps, deps.settings.adminToken), { prefix: '/admin/v1' })
  await app.register(pageRoutes(deps))
  // The HTML pages with sessions and forms: the portal (and, beside it, the public pages and the console).
  await app.register(async (web) => {
    web.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true }
    })
    await registerWebPages(web, deps)
    await web.register(portalRoutes(deps))
    await web.register(publicRoutes(deps))
    // The operator console exists only with ADMIN_TOKEN, like the operator API.
    if (deps.settings.adminToken !== null) await web.register(opsRoutes(deps))
  })
  await app.register(
    async (serve) => {
      serve.addHook('onRoute', (route) => {
        route.schema = { ...route.schema, hide: true }
      })
      serve.addHook('onSend', refundOn503(deps))
      await serve.register(servingRoutes(deps))
      await serve.register(tokenRoutes(deps))
    },
    { prefix: '/serve/v1' },
  )
  // Privacy Pass: the issuer directory at its well-known path, and with ATTESTER=dev the development attester.
  await app.register(async (pp) => {
    pp.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true }
    })
    await pp.register(issuerDirectoryRoutes(deps))
    await pp.register(devAttesterRoutes(deps))
  })

  void OPENAPI_VERSION
  return app
}
