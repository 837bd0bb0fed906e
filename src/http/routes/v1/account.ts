import type { App, RouteDeps } from '../../types.ts'
import { AccountSchema } from '../../schemas/account.ts'
import { errors } from '../../schemas/common.ts'
import { presentAccount } from '../../presenters.ts'
import { readAccountOverview } from '../../../services/accounts.ts'

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
      async (request) => presentAccount(request.account, await readAccountOverview(deps, request.account.user_id)),
    )
  }
}
