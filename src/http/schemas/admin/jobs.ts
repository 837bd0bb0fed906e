import { Type } from 'typebox'
import { DateTime, Nullable } from '../common.ts'

export const JobParams = Type.Object({
  job: Type.String({ description: '`rollups`, `invoicing`, `exports`, `expiry`, `traffic-review` (the daily invalid-traffic review) or `ledger-partitions` (the ledger\'s partitions and retention); any other name is 404.' }),
})

export const JobRunSchema = Type.Object({
  job: Type.String(),
  ran_at: DateTime,
  result: Type.Object(
    {},
    { additionalProperties: true, description: "The job's own summary of the run (counts, ids); its fields differ by job." },
  ),
})

export const JobListSchema = Type.Object({
  jobs: Type.Array(
    Type.Object({
      job: Type.String(),
      ran_through: Nullable({ ...DateTime, description: "The job's watermark: every scheduled occurrence up to here has run." }),
      last_run_at: Nullable({
        ...DateTime,
        description: 'When the watermark last moved: the last scheduled run (or when the schedule started). Runs on demand move no watermark.',
      }),
      next_due_at: Nullable({ ...DateTime, description: 'The next scheduled occurrence; in the past while it waits to be caught up.' }),
    }),
  ),
})
