import type { Job } from './scheduler.ts'
import type { ServiceContext } from '../services/context.ts'
import { sealClearOutbox } from '../services/email.ts'
import { purgeExpiredPreviews } from '../store/previews.ts'
import { purgeExpiredExports } from '../store/export-jobs.ts'
import { deleteExpiredPasswordTokens, deleteExpiredSessions } from '../store/logins.ts'
import { purgeFinishedWebhookMessages } from '../store/webhooks.ts'
import { purgeClickDays, purgeSourceCounts } from '../store/ledger-state.ts'
import { endExpiredEmailedLinks } from '../store/outbox.ts'
import { utcDay } from '../domain/clicks.ts'

const HOUR = 3_600_000
/** Expired previews stay findable (answering 410) for a week before they are deleted (then 404). */
const PREVIEW_TOMBSTONE_MS = 7 * 24 * HOUR
/** Export artifacts are deleted by the first run after they expire (the download answers 410 either way); the job row stays readable a week longer. */
const EXPORT_TOMBSTONE_MS = 7 * 24 * HOUR
/** Delivered and failed webhook messages (with their attempt log) are kept this long after the event, then deleted. */
const WEBHOOK_LOG_MS = 30 * 24 * HOUR

/**
 * Daily at 00:30 UTC: deletes expired artifacts, ended sessions, expired password links, webhook
 * messages finished over 30 days ago and billable-click days before yesterday (a click is judged
 * against its own UTC day; yesterday stays for a batch judged just before midnight). Expiry itself is checked on
 * every read, so this only reclaims space. It also removes the stored copy of every emailed
 * password link that expired (reads hide them already) and seals any email body still in clear
 * (issue 34). Idempotent: a rerun finds nothing more to do.
 */
export function expiryJob(ctx: Pick<ServiceContext, 'db' | 'settings'>): Job {
  const { db } = ctx
  return {
    name: 'expiry',
    // A run deletes everything expired by now, so one run covers any gap.
    catchUp: 'latest',
    nextDue: (after) => {
      const day = 24 * HOUR
      const next = Math.floor(after.getTime() / day) * day + HOUR / 2
      return new Date(next > after.getTime() ? next : next + day)
    },
    run: async (now) => {
      const previews = await purgeExpiredPreviews(db, now, PREVIEW_TOMBSTONE_MS)
      const jobs = await purgeExpiredExports(db, now, EXPORT_TOMBSTONE_MS)
      const sessions = await deleteExpiredSessions(db, now)
      const emailedLinks = await endExpiredEmailedLinks(db, now)
      const links = await deleteExpiredPasswordTokens(db, now)
      const emailsSealed = await sealClearOutbox(ctx)
      const webhooks = await purgeFinishedWebhookMessages(db, new Date(now.getTime() - WEBHOOK_LOG_MS))
      const clickDays = await purgeClickDays(db, utcDay(now.getTime() - 24 * HOUR))
      // The invalid-traffic bounds judge the current UTC day and hour only.
      const sourceCounts = await purgeSourceCounts(db, utcDay(now.getTime() - 24 * HOUR))
      return {
        previews_deleted: previews,
        export_artifacts_deleted: jobs.artifacts_deleted,
        export_jobs_deleted: jobs.jobs_deleted,
        sessions_deleted: sessions,
        password_links_deleted: links,
        emailed_links_removed: emailedLinks,
        email_bodies_sealed: emailsSealed,
        webhook_messages_deleted: webhooks,
        click_days_deleted: clickDays,
        source_counts_deleted: sourceCounts,
      }
    },
  }
}
