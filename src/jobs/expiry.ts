import type { Job } from './scheduler.ts'
import type { Db } from '../store/db.ts'
import { purgeExpiredPreviews } from '../store/previews.ts'

const HOUR = 3_600_000
/** Expired previews stay findable (answering 410) for a week before they are deleted (then 404). */
const PREVIEW_TOMBSTONE_MS = 7 * 24 * HOUR

/** Hourly: deletes expired artifacts. Idempotent: a rerun finds nothing more to delete. */
export function expiryJob(db: Db): Job {
  return {
    name: 'expiry',
    nextDue: (after) => new Date((Math.floor(after.getTime() / HOUR) + 1) * HOUR),
    run: async (now) => ({ previews_deleted: await purgeExpiredPreviews(db, now, PREVIEW_TOMBSTONE_MS) }),
  }
}
