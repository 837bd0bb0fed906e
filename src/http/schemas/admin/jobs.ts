import { Type } from 'typebox'
import { DateTime } from '../common.ts'

export const JobParams = Type.Object({
  job: Type.String({ description: '`rollups`, `invoicing`, `exports` or `expiry`; any other name is 404.' }),
})

export const JobRunSchema = Type.Object({
  job: Type.String(),
  ran_at: DateTime,
  result: Type.Object(
    {},
    { additionalProperties: true, description: "The job's own summary of the run (counts, ids); its fields differ by job." },
  ),
})
