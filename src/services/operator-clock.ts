import { conflict, invalid, notFound } from '../domain/errors.ts'
import { ManualClock } from '../platform/clock.ts'
import { listWatermarks } from '../store/job-watermarks.ts'
import { writeManualClock } from '../store/settings.ts'
import type { ServiceContext } from './context.ts'

/** Operator use cases on service time: moving the manual clock and running a job now. */
export interface OperatorClockContext extends ServiceContext {
  scheduler: JobRunner
}

/**
 * What these use cases need of the scheduler (src/jobs/scheduler.ts implements it). Services
 * never import the jobs layer; the scheduler is handed in through this port.
 */
export interface JobRunner {
  readonly names: string[]
  has(name: string): boolean
  nextDue(name: string, after: Date): Date | null
  runNow(name: string): Promise<Record<string, unknown>>
  advanceManualClock(target: Date, setClock: (to: Date) => void): Promise<void>
}

export type ClockMove = { advance_seconds: number } | { now: string }

const MAX_CLOCK_MOVE_MS = 100_000_000_000

/**
 * Moves the manual clock forward (409 on the system clock). Every job that
 * falls due in the skipped interval runs first, in time order, at its own
 * instant; the new position is persisted so a restart never moves time back.
 */
export async function moveManualClock(ctx: OperatorClockContext, move: ClockMove): Promise<Date> {
  const clock = ctx.clock
  if (!(clock instanceof ManualClock)) throw conflict('the service runs on the system clock; set CLOCK=manual to move time')
  const target = 'now' in move ? new Date(move.now) : new Date(clock.nowMs() + Math.round(move.advance_seconds * 1000))
  if (Number.isNaN(target.getTime())) throw invalid('now', 'invalid_format')
  if (target.getTime() < clock.nowMs()) throw invalid('now', 'clock_moves_forward_only', { current: clock.now().toISOString() })
  if (target.getTime() - clock.nowMs() > MAX_CLOCK_MOVE_MS) throw invalid('now', 'above_maximum', { max_seconds: MAX_CLOCK_MOVE_MS / 1000 })
  await ctx.scheduler.advanceManualClock(target, (to) => clock.set(to))
  await writeManualClock(ctx.db, clock.now())
  return clock.now()
}

/** Runs one job now (404 for an unknown name); no watermark moves. */
export async function runJobNow(
  ctx: OperatorClockContext,
  job: string,
): Promise<{ job: string; ran_at: Date; result: Record<string, unknown> }> {
  if (!ctx.scheduler.has(job)) throw notFound(`job ${job} (known: ${ctx.scheduler.names.join(', ')})`)
  const result = await ctx.scheduler.runNow(job)
  return { job, ran_at: ctx.clock.now(), result }
}

/** A scheduled job as the operator sees it: how far its schedule has run and when it next falls due. */
export interface JobSchedule {
  job: string
  /** Every occurrence up to here has run (the job's watermark); null before its first scheduled run. */
  ranThrough: Date | null
  /** When the watermark last moved (service clock): the last scheduled run. On-demand runs move no watermark. */
  lastRunAt: Date | null
  /** The next occurrence after the watermark (after now, for a job never run); in the past while it waits to be caught up. */
  nextDueAt: Date | null
}

/** Every job with its watermark and next occurrence (GET /admin/v1/jobs, the console's jobs page). */
export async function listJobSchedules(ctx: OperatorClockContext): Promise<JobSchedule[]> {
  const marks = new Map((await listWatermarks(ctx.db)).map((w) => [w.job, w]))
  const now = ctx.clock.now()
  return ctx.scheduler.names.map((job) => {
    const mark = marks.get(job)
    return {
      job,
      ranThrough: mark?.ran_through ?? null,
      lastRunAt: mark?.updated_at ?? null,
      nextDueAt: ctx.scheduler.nextDue(job, mark?.ran_through ?? now),
    }
  })
}
