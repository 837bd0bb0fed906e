import type { App, RouteDeps } from '../../types.ts'
import { ComponentParams, ComponentPutSchema, ComponentStateSchema } from '../../schemas/admin/components.ts'
import { setComponentState } from '../../../services/operator-settings.ts'

/** Component states, as GET /v1/status shows them. */
export function adminComponentRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.put(
      '/components/:component',
      {
        schema: {
          summary: "Set a component's state",
          tags: ['components'],
          params: ComponentParams,
          body: ComponentPutSchema,
          response: { 200: ComponentStateSchema },
        },
      },
      async (request) => setComponentState(deps, request.params.component, request.body.state),
    )
  }
}
