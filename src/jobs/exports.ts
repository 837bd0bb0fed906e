import type { FastifyBaseLogger } from 'fastify'
import type { Job, Scheduler } from './scheduler.ts'
import type { ServiceContext } from '../services/context.ts'
import { runPendingExports } from '../services/exports/worker.ts'

export const EXPORTS_JOB = 'exports'
const MINUTE = 60_000
/** Idle tick under a manual clock: well inside the 24 h availability of a job, so an orphan never expires unseen. */
const IDLE_TICK = 6 * 60 * MINUTE

const nextTick = (after: Date, every: number) => new Date((Math.floor(after.getTime() / every) + 1) * every)

/**
 * The export worker as a scheduled job: every minute of service time (and on
 * `POST /admin/v1/jobs/exports/run`, and when kicked) it claims queued jobs
 * and jobs stuck in `running` for over ten minutes (a crashed worker), and
 * generates them. Every run reads the store.
 *
 * Under a manual clock, while no export is in flight (the last run saw no
 * unfinished job, on any instance), the idle minute ticks are thinned to one
 * every six hours (00:00, 06:00, 12:00, 18:00 UTC): moving a manual clock by
 * months would otherwise cost one store read per skipped minute. Work queued
 * on this instance kicks the worker at once, and a run that sees any
 * unfinished job returns to minute ticks (so stale leases are reclaimed on time).
 */
export function exportsJob(ctx: ServiceContext, log: FastifyBaseLogger): Job {
  let inFlight = true // until the first run has looked
  return {
    name: EXPORTS_JOB,
    // A run claims every queued or stale job, so one run covers any gap; instances claim exports with leases, so runs may overlap.
    catchUp: 'latest',
    concurrent: true,
    nextDue: (after) => nextTick(after, ctx.clock.kind === 'system' || inFlight ? MINUTE : IDLE_TICK),
    run: async () => {
      try {
        const result = await runPendingExports(ctx, log)
        inFlight = result.in_flight
        return { ...result }
      } catch (err) {
        inFlight = true
        throw err
      }
    },
  }
}

/**
 * Starts the worker now without waiting for it (called right after a job is
 * queued, and at start-up). On an instance that runs jobs it runs in-process,
 * through the scheduler, so it never overlaps another run of the worker (or
 * any other job) in this process; a web instance signals the workers instead
 * (`Scheduler.wake`). A lost signal only delays the export to the next minute tick.
 */
export function kickExports(scheduler: Scheduler, log: FastifyBaseLogger): void {
  scheduler.wake(EXPORTS_JOB).catch((err: unknown) => log.error({ err }, 'export worker not woken'))
}
