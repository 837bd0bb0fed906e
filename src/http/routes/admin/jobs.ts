import type { App, RouteDeps } from '../../types.ts'
import { errors } from '../../schemas/common.ts'
import { JobParams, JobRunSchema } from '../../schemas/admin/jobs.ts'
import { runJobNow } from '../../../services/operator-clock.ts'

/** Running a scheduled job on demand. */
export function adminJobRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.post(
      '/jobs/:job/run',
      {
        schema: {
          summary: 'Run one job now',
          description: 'Runs `rollups`, `invoicing`, `exports` or `expiry` once, outside its schedule; no watermark moves.',
          tags: ['jobs'],
          params: JobParams,
          response: { 200: JobRunSchema, ...errors(404) },
        },
      },
      async (request) => {
        const run = await runJobNow(deps, request.params.job)
        return { job: run.job, ran_at: run.ran_at.toISOString(), result: run.result }
      },
    )
  }
}
