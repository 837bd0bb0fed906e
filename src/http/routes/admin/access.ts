import type { App, RouteDeps } from '../../types.ts'
import { UnlockResultSchema, UnlockSchema } from '../../schemas/admin/access.ts'
import { asOperator } from '../../operator-context.ts'
import { unlockAddress } from '../../../services/operator-actions.ts'

/** Authentication lockouts (operations.md section 6): lifting one for a source address. */
export function adminAccessRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.post(
      '/unlock',
      {
        schema: {
          summary: "Lift an address's authentication lockout",
          description:
            'Lifts every lockout of the source address (API keys, portal sign-in, console sign-in and setup, operator token) and forgets its failed ' +
            'attempts. 400 `invalid_format` when `address` is not an IPv4 or IPv6 address.',
          tags: ['access'],
          body: UnlockSchema,
          response: { 200: UnlockResultSchema },
        },
      },
      async (request) => unlockAddress(asOperator(deps, request), request.body.address),
    )
  }
}
