import type { App, RouteDeps } from '../../types.ts'
import { errors } from '../../schemas/common.ts'
import { OutboxListSchema, OutboxQuerySchema } from '../../schemas/admin/outbox.ts'
import { presentOutboxMessage } from '../../presenters.ts'
import { listOutbox } from '../../../services/email.ts'

const tags = ['outbox']

/** The outbox: every email the service sent, by recipient (operations.md section 5). */
export function adminOutboxRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.get(
      '/outbox',
      {
        schema: {
          summary: "A recipient's email",
          description:
            'Every message sent to `to`, newest first, whether or not SMTP is configured. Bodies are sealed in the store and opened here; ' +
            'a password link (reset, set-password) is shown only while it works: once used, replaced by a newer one, ended by a password ' +
            'change or expired, a notice such as `[link removed: it was used]` stands in its place.',
          tags,
          querystring: OutboxQuerySchema,
          response: { 200: OutboxListSchema, ...errors(400) },
        },
      },
      async (request) => ({ messages: (await listOutbox(deps, request.query.to)).map(presentOutboxMessage) }),
    )
  }
}
