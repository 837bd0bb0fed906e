import type { SwaggerOptions } from '@fastify/swagger'

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
the same 404. Malformed JSON and wrong types are 400.

**Money.** Bids are USD with at most six decimals (a micro-USD per thousand impressions). The n-th billable impression
of a campaign debits floor(n × cpm_micros / 1000) − floor((n − 1) × cpm_micros / 1000) micro-USD, so each block of 1,000
bills exactly the CPM. Delivered value is kept in micro-USD; cents are derived by rounding half up, once per amount
(order total or invoice line).

**Lists.** \`GET /campaigns\` and \`GET /exports\` answer one page, newest first, with \`next_cursor\`: send it back
unchanged as \`cursor\` for the next page, until it is null. \`limit\` is 1-200 (default 50). Cursors are opaque;
a malformed one, or one from the other list, is 400 with \`detail.field\` \`cursor\`.

**Time.** Every timestamp is UTC from the service clock.
`.trim()

export function openApiOptions(publicUrl: string): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Advertiser Campaign API', version: OPENAPI_VERSION, description: DESCRIPTION },
      servers: [{ url: `${publicUrl}/v1` }],
      components: {
        securitySchemes: {
          userId: { type: 'apiKey', in: 'header', name: 'X-Service-User-Id' },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-Service-Api-Key' },
        },
      },
      security: [{ userId: [], apiKey: [] }],
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  }
}
