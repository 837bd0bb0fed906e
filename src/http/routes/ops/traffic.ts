import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { App, RouteDeps } from '../../types.ts'
import { TrafficBlockForm, TrafficUnblockForm } from '../../schemas/pages/ops-forms.ts'
import { TrafficBlockCreateSchema } from '../../schemas/admin/traffic.ts'
import { TrafficPage } from '../../pages/ops/traffic.tsx'
import type { BlockShown } from '../../pages/ops/traffic-block-list.tsx'
import type { FieldErrors } from '../../pages/ops/messages.ts'
import { asOperator } from '../../operator-context.ts'
import { presentTrafficDay } from '../../presenters-traffic.ts'
import { addTrafficBlock, removeTrafficBlock } from '../../../services/operator-actions.ts'
import { listTrafficBlockEntries } from '../../../services/traffic-blocks.ts'
import { defaultTrafficDay, judgeTrafficDay } from '../../../services/traffic-quality.ts'
import { attempt, attemptBody } from './forms.ts'
import { frameOf } from './session.ts'

const hide = { hide: true } as const
const DayQuery = Type.Object({ day: Type.Optional(Type.String({ maxLength: 40 })), notice: Type.Optional(Type.String({ maxLength: 40 })) })
const BlockParams = Type.Object({ block_id: Type.String({ minLength: 1, maxLength: 64 }) })

/** Back to the day the form was posted from (only a day-shaped value goes into the address). */
const dayPage = (day: string | undefined, notice: string) =>
  `/ops/traffic?${new URLSearchParams({ ...(day && /^\d{4}-\d{2}-\d{2}$/.test(day) ? { day } : {}), notice }).toString()}`

/**
 * `/ops/traffic` (docs/invalid-traffic.md, "Operators: Traffic quality"): the same use cases as
 * GET /admin/v1/traffic and the block-list routes, audited the same way; a change to the block list
 * applies to this instance's serving path at once.
 */
export function opsTrafficRoutes(deps: RouteDeps) {
  return async (app: App) => {
    /** The page for `asked` (empty: yesterday); a refused day, or a refused form, comes back with its errors. */
    async function trafficPage(request: FastifyRequest, reply: FastifyReply, asked: string | undefined, opts: { notice?: string; errors?: FieldErrors; values?: Record<string, string>; status?: number } = {}) {
      const day = asked?.trim() || defaultTrafficDay(deps)
      const [judged, blocks] = await Promise.all([attempt(() => judgeTrafficDay(deps, day)), listTrafficBlockEntries(deps)])
      const errors = judged.ok ? opts.errors : { ...opts.errors, ...judged.errors }
      const shown: BlockShown[] = blocks.map((b) => ({
        block_id: b.block_id,
        kind: b.kind,
        value: b.value,
        note: b.note,
        created_at: b.created_at.toISOString(),
        by: b.created_by_email ?? (b.created_by === 'token' ? 'the operator token' : b.created_by),
      }))
      const page = TrafficPage({ frame: frameOf(deps, request, reply, opts.notice), day, traffic: judged.ok ? presentTrafficDay(judged.value) : null, blocks: shown, errors, values: opts.values })
      return reply.page(page, opts.status ?? (judged.ok ? 200 : judged.status))
    }

    app.get('/ops/traffic', { schema: { ...hide, querystring: DayQuery } }, async (request, reply) => trafficPage(request, reply, request.query.day, { notice: request.query.notice }))

    app.post('/ops/traffic/blocks', { schema: { ...hide, body: TrafficBlockForm } }, async (request, reply) => {
      const { kind, value, note = '', day } = request.body
      const body = { kind, value, ...(note.trim() === '' ? {} : { note }) }
      const result = await attemptBody(TrafficBlockCreateSchema, body, (checked) => addTrafficBlock(asOperator(deps, request), checked))
      if (!result.ok) return trafficPage(request, reply, day, { errors: result.errors, values: { kind, value, note }, status: result.status })
      await deps.servingLimits.reloadNow()
      return reply.redirect(dayPage(day, result.value.created ? 'blocked' : 'already_blocked'), 303)
    })

    app.post('/ops/traffic/blocks/:block_id/remove', { schema: { ...hide, params: BlockParams, body: TrafficUnblockForm } }, async (request, reply) => {
      const { day } = request.body
      const result = await attempt(() => removeTrafficBlock(asOperator(deps, request), request.params.block_id))
      if (!result.ok) return trafficPage(request, reply, day, { errors: result.errors, status: result.status })
      await deps.servingLimits.reloadNow()
      return reply.redirect(dayPage(day, 'unblocked'), 303)
    })
  }
}
