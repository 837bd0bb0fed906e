import type { Store } from '../store/db.ts'
import { advanceWatermark, readWatermark, readWatermarks, withJobLock } from '../store/job-watermarks.ts'
import type { ScheduleState } from './scheduler.ts'

/** The scheduler's watermarks and locks, kept in the store every instance shares. */
export function storeScheduleState(store: Store): ScheduleState {
  return {
    watermarks: (jobs, now) => readWatermarks(store.jobsDb, jobs, now),
    watermark: (job) => readWatermark(store.jobsDb, job),
    advance: (job, to, now) => advanceWatermark(store.jobsDb, job, to, now),
    exclusive: (job, wait, work) => withJobLock(store, job, wait, work),
  }
}
