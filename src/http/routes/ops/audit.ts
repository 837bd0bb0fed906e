import { Type } from 'typebox'
import type { App, RouteDeps } from '../../types.ts'
import { AuditPage } from '../../pages/ops/audit.tsx'
import { presentAuditEntry } from '../../presenters.ts'
import { readAuditLog } from '../../../services/audit.ts'
import { AUDIT_ACTIONS, type AuditAction } from '../../../domain/audit.ts'
import { frameOf } from './session.ts'

const isAction = (a: string): a is AuditAction => AUDIT_ACTIONS.some((x) => x === a)

/** `/ops/audit`: the audit log (GET /admin/v1/audit), newest first, filtered by action and target id. */
export function opsAuditRoutes(deps: RouteDeps) {
  return async (app: App) => {
    const query = Type.Object({
      action: Type.Optional(Type.String({ maxLength: 60 })),
      target_id: Type.Optional(Type.String({ maxLength: 200 })),
      cursor: Type.Optional(Type.String({ maxLength: 512 })),
    })
    app.get('/ops/audit', { schema: { hide: true, querystring: query } }, async (request, reply) => {
      const action = request.query.action ?? ''
      const targetId = request.query.target_id?.trim() ?? ''
      const filter = { action: isAction(action) ? action : undefined, targetId: targetId === '' ? undefined : targetId }
      const page = await readAuditLog(deps, filter, { cursor: request.query.cursor })
      const params = { ...(filter.action ? { action: filter.action } : {}), ...(filter.targetId ? { target_id: filter.targetId } : {}) }
      const next = page.nextCursor === null ? null : `/ops/audit?${new URLSearchParams({ ...params, cursor: page.nextCursor }).toString()}`
      return reply.page(AuditPage({ frame: frameOf(deps, request, reply), action: filter.action ?? '', targetId, entries: page.items.map(presentAuditEntry), next }))
    })
  }
}
