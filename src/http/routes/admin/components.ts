import type { App, RouteDeps } from '../../types.ts'
import { ComponentParams, ComponentPutSchema, ComponentStateSchema } from '../../schemas/admin/components.ts'
import { asOperator } from '../../operator-context.ts'
import { setComponentState } from '../../../services/operator-actions.ts'

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
      async (request) => {
        const { component } = request.params
        const set = await setComponentState(asOperator(deps, request), component, request.body.state)
        return { component, state: set.state }
      },
    )
  }
}
