import { Type } from 'typebox'
import type { FastifyRequest } from 'fastify'
import type { App, RouteDeps } from '../types.ts'
import type { ServingEngine } from '../../serving/engine.ts'
import { ApiError, tooManyRequests } from '../../domain/errors.ts'
import { RATE_WINDOW_MS, windowStart, windowState, type ServingLimits } from '../../domain/rate-limits.ts'
import { SURFACES } from '../../domain/auction.ts'
import { StringEnum } from '../schemas/common.ts'
import { noteSpentUnit } from '../plugins/refunds.ts'

const DecisionBody = Type.Object(
  {
    surface: StringEnum(SURFACES),
    viewer_id: Type.String({ minLength: 1, maxLength: 128 }),
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
  },
  { additionalProperties: false },
)
const DecisionSchema = Type.Object({
  impression_id: Type.String(),
  ad_line: Type.String(),
  brand: Type.Union([Type.String(), Type.Null()]),
  icon_url: Type.Union([Type.String(), Type.Null()]),
  view_url: Type.String(),
  click_url: Type.String(),
})
const ViewBody = Type.Object({ dwell_ms: Type.Integer({ minimum: 0, maximum: 86_400_000 }) }, { additionalProperties: false })
const ImpressionParams = Type.Object({ impression_id: Type.String({ minLength: 1 }) })

/**
 * The public serving endpoints (operations.md section 2), called by the
 * editor extension and the terminal status line. They never reveal account data.
 */
export function servingRoutes(deps: RouteDeps & { serving: ServingEngine }) {
  const { serving } = deps

  /** Takes one unit of `key`'s minute (given back if the request ends 503, plugins/refunds.ts); 429 over `perMinute`. */
  async function limit(request: FastifyRequest, key: string, perMinute: number): Promise<void> {
    const nowMs = deps.clock.nowMs()
    const start = windowStart(nowMs, RATE_WINDOW_MS)
    let count = 0
    try {
      count = (await deps.counters.increment(key, start, RATE_WINDOW_MS)).current
      noteSpentUnit(request, key, start, RATE_WINDOW_MS)
    } catch (err) {
      request.log.warn({ err }, 'serving limit store unavailable; failing open')
    }
    if (count > perMinute) throw tooManyRequests(windowState(perMinute, count, nowMs).resetMs / 1000, 'too many requests')
  }

  /** The operator's abuse limits (config `serve_*_per_min`), held in memory (services/serving-limits.ts). */
  const limits = (request: FastifyRequest): Promise<ServingLimits> =>
    deps.servingLimits.current((err) => request.log.warn({ err }, 'serving limits reload failed; keeping the values held'))

  return async (app: App) => {
    app.post('/decisions', { schema: { body: DecisionBody, response: { 200: DecisionSchema, 204: Type.Null({ description: 'Nothing is eligible: no body.' }) } } }, async (request, reply) => {
      const { surface, viewer_id, country } = request.body
      const { decisionsPerAddress, decisionsPerViewer } = await limits(request)
      await limit(request, `serve-addr:${request.ip}`, decisionsPerAddress)
      const viewerKey = serving.viewerKey(viewer_id)
      await limit(request, `serve-viewer:${viewerKey}`, decisionsPerViewer)
      const decision = await serving.decide({ surface, country: country ?? null, viewerKey })
      if (!decision) return reply.code(204).send(null)
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

    app.post(
      '/impressions/:impression_id/view',
      { schema: { params: ImpressionParams, body: ViewBody } },
      async (request, reply) => {
        await limit(request, `serve-events:${request.ip}`, (await limits(request)).eventsPerAddress)
        const result = await serving.view(request.params.impression_id, request.body.dwell_ms)
        if (result.status === 'unknown') throw new ApiError(404, 'impression not found')
        if (result.status === 'expired') throw new ApiError(410, 'the offer is older than one hour')
        return reply.code(204).send(null)
      },
    )

    app.get('/impressions/:impression_id/click', { schema: { params: ImpressionParams } }, async (request, reply) => {
      await limit(request, `serve-events:${request.ip}`, (await limits(request)).eventsPerAddress)
      const destination = await serving.click(request.params.impression_id)
      if (!destination) throw new ApiError(404, 'impression not found')
      return reply.header('cache-control', 'no-store').redirect(destination, 302)
    })
  }
}
