import type { App, RouteDeps } from '../../types.ts'
import { StatusSchema } from '../../schemas/status.ts'
import { errors } from '../../schemas/common.ts'
import { readComponentStatus } from '../../../services/status.ts'
import { WRITE_REQUIREMENTS } from '../../../domain/access.ts'
import { limitByAddress } from '../../plugins/auth.ts'

export const STATUS_RATE_PER_MIN = 120

export function statusRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.get(
      '/status',
      {
        onRequest: limitByAddress(deps, STATUS_RATE_PER_MIN),
        schema: {
          summary: 'Public component status',
          description: `No authentication. System-wide states; limited to ${STATUS_RATE_PER_MIN} requests per minute per address.`,
          tags: ['status'],
          security: [],
          response: { 200: StatusSchema, ...errors(429) },
        },
      },
      async () => ({
        components: await readComponentStatus(deps),
        write_requirements: [...WRITE_REQUIREMENTS],
      }),
    )
  }
}
