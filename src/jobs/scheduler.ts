import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../platform/clock.ts'
import type { JobMetrics } from '../platform/metric-ports.ts'

/**
 * Time-driven jobs (operations.md section 4). Each job is idempotent by
 * period, so running it late, twice or after a crash converges. Runs are
 * serialized: a timer tick, an operator run and a clock move never overlap.
 */
export interface Job {
  name: string
  /** The first instant strictly after `after` at which the job falls due; null if it only runs on demand. */
  nextDue(after: Date): Date | null
  /** Does what is due at `now` (the service clock's current instant); `due` is the occurrence being run, null on demand. */
  run(now: Date, due: Date | null): Promise<Record<string, unknown>>
  /**
   * How occurrences missed while no instance ran are caught up: `each` runs
   * every one in time order, each for its own instant (invoicing: one billing
   * period each); `latest` runs once for the whole gap, because the job
   * catches up by itself (rollups, expiry, the export worker).
   */
  catchUp: 'each' | 'latest'
  /** Runs may overlap across instances (the job claims its own work); otherwise an instance holds the job's lock while running it. */
  concurrent?: boolean
}

/** Where the watermarks live and how instances sharing a store exclude each other (src/jobs/schedule-state.ts). */
export interface ScheduleState {
  /** Every occurrence of a job at or before its watermark has run; a job never run before starts at `now`. */
  watermarks(jobs: readonly string[], now: Date): Promise<Map<string, Date>>
  watermark(job: string): Promise<Date | null>
  advance(job: string, to: Date, now: Date): Promise<void>
  /** Runs `work` holding the job's lock across instances; with `wait` false, null when another instance holds it. */
  exclusive<T>(job: string, wait: boolean, work: () => Promise<T>): Promise<{ value: T } | null>
}

interface Occurrence {
  job: Job
  /** The occurrence's instant (the order of the pass). */
  at: Date
  /** The watermark once it has run (for a `latest` catch-up, the end of the gap it covers). */
  through: Date
}

export interface SchedulerOptions {
  /**
   * Where `wake` sends a job: unset, it runs here at once; on an instance
   * that runs no jobs by itself (ROLE=web), this signals the instances that do.
   */
  wakeElsewhere?: (job: string) => Promise<void>
  /** Counts each run and its duration (adapi_job_*). */
  metrics?: JobMetrics
}

export class Scheduler {
  readonly #clock: Clock
  readonly #jobs: Map<string, Job>
  readonly #state: ScheduleState
  readonly #log: FastifyBaseLogger
  readonly #wakeElsewhere: ((job: string) => Promise<void>) | undefined
  readonly #metrics: JobMetrics | undefined
  #chain: Promise<unknown> = Promise.resolve()
  #timer: NodeJS.Timeout | null = null
  /** Work each run of a job waits for first (`before`). */
  readonly #before = new Map<string, (() => Promise<void>)[]>()

  constructor(clock: Clock, jobs: Job[], state: ScheduleState, log: FastifyBaseLogger, options: SchedulerOptions = {}) {
    this.#clock = clock
    this.#jobs = new Map(jobs.map((j) => [j.name, j]))
    this.#state = state
    this.#log = log
    this.#wakeElsewhere = options.wakeElsewhere
    this.#metrics = options.metrics
  }

  /**
   * Runs `prepare` before every run of job `name` in this process: a web instance's serving engine adds
   * the offers it counted to the store before the rollups close a day.
   */
  before(name: string, prepare: () => Promise<void>): void {
    this.#before.set(name, [...(this.#before.get(name) ?? []), prepare])
  }

  has(name: string): boolean {
    return this.#jobs.has(name)
  }

  get names(): string[] {
    return [...this.#jobs.keys()]
  }

  /** When `name` next falls due after `after` on its schedule (null: on demand only, or no such job). */
  nextDue(name: string, after: Date): Date | null {
    return this.#jobs.get(name)?.nextDue(after) ?? null
  }

  #serialized<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#chain.then(work, work)
    this.#chain = next.catch(() => {})
    return next
  }

  /** Runs one job now (operator `jobs/{job}/run`), under its lock; it is not an occurrence, so no watermark moves. */
  runNow(name: string): Promise<Record<string, unknown>> {
    const job = this.#jobs.get(name)
    if (!job) throw new Error(`unknown job ${name}`)
    return this.#serialized(async () => {
      if (job.concurrent) return this.#measured(job, null)
      const held = await this.#state.exclusive(job.name, true, () => this.#measured(job, null))
      return held?.value ?? {}
    })
  }

  /**
   * Asks for a job to run soon (an export was queued) and resolves once it
   * is asked: here, the run is queued behind any other run of this instance;
   * with `wakeElsewhere`, the instances that run jobs are signalled instead.
   */
  wake(name: string): Promise<void> {
    if (!this.#jobs.has(name)) return Promise.resolve()
    if (this.#wakeElsewhere) return this.#wakeElsewhere(name)
    this.runNow(name).catch((err: unknown) => this.#log.error({ err, job: name }, 'job failed'))
    return Promise.resolve()
  }

  /**
   * Moves a manual clock to `target`, stopping at each due instant to run
   * what falls due there (every occurrence since each job's watermark), so
   * every job sees the time it was scheduled for.
   */
  advanceManualClock(target: Date, setClock: (to: Date) => void): Promise<void> {
    return this.#serialized(async () => {
      await this.#runDue(target, 'every', setClock)
      if (target.getTime() > this.#clock.nowMs()) setClock(target)
    })
  }

  /**
   * Runs what fell due since the watermarks, up to the current time: on start
   * (a service that was down catches up) and on every tick of the system
   * clock. Each `each` job runs every missed occurrence, a `latest` job once.
   */
  catchUp(): Promise<void> {
    return this.#serialized(() => this.#runDue(this.#clock.now(), 'catch-up'))
  }

  async #runDue(target: Date, mode: 'every' | 'catch-up', setClock?: (to: Date) => void): Promise<void> {
    const marks = await this.#state.watermarks(this.names, this.#clock.now())
    const due: Occurrence[] = []
    for (const job of this.#jobs.values()) {
      const from = marks.get(job.name) ?? this.#clock.now()
      if (mode === 'catch-up' && job.catchUp === 'latest') {
        const first = job.nextDue(from)
        if (first !== null && first.getTime() <= target.getTime()) due.push({ job, at: first, through: target })
        continue
      }
      for (let at = job.nextDue(from); at !== null && at.getTime() <= target.getTime(); at = job.nextDue(at)) {
        due.push({ job, at, through: at })
      }
    }
    // Stable: ties keep registration order.
    due.sort((a, b) => a.at.getTime() - b.at.getTime())
    // A job whose occurrence failed (or is running elsewhere) stops for this pass: its later occurrences wait, in order.
    const stopped = new Set<string>()
    const concurrentThrough = new Map<string, Date>()
    for (const { job, at, through } of due) {
      if (stopped.has(job.name)) continue
      if (setClock && at.getTime() > this.#clock.nowMs()) setClock(at)
      if (job.concurrent) {
        if (await this.#runLogged(job, at)) concurrentThrough.set(job.name, through)
        else stopped.add(job.name)
        continue
      }
      // A clock move waits for another instance's run (then finds it done); a tick leaves it to that instance.
      const held = await this.#state.exclusive(job.name, mode === 'every', async () => {
        const mark = await this.#state.watermark(job.name)
        if (mark !== null && mark.getTime() >= at.getTime()) return true
        if (!(await this.#runLogged(job, at))) return false
        await this.#state.advance(job.name, through, this.#clock.now())
        return true
      })
      if (!held?.value) stopped.add(job.name)
    }
    for (const [name, through] of concurrentThrough) await this.#state.advance(name, through, this.#clock.now())
  }

  async #runLogged(job: Job, due: Date): Promise<boolean> {
    try {
      const result = await this.#measured(job, due)
      this.#log.info({ job: job.name, due: due.toISOString(), result }, 'job ran')
      return true
    } catch (err) {
      this.#log.error({ err, job: job.name, due: due.toISOString() }, 'job failed')
      return false
    }
  }

  /** Runs the job once, counting the run, its failure and its duration (real time, not service time). */
  async #measured(job: Job, due: Date | null): Promise<Record<string, unknown>> {
    const started = performance.now()
    let ok = false
    try {
      for (const prepare of this.#before.get(job.name) ?? []) await prepare()
      const result = await job.run(this.#clock.now(), due)
      ok = true
      return result
    } finally {
      this.#metrics?.jobRun(job.name, (performance.now() - started) / 1000, ok)
    }
  }

  /**
   * Catches up what fell due while no instance ran (resolves when done);
   * then, on the system clock, checks every `everyMs` for what fell due since.
   */
  start(everyMs = 15_000): Promise<void> {
    const caughtUp = this.catchUp()
    if (this.#clock.kind === 'system' && !this.#timer) {
      this.#timer = setInterval(() => {
        this.catchUp().catch((err: unknown) => this.#log.error({ err }, 'scheduler tick failed'))
      }, everyMs)
      this.#timer.unref()
    }
    return caughtUp
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer)
    this.#timer = null
    await this.#chain
  }
}
