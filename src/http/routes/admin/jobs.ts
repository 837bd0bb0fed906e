import type { App, RouteDeps } from '../../types.ts'
import { errors } from '../../schemas/common.ts'
import { JobListSchema, JobParams, JobRunSchema } from '../../schemas/admin/jobs.ts'
import { asOperator } from '../../operator-context.ts'
import { presentJobSchedule } from '../../presenters.ts'
import { listJobSchedules } from '../../../services/operator-clock.ts'
import { runJobNow } from '../../../services/operator-actions.ts'

const tags = ['jobs']

/** The scheduled jobs: where each stands, and running one on demand. */
export function adminJobRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.get(
      '/jobs',
      {
        schema: {
          summary: 'The scheduled jobs',
          description: "Each job's watermark (how far its schedule has run), when it last moved, and its next scheduled occurrence.",
          tags,
          response: { 200: JobListSchema },
        },
      },
      async () => ({ jobs: (await listJobSchedules(deps)).map(presentJobSchedule) }),
    )

    app.post(
      '/jobs/:job/run',
      {
        // Answers once the job ran: as long as the job takes.
        config: { deadline: false },
        schema: {
          summary: 'Run one job now',
          description: 'Runs `rollups`, `invoicing`, `exports`, `expiry`, `traffic-review` or `ledger-partitions` (creates the ledger\'s monthly partitions ahead, drops those past LEDGER_RETENTION_DAYS once rolled up) once, outside its schedule; no watermark moves.',
          tags,
          params: JobParams,
          response: { 200: JobRunSchema, ...errors(404) },
        },
      },
      async (request) => {
        const run = await runJobNow(asOperator(deps, request), request.params.job)
        return { job: run.job, ran_at: run.ran_at.toISOString(), result: run.result }
      },
    )
  }
}
