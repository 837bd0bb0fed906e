import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../platform/clock.ts'

/**
 * Time-driven jobs (operations.md section 4). Each job is idempotent by
 * period, so running it late, twice or after a crash converges. Runs are
 * serialized: a timer tick, an operator run and a clock move never overlap.
 */
export interface Job {
  name: string
  /** The first instant strictly after `after` at which the job falls due; null if it only runs on demand. */
  nextDue(after: Date): Date | null
  /** Does what is due at `now` (the service clock's current instant). */
  run(now: Date): Promise<Record<string, unknown>>
}

export class Scheduler {
  readonly #clock: Clock
  readonly #jobs: Map<string, Job>
  readonly #log: FastifyBaseLogger
  #chain: Promise<unknown> = Promise.resolve()
  #timer: NodeJS.Timeout | null = null
  #lastTick: Date

  constructor(clock: Clock, jobs: Job[], log: FastifyBaseLogger) {
    this.#clock = clock
    this.#jobs = new Map(jobs.map((j) => [j.name, j]))
    this.#log = log
    this.#lastTick = clock.now()
  }

  has(name: string): boolean {
    return this.#jobs.has(name)
  }

  get names(): string[] {
    return [...this.#jobs.keys()]
  }

  #serialized<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#chain.then(work, work)
    this.#chain = next.catch(() => {})
    return next
  }

  /** Runs one job now (operator `jobs/{job}/run`). */
  runNow(name: string): Promise<Record<string, unknown>> {
    const job = this.#jobs.get(name)
    if (!job) throw new Error(`unknown job ${name}`)
    return this.#serialized(() => job.run(this.#clock.now()))
  }

  /** Every (instant, job) that falls due in (from, to], in time order (ties in registration order). */
  dueBetween(from: Date, to: Date): { at: Date; job: Job }[] {
    const due: { at: Date; job: Job }[] = []
    for (const job of this.#jobs.values()) {
      let at = job.nextDue(from)
      while (at !== null && at.getTime() <= to.getTime()) {
        due.push({ at, job })
        at = job.nextDue(at)
      }
    }
    return due.sort((a, b) => a.at.getTime() - b.at.getTime())
  }

  /**
   * Moves a manual clock to `target`, stopping at each due instant to run
   * what falls due there, so every job sees the time it was scheduled for.
   */
  advanceManualClock(target: Date, setClock: (to: Date) => void): Promise<void> {
    return this.#serialized(async () => {
      for (const { at, job } of this.dueBetween(this.#clock.now(), target)) {
        setClock(at)
        await this.#runLogged(job, at)
      }
      setClock(target)
      this.#lastTick = target
    })
  }

  async #runLogged(job: Job, at: Date): Promise<void> {
    try {
      const result = await job.run(at)
      this.#log.info({ job: job.name, at: at.toISOString(), result }, 'job ran')
    } catch (err) {
      this.#log.error({ err, job: job.name }, 'job failed')
    }
  }

  /** With the system clock: check every `everyMs` for jobs that fell due since the last check. */
  start(everyMs = 15_000): void {
    if (this.#clock.kind !== 'system' || this.#timer) return
    this.#timer = setInterval(() => {
      void this.#serialized(async () => {
        const now = this.#clock.now()
        const due = this.dueBetween(this.#lastTick, now)
        this.#lastTick = now
        // A job due several times in one gap (after downtime) runs once: it catches up by period itself.
        const seen = new Set<string>()
        for (const { job } of due) {
          if (seen.has(job.name)) continue
          seen.add(job.name)
          await this.#runLogged(job, now)
        }
      })
    }, everyMs)
    this.#timer.unref()
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer)
    this.#timer = null
    await this.#chain
  }
}
