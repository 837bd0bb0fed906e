import type { App, RouteDeps } from '../../types.ts'
import { AccountSchema } from '../../schemas/account.ts'
import { errors } from '../../schemas/common.ts'
import { presentAccount } from '../../presenters.ts'
import { readBalanceFacts } from '../../../store/balance.ts'
import { overdueInvoices } from '../../../store/billing.ts'
import { readComponentStates, readConfig } from '../../../store/settings.ts'
import { readRolledThrough } from '../../../store/rollups.ts'
import { reportingState, rollupsBehind } from '../../../domain/stats.ts'

export function accountRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.get(
      '/account',
      {
        schema: {
          summary: 'Account, balance and live order config',
          description: 'Read `config` before creating a campaign instead of hard-coding limits.',
          tags: ['account'],
          response: { 200: AccountSchema, ...errors(401, 429) },
        },
      },
      async (request) => {
        const now = deps.clock.now()
        const [facts, overdue, config, components, rolledThrough] = await Promise.all([
          readBalanceFacts(deps.db, request.account.user_id),
          overdueInvoices(deps.db, request.account.user_id, now),
          readConfig(deps.db),
          readComponentStates(deps.db),
          readRolledThrough(deps.db),
        ])
        // Anything short of operational (rollups behind, degraded, disabled, unknown) is reported as degraded.
        const state = reportingState(components.get('reporting'), rollupsBehind(rolledThrough, deps.clock.nowMs()))
        const reporting = state === 'operational' ? 'operational' : 'degraded'
        return presentAccount(request.account, facts, config, reporting, now, overdue)
      },
    )
  }
}
