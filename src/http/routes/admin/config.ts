import type { App, RouteDeps } from '../../types.ts'
import { ConfigPatchSchema, ConfigSchema } from '../../schemas/admin/config.ts'
import { asOperator } from '../../operator-context.ts'
import { readServiceConfig } from '../../../services/operator-settings.ts'
import { updateServiceConfig } from '../../../services/operator-actions.ts'

const tags = ['config']

/** The live service config: the order gates advertisers read in GET /v1/account, plus operator-only settings. */
export function adminConfigRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.get('/config', { schema: { summary: 'The whole config', tags, response: { 200: ConfigSchema } } }, async () =>
      readServiceConfig(deps),
    )

    app.patch(
      '/config',
      {
        schema: {
          summary: 'Change any subset of the config',
          description: 'Takes effect on the next request; answers the whole config.',
          tags,
          body: ConfigPatchSchema,
          response: { 200: ConfigSchema },
        },
      },
      async (request) => {
        const config = await updateServiceConfig(asOperator(deps, request), request.body)
        deps.servingLimits.apply(config)
        return config
      },
    )
  }
}
