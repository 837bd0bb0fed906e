import type { App, RouteDeps } from '../../types.ts'
import { StatusPage } from '../../pages/public/status.tsx'
import { limitByAddress } from '../../plugins/auth.ts'
import { STATUS_RATE_PER_MIN } from '../v1/status.ts'
import { readComponentStatus } from '../../../services/status.ts'
import { WRITE_REQUIREMENTS } from '../../../domain/access.ts'

/**
 * `/status`: the states of GET /v1/status (the same use case), for people.
 * Never cached (it reloads itself every 30 seconds); it spends the same
 * per-address budget as GET /v1/status.
 */
export function statusPageRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.get('/status', { onRequest: limitByAddress(deps, STATUS_RATE_PER_MIN) }, async (_request, reply) => {
      const components = await readComponentStatus(deps)
      return reply.page(StatusPage({ components, writeRequirements: WRITE_REQUIREMENTS, generatedAt: deps.clock.now() }))
    })
  }
}
