import type { App, RouteDeps } from '../../types.ts'
import { errors } from '../../schemas/common.ts'
import { ClockResultSchema, ClockSchema } from '../../schemas/admin/clock.ts'
import { asOperator } from '../../operator-context.ts'
import { moveManualClock } from '../../../services/operator-actions.ts'

/** Service time under CLOCK=manual. */
export function adminClockRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.post(
      '/clock',
      {
        // Runs every job that fell due in the interval before answering: as long as that work takes.
        config: { deadline: false },
        schema: {
          summary: 'Move the manual clock forward',
          description:
            'Before answering, every job that fell due in the skipped interval has run, in time order. 400 `clock_moves_forward_only` ' +
            'for an earlier instant; 409 when the service runs on the system clock.',
          tags: ['clock'],
          body: ClockSchema,
          response: { 200: ClockResultSchema, ...errors(409) },
        },
      },
      async (request) => ({ now: (await moveManualClock(asOperator(deps, request), request.body)).toISOString() }),
    )
  }
}
