import { Scheduler, type SchedulerOptions } from '../jobs/scheduler.ts'
import { storeScheduleState } from '../jobs/schedule-state.ts'
import { expiryJob } from '../jobs/expiry.ts'
import { invoicingJob } from '../jobs/invoicing.ts'
import { exportsJob, kickExports } from '../jobs/exports.ts'
import { rollupsJob, runRollups } from '../jobs/rollups.ts'
import { trafficReviewJob } from '../jobs/traffic-review.ts'
import { ledgerPartitionsJob, runLedgerPartitions } from '../jobs/ledger-partitions.ts'
import { WebhookSender } from '../jobs/webhooks.ts'
import { sealClearOutbox } from '../services/email.ts'
import type { Base } from './base.ts'

/** The time-driven jobs (operations.md section 4, and the daily traffic review) on the store's watermarks and locks. */
export function createScheduler(base: Base, options: SchedulerOptions = {}): Scheduler {
  const { store, clock, settings, processor, mailer, log, metrics } = base
  // The jobs' pool: its statements may run far longer than a request's (src/platform/timeouts.ts, pgJobs).
  const db = store.jobsDb
  const scheduler = new Scheduler(
    clock,
    [
      trafficReviewJob({ db, clock }),
      rollupsJob(db),
      invoicingJob({ db, clock, settings, processor, mailer, log: log.child({ component: 'email' }) }),
      expiryJob({ db, settings }),
      ledgerPartitionsJob(db, base.settings.ledgerRetentionDays),
      // The export worker's ledger reads may go to the replica (its job state stays on the primary).
      exportsJob({ db, clock, settings, ...(base.replica ? { reads: base.replica.jobs(db) } : {}) }, log.child({ component: 'exports' })),
    ],
    storeScheduleState(store),
    log.child({ component: 'scheduler' }),
    { metrics, ...options },
  )
  metrics.declareJobs(scheduler.names)
  return scheduler
}

/**
 * Starts running jobs (ROLE=all and worker): closes any day that ended while
 * no instance ran, creates the ledger's partitions ahead, seals email bodies still in clear, runs every occurrence that fell due since the stored
 * watermarks, then ticks on the system clock; export jobs left queued by a
 * previous run start at once.
 */
export async function runJobs(base: Base, scheduler: Scheduler, tickMs?: number): Promise<void> {
  await runRollups(base.store.jobsDb, base.clock.now())
  // Partitions ahead before any traffic: a month without one would fill the DEFAULT partition. Not
  // fatal (a drop that timed out on its lock, say): the months ahead exist already, and the daily run retries.
  await runLedgerPartitions(base.store.jobsDb, base.clock.now(), base.settings.ledgerRetentionDays).catch((err: unknown) =>
    base.log.error({ err, job: 'ledger-partitions' }, 'ledger partitions at start failed'),
  )
  // Email bodies written before migration 0032 (or by an older instance mid-upgrade) are sealed now,
  // not at the next expiry run. Not fatal either: the daily expiry job seals what is left.
  await sealClearOutbox({ db: base.store.jobsDb, settings: base.settings }).catch((err: unknown) =>
    base.log.error({ err }, 'sealing the outbox at start failed'),
  )
  await scheduler.start(tickMs)
  kickExports(scheduler, base.log)
}

/** Starts sending due webhooks (ROLE=all and worker; a web instance only writes them to the outbox). */
export function startWebhookSender(base: Base): WebhookSender {
  const ctx = { db: base.store.db, clock: base.clock, settings: base.settings }
  const sender = new WebhookSender(ctx, base.log.child({ component: 'webhooks' }), base.metrics)
  sender.start()
  return sender
}
