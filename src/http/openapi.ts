import type { FastifyDynamicSwaggerOptions, SwaggerOptions } from '@fastify/swagger'
import type { App } from './types.ts'
import { edgeReasonsTable } from './error-reasons.ts'
import { errors } from './schemas/common.ts'
import { withExamples } from './openapi-examples.ts'

export const OPENAPI_VERSION = '1.7.0'

const DESCRIPTION = `
Programmatic campaigns for the one-line "thinking" ads shown in developers' AI coding tools.

**Authentication.** Every endpoint except \`GET /status\` needs both \`X-Service-User-Id\` and \`X-Service-Api-Key\`.
Any credential problem is the same 401 \`{"detail":"invalid credentials"}\`. Ten failed attempts from one address
within 15 minutes lock that address out of authenticated endpoints for 15 minutes (429 with \`Retry-After\`).

**Rate limits.** Per account, across its keys, in fixed one-minute windows: \`POST /campaigns\` counts against
\`config.create_rate_limit_per_min\`; every other authenticated call against \`config.read_rate_limit_per_min\`.
Only a create that makes a campaign counts: an idempotent replay and a create refused with 400, 402, 403, 409 or 503
spend nothing, and a replay of a create that succeeded is never 429. Responses carry IETF \`RateLimit-Policy\` and
\`RateLimit\` headers; 429 carries \`Retry-After\`.

**Errors.** Every non-2xx body is \`{"detail": string | {"field", "reason", ...}}\`. Unknown and other accounts' ids are
the same 404. Wrong types are 400 naming the field, with reasons such as \`required\`, \`invalid_type\`,
\`invalid_format\`, \`invalid_value\`, \`too_short\`, \`too_long\`, \`below_minimum\`, \`above_maximum\`,
\`not_a_multiple\`, \`too_many_items\`, \`unknown_field\` (a body field the operation does not define), \`empty_body\`, and
each operation's own. 5xx details are strings (see \`POST /campaigns\` for the 503 cases).

Text is checked once, for every field of path, query and body: no control characters, no lone surrogates, not only
whitespace or zero-width characters; numbers are finite. Timestamps (\`date-time\`) are RFC 3339 with seconds 00-59
(a leap second \`23:59:60\` is refused) and years 0001-9999: anything else is 400 \`invalid_format\`. A query
parameter an operation does not define is refused, never ignored. The HTTP layer itself answers with these reasons:

${edgeReasonsTable()}

**Money.** Bids are USD with at most six decimals (a micro-USD per thousand impressions). The n-th billable impression
of a campaign debits floor(n × cpm_micros / 1000) − floor((n − 1) × cpm_micros / 1000) micro-USD, so each block of 1,000
bills exactly the CPM. Delivered value is kept in micro-USD; cents are derived by rounding half up, once per amount
(order total or invoice line).

**Lists.** \`GET /campaigns\` and \`GET /exports\` answer one page, newest first, with \`next_cursor\`: send it back
unchanged as \`cursor\` for the next page, until it is null. \`limit\` is 1-200 (default 50). Cursors are opaque;
a malformed one, or one from the other list, is 400 with \`detail.field\` \`cursor\`.

**Webhooks.** Polling stays the contract. As an addition, \`/webhook-endpoints\` registers endpoints that are sent
\`campaign.exhausted\`, \`campaign.moderation_decided\`, \`invoice.finalized\`, \`invoice.payment_failed\` and
\`export.ready\` as they happen: a POST of \`{"type", "timestamp", "data"}\` with the Standard Webhooks headers
\`webhook-id\` (the same on every retry), \`webhook-timestamp\` and \`webhook-signature\` (\`v1,\` + base64 HMAC-SHA256,
keyed by the decoded secret, of \`id.timestamp.body\`), at least once, retried with exponential backoff for 24 hours.

**Time.** Every timestamp is UTC from the service clock.
`.trim()

const refResolver: FastifyDynamicSwaggerOptions['refResolver'] = {
  buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
}

export function openApiOptions(publicUrl: string): SwaggerOptions {
  return {
    // This document describes /v1 only; the operator API has its own (adminOpenApiOptions).
    transform: ({ schema, url }) => ({ schema: url.startsWith('/v1/') ? schema : { ...schema, hide: true }, url }),
    // Request and response examples, error answers and response headers: one module (openapi-examples.ts), keyed by operation.
    transformObject: (document) => ('openapiObject' in document ? withExamples(document.openapiObject) : document.swaggerObject),
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Advertiser Campaign API', version: OPENAPI_VERSION, description: DESCRIPTION },
      servers: [{ url: `${publicUrl}/v1` }],
      components: {
        securitySchemes: {
          userId: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Service-User-Id',
            description: 'The account\'s user id (`usr_…`), exactly as the portal shows it beside the key. Sent with `X-Service-Api-Key` on every call except `GET /status`.',
          },
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Service-Api-Key',
            description:
              'The secret key (`sk_live_…`): revealed or rotated only by the signed-in owner in the portal; a rotation stops the old key at once. ' +
              'Any credential problem is the same 401 `invalid credentials`. Never put it in source control or client-side code.',
          },
        },
      },
      security: [{ userId: [], apiKey: [] }],
    },
    refResolver,
  }
}

export const ADMIN_OPENAPI_VERSION = '1.0.0'

/** The decorator of the operator API's own swagger instance (registered in its encapsulated context). */
export const ADMIN_OPENAPI_DECORATOR = 'adminOpenApi'

const ADMIN_DESCRIPTION = `
The operator API (operations.md section 3), served only when \`ADMIN_TOKEN\` is set (otherwise every \`/admin\` path is 404).

**Authentication.** Every call, this document included, carries \`Authorization: Bearer <ADMIN_TOKEN>\`; anything else is
401 \`{"detail":"invalid operator token"}\`. Ten wrong tokens from one client address within 15 minutes lock that address
out for 15 minutes: 429 with \`Retry-After\`, the token not compared (\`POST /unlock\` from another address lifts it).

**Errors.** As in the advertiser API: every non-2xx body is \`{"detail": string | {"field", "reason", ...}}\`, with the same
validation reasons and the same edge answers (unknown query parameter, bad text, malformed JSON, 413, 414, 415).

**Time.** Every timestamp is UTC from the service clock; under \`CLOCK=manual\`, \`POST /clock\` moves it.

**Audit.** Every call that changes something writes one entry in the audit log (\`GET /audit\`) with the token as the
actor, the target before and after (never a secret) and the caller's address; the operator console's actions are
recorded there too, under the operator's id. A refused call changes nothing and records nothing.
`.trim()

export function adminOpenApiOptions(publicUrl: string): SwaggerOptions {
  return {
    decorator: ADMIN_OPENAPI_DECORATOR,
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Advertiser Campaign API: operator API', version: ADMIN_OPENAPI_VERSION, description: ADMIN_DESCRIPTION },
      servers: [{ url: `${publicUrl}/admin/v1` }],
      components: { securitySchemes: { operatorToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' } } },
      security: [{ operatorToken: [] }],
    },
    refResolver,
  }
}

/**
 * Documents once, for every route of `app`'s context, the answers any of them can give: the edge's (400: an unknown
 * query parameter, bad text, malformed JSON; 413/415 for any method that carries a body, declared or not; 414 with a
 * path parameter), store trouble (500, 503) and the context's own `statuses` (the operator token's 401). A route's
 * own declaration of a status wins.
 */
export function documentCommonErrors(app: App, ...statuses: number[]): void {
  app.addHook('onRoute', (route) => {
    const schema = (route.schema ??= {})
    const carriesBody = [route.method].flat().some((m) => !['GET', 'HEAD'].includes(m))
    const common = [400, ...statuses, 500, 503, ...(carriesBody ? [413, 415] : []), ...(schema.params ? [414] : [])]
    const declared = typeof schema.response === 'object' && schema.response !== null ? schema.response : {}
    schema.response = { ...errors(...common), ...declared }
  })
}
