import { Type } from 'typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { App, RouteDeps } from '../types.ts'
import { RATE_WINDOW_MS, windowStart, windowState } from '../../domain/rate-limits.ts'
import { sourceOf } from '../../domain/traffic-source.ts'
import { issuerDirectory, issueToken, type AttestationParts } from '../../services/attestation.ts'
import { TOKEN_REQUEST_BYTES } from '../../platform/privacy-pass.ts'

/**
 * Privacy Pass issuance (operations.md section 2, "Attested views"; docs/attestation.md): the issuer
 * directory at the origin's root, the token requests beside the serving endpoints, and with ATTESTER=dev
 * the development attester. Binary bodies in, binary bodies out, `{detail}` on every refusal.
 */
type Deps = RouteDeps & { attestation: AttestationParts }

const REQUEST_TYPE = 'application/private-token-request'
const RESPONSE_TYPE = 'application/private-token-response'
/** Development JWTs per client address per minute. */
const DEV_ATTEST_PER_MIN = 30

const refuse = (reply: FastifyReply, status: number, detail: string, retryAfterS?: number) => {
  if (retryAfterS !== undefined) reply.header('retry-after', String(Math.max(1, Math.ceil(retryAfterS))))
  return reply.code(status).type('application/json; charset=utf-8').send({ detail })
}

/** Takes one unit of `key`'s minute; over `perMinute`: the seconds until the window resets, else null. */
async function overLimit(deps: Deps, key: string, perMinute: number): Promise<number | null> {
  const nowMs = deps.clock.nowMs()
  const count = (await deps.counters.increment(key, windowStart(nowMs, RATE_WINDOW_MS), RATE_WINDOW_MS)).current
  return count > perMinute ? windowState(perMinute, count, nowMs).resetMs / 1000 : null
}

const bearerOf = (request: FastifyRequest): string | null => {
  const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')
  return m ? m[1]! : null
}

/** `GET /.well-known/private-token-issuer-directory` (RFC 9578 section 4). */
export function issuerDirectoryRoutes(deps: Deps) {
  return async (app: App) => {
    app.get('/.well-known/private-token-issuer-directory', async (_request, reply) =>
      reply
        .header('cache-control', 'public, max-age=3600')
        .type('application/private-token-issuer-directory')
        .send(JSON.stringify(await issuerDirectory(deps, deps.attestation))),
    )
  }
}

/** `POST /serve/v1/token-requests` (registered under /serve/v1). */
export function tokenRoutes(deps: Deps) {
  return async (app: App) => {
    app.addContentTypeParser(REQUEST_TYPE, { parseAs: 'buffer', bodyLimit: TOKEN_REQUEST_BYTES * 2 }, (_request, body, done) => done(null, body))
    app.post('/token-requests', async (request, reply) => {
      // Per client address, like views and clicks: a flood of bad JWTs costs their senders, not the subjects.
      const { eventsPerAddress } = await deps.servingLimits.current((err) => request.log.warn({ err }, 'serving limits reload failed; keeping the values held'))
      const wait = await overLimit(deps, `serve-tokens:${sourceOf(request.clientAddress)}`, eventsPerAddress)
      if (wait !== null) return refuse(reply, 429, 'too many requests', wait)
      if (request.headers['content-type']?.split(';')[0]?.trim().toLowerCase() !== REQUEST_TYPE || !Buffer.isBuffer(request.body)) {
        return refuse(reply, 415, `send one TokenRequest as ${REQUEST_TYPE}`)
      }
      const outcome = await issueToken(deps, deps.attestation, bearerOf(request), request.body)
      if (!outcome.ok) return refuse(reply, outcome.status, outcome.detail, outcome.retryAfterS)
      return reply.header('cache-control', 'no-store').type(RESPONSE_TYPE).send(outcome.response)
    })
  }
}

/** ATTESTER=dev: `POST /dev/attest` `{subject}` → `{jwt}`, per client address limited, and its JWKS at `GET /dev/jwks.json`. */
export function devAttesterRoutes(deps: Deps) {
  return async (app: App) => {
    const attester = deps.attestation.attester
    const jwks = attester?.devJwks
    if (!attester || !jwks) return
    app.get('/dev/jwks.json', async () => jwks)
    app.post(
      '/dev/attest',
      { schema: { hide: true, body: Type.Object({ subject: Type.String({ minLength: 1, maxLength: 256 }) }, { additionalProperties: false }) } },
      async (request, reply) => {
        const wait = await overLimit(deps, `dev-attest:${sourceOf(request.clientAddress)}`, DEV_ATTEST_PER_MIN)
        if (wait !== null) return refuse(reply, 429, 'too many requests', wait)
        return { jwt: await attester.devAttest(request.body.subject, deps.clock.now()) }
      },
    )
  }
}

