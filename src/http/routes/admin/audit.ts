import type { App, RouteDeps } from '../../types.ts'
import { AuditListSchema, AuditQuery } from '../../schemas/admin/audit.ts'
import { presentAuditEntry } from '../../presenters.ts'
import { readAuditLog } from '../../../services/audit.ts'

/** The audit log of operator actions (console and token API alike). */
export function adminAuditRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.get(
      '/audit',
      {
        schema: {
          summary: 'The audit log',
          description:
            'Every operator action through the console or this API: who (an operator, or `token`), what, to which target, when, the ' +
            'target before and after (never a secret), and the source address. Newest first, filtered by `action` and `target_id`, one ' +
            'page at a time (`limit`, `cursor`).',
          tags: ['audit'],
          querystring: AuditQuery,
          response: { 200: AuditListSchema },
        },
      },
      async (request) => {
        const { action, target_id, limit, cursor } = request.query
        const page = await readAuditLog(deps, { action, targetId: target_id }, { limit, cursor })
        return { entries: page.items.map(presentAuditEntry), next_cursor: page.nextCursor }
      },
    )
  }
}
