import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { App, RouteDeps } from '../../types.ts'
import { ModerationForm } from '../../schemas/pages/ops-forms.ts'
import { ModerationSchema } from '../../schemas/admin/moderation.ts'
import { ModerationPage } from '../../pages/ops/moderation.tsx'
import { asOperator } from '../../operator-context.ts'
import { presentQueuedCreative } from '../../presenters.ts'
import { readModerationQueue } from '../../../services/moderation.ts'
import { moderateCampaign } from '../../../services/operator-actions.ts'
import { attemptBody } from './forms.ts'
import { frameOf } from './session.ts'

const hide = { hide: true } as const

/** `/ops/moderation`: the queue (GET /admin/v1/moderation) and decisions (POST .../moderation), the same use cases. */
export function opsModerationRoutes(deps: RouteDeps) {
  return async (app: App) => {
    async function queuePage(request: FastifyRequest, reply: FastifyReply, cursor?: string, notice?: string, refused?: Parameters<typeof ModerationPage>[0]['refused'], status = 200) {
      const page = await readModerationQueue(deps, 'pending', { cursor })
      const next = page.nextCursor === null ? null : `/ops/moderation?cursor=${encodeURIComponent(page.nextCursor)}`
      return reply.page(ModerationPage({ frame: frameOf(deps, request, reply, notice), creatives: page.items.map(presentQueuedCreative), next, refused }), status)
    }

    const query = Type.Object({ cursor: Type.Optional(Type.String({ maxLength: 512 })), notice: Type.Optional(Type.String({ maxLength: 40 })) })
    app.get('/ops/moderation', { schema: { ...hide, querystring: query } }, async (request, reply) => queuePage(request, reply, request.query.cursor, request.query.notice))

    const params = Type.Object({ campaign_id: Type.String({ minLength: 1, maxLength: 64 }) })
    app.post('/ops/moderation/:campaign_id', { schema: { ...hide, params, body: ModerationForm } }, async (request, reply) => {
      const { campaign_id } = request.params
      const reason = request.body.reason ?? ''
      const body = { status: request.body.status, ...(reason.trim() === '' ? {} : { reason }) }
      const result = await attemptBody(ModerationSchema, body, (checked) => moderateCampaign({ ...asOperator(deps, request), log: request.log }, campaign_id, checked.status, checked.reason))
      if (result.ok) return reply.redirect('/ops/moderation?notice=moderated', 303)
      return queuePage(request, reply, undefined, undefined, { campaignId: campaign_id, errors: result.errors, reason }, result.status)
    })
  }
}
