import { Type } from 'typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { App, RouteDeps } from '../types.ts'
import type { ServingEngine } from '../../serving/engine.ts'
import { RATE_WINDOW_MS, windowStart, windowState } from '../../domain/rate-limits.ts'
import { sourceOf } from '../../domain/traffic-source.ts'
import type { ServingRules } from '../../services/serving-limits.ts'
import { normaliseDecisionTopics, TOPICS } from '../../domain/topics.ts'
import { DecisionBody, DecisionSchema, ImpressionParams, TopicsSchema, ViewBody } from '../schemas/serving.ts'
import { noteSpentUnit } from '../plugins/refunds.ts'
import { sendCacheable } from './public/cache.ts'
import type { AttestationMode } from '../../domain/attestation.ts'
import { tokenOfAuthorization } from '../../platform/privacy-pass.ts'
import type { PresentedView } from '../../serving/engine.ts'

/** The vocabulary changes only with a release: clients and shared caches may keep it for an hour. */
const TOPICS_CACHE_CONTROL = 'public, max-age=3600'
/** The vocabulary's body, built once (the list is data in the build). */
const TOPICS_BODY = JSON.stringify({ topics: TOPICS.map(({ topic, label, group }) => ({ topic, label, group })) })

/**
 * The public serving endpoints (operations.md section 2), called by the
 * editor extension and the terminal status line. They never reveal account data.
 */
export function servingRoutes(deps: RouteDeps & { serving: ServingEngine }) {
  const { serving } = deps

  /**
   * Takes one unit of `key`'s minute (given back if the request ends 503,
   * plugins/refunds.ts). Over `perMinute`: the seconds until the window
   * resets (the 429's Retry-After), else null.
   */
  async function overLimit(request: FastifyRequest, key: string, perMinute: number): Promise<number | null> {
    const nowMs = deps.clock.nowMs()
    const start = windowStart(nowMs, RATE_WINDOW_MS)
    let count = 0
    try {
      count = (await deps.counters.increment(key, start, RATE_WINDOW_MS)).current
      noteSpentUnit(request, key, start, RATE_WINDOW_MS)
    } catch (err) {
      request.log.warn({ err }, 'serving limit store unavailable; failing open')
    }
    return count > perMinute ? windowState(perMinute, count, nowMs).resetMs / 1000 : null
  }

  /**
   * The view's Privacy Pass token as the billing rules see it (RFC 9577 `Authorization: PrivateToken token=…`):
   * checked against the issuer's keys held in memory; with attestation `off`, not even read.
   */
  async function presentedToken(mode: AttestationMode, authorization: string | undefined): Promise<PresentedView> {
    if (mode === 'off') return { mode, token: { kind: 'none' }, bytes: null }
    const bytes = tokenOfAuthorization(authorization)
    if (bytes === null) return { mode, token: { kind: 'none' }, bytes: null }
    if (bytes === 'malformed') return { mode, token: { kind: 'invalid' }, bytes: null }
    return { mode, token: await deps.attestation.keys.check(bytes), bytes }
  }

  /** The operator's abuse limits, invalid-traffic bounds and block list, held in memory (services/serving-limits.ts). */
  const limits = (request: FastifyRequest): Promise<ServingRules> =>
    deps.servingLimits.current((err) => request.log.warn({ err }, 'serving limits reload failed; keeping the values held'))

  return async (app: App) => {
    /**
     * The serving endpoints' refusals (429 under abuse, 404, 410) are answered
     * here, the same `{detail}` envelope as plugins/errors.ts, without building
     * an Error (its stack trace cost 3-5 µs) or a pass through the error handler.
     */
    const refuse = (reply: FastifyReply, status: number, detail: string, headers: Record<string, string> = {}) =>
      reply.code(status).headers(headers).send({ detail })
    const tooMany = (reply: FastifyReply, retryAfterS: number) =>
      refuse(reply, 429, 'too many requests', { 'retry-after': String(Math.max(1, Math.ceil(retryAfterS))) })

    app.post('/decisions', { schema: { body: DecisionBody, response: { 200: DecisionSchema, 204: Type.Null({ description: 'Nothing is eligible: no body.' }) } } }, async (request, reply) => {
      const { surface, viewer_id, country, topics } = request.body
      const { decisionsPerAddress, decisionsPerViewer, attestation } = await limits(request)
      // Per source (an IPv4 address or IPv6 /64), like the invalid-traffic bounds the offer carries it to.
      const source = sourceOf(request.clientAddress)
      const addressWait = await overLimit(request, `serve-addr:${source}`, decisionsPerAddress)
      if (addressWait !== null) return tooMany(reply, addressWait)
      const viewerKey = serving.viewerKey(viewer_id)
      const viewerWait = await overLimit(request, `serve-viewer:${viewerKey}`, decisionsPerViewer)
      if (viewerWait !== null) return tooMany(reply, viewerWait)
      // Unknown names are dropped, never refused: old clients and new topics coexist (domain/topics.ts).
      const decision = await serving.decide({ surface, country: country ?? null, topics: normaliseDecisionTopics(topics), viewerKey, source })
      if (!decision) return reply.code(204).send(null)
      // The deployment's Privacy Pass challenge and issuing key (RFC 9577), so clients can fetch tokens ahead of time; the decision itself carries none.
      const challenge = attestation === 'off' ? null : deps.attestation.keys.challengeHeader()
      if (challenge !== null) reply.header('www-authenticate', challenge)
      const base = `${deps.settings.publicUrl}/serve/v1/impressions/${decision.impressionId}`
      return {
        impression_id: decision.impressionId,
        ad_line: decision.winner.adLine,
        brand: decision.winner.brand,
        icon_url: decision.winner.iconUrl,
        view_url: `${base}/view`,
        click_url: `${base}/click`,
      }
    })

    /** The published topic vocabulary (operations.md section 2, "Topics"): static, with an ETag and 304. */
    app.get('/topics', { schema: { response: { 200: TopicsSchema } } }, async (request, reply) =>
      sendCacheable(request, reply, 'application/json; charset=utf-8', TOPICS_BODY, TOPICS_CACHE_CONTROL),
    )

    app.post(
      '/impressions/:impression_id/view',
      { schema: { params: ImpressionParams, body: ViewBody } },
      async (request, reply) => {
        const rules = await limits(request)
        const source = sourceOf(request.clientAddress)
        const wait = await overLimit(request, `serve-events:${source}`, rules.eventsPerAddress)
        if (wait !== null) return tooMany(reply, wait)
        const presented = await presentedToken(rules.attestation, request.headers.authorization)
        const result = await serving.view(request.params.impression_id, request.body.dwell_ms, { source, rules }, presented)
        if (result.status === 'unknown') return refuse(reply, 404, 'impression not found')
        if (result.status === 'expired') return refuse(reply, 410, 'the offer is older than one hour')
        return reply.code(204).send(null)
      },
    )

    app.get('/impressions/:impression_id/click', { schema: { params: ImpressionParams } }, async (request, reply) => {
      const rules = await limits(request)
      const source = sourceOf(request.clientAddress)
      const wait = await overLimit(request, `serve-events:${source}`, rules.eventsPerAddress)
      if (wait !== null) return tooMany(reply, wait)
      const click = await serving.click(request.params.impression_id, { source, rules })
      if (!click) return refuse(reply, 404, 'impression not found')
      return reply.header('cache-control', 'no-store').redirect(click.destination, 302)
    })
  }
}
