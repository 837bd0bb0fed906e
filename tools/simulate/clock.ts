/**
 * Timelines: where a viewer's waits happen. On the system clock a viewer
 * waits its dwell in real time; on a CLOCK=manual service one ticker moves
 * the service clock K times faster than real time and waiters wake on the
 * time the service confirmed.
 */
import { jsonObject, type OriginPool } from '../lib/http.ts'

const sleepReal = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)))

export interface Timeline {
  readonly kind: 'system' | 'manual'
  /** Simulation time in ms since the run started (service time on a manual clock, as confirmed by the service). */
  now(): number
  /** An upper bound of the service time of anything the service processes right now (>= now()). */
  upper(): number
  /** Estimated simulation time left until the run's real-time deadline. */
  left(): number
  /** Resolves true once now() >= t, false if the run stopped first. */
  until(t: number): Promise<boolean>
  stop(): void
}

export class SystemTimeline implements Timeline {
  readonly kind = 'system' as const
  readonly #t0 = performance.now()
  readonly #deadline: number
  #stopped = false
  #timers = new Set<{ timer: NodeJS.Timeout; resolve: (v: boolean) => void }>()
  constructor(durationMs: number) {
    this.#deadline = durationMs
  }
  now(): number {
    return performance.now() - this.#t0
  }
  upper(): number {
    return this.now()
  }
  left(): number {
    return this.#deadline - this.now()
  }
  until(t: number): Promise<boolean> {
    if (this.#stopped) return Promise.resolve(false)
    const wait = t - this.now()
    if (wait <= 0) return Promise.resolve(true)
    return new Promise((resolve) => {
      const entry = {
        resolve,
        timer: setTimeout(() => {
          this.#timers.delete(entry)
          resolve(true)
        }, Math.ceil(wait)),
      }
      this.#timers.add(entry)
    })
  }
  stop(): void {
    this.#stopped = true
    for (const e of this.#timers) {
      clearTimeout(e.timer)
      e.resolve(false)
    }
    this.#timers.clear()
  }
}

/**
 * Drives a CLOCK=manual service: every tickMs of real time, moves the service
 * clock to origin + K × (real time elapsed). Waiters wake on the clock value
 * the service confirmed, so a view never claims more dwell than really passed
 * on the service clock.
 */
export class ManualTimeline implements Timeline {
  readonly kind = 'manual' as const
  readonly #http: OriginPool
  readonly #admin: Record<string, string>
  readonly #k: number
  readonly #tickMs: number
  readonly #durationMs: number
  readonly #t0 = performance.now()
  readonly #originMs: number
  #knownMs: number
  #upperMs: number
  #stopped = false
  #waiters: { t: number; resolve: (v: boolean) => void }[] = []
  #loop: Promise<void> | null = null
  error: Error | null = null
  onError: (err: Error) => void = () => {}

  constructor(http: OriginPool, admin: Record<string, string>, serviceNowMs: number, k: number, tickMs: number, durationMs: number) {
    this.#http = http
    this.#admin = admin
    this.#k = k
    this.#tickMs = tickMs
    this.#durationMs = durationMs
    this.#originMs = serviceNowMs
    this.#knownMs = 0
    this.#upperMs = 0
  }

  get advancedSeconds(): number {
    return this.#knownMs / 1000
  }
  now(): number {
    return this.#knownMs
  }
  upper(): number {
    return this.#upperMs
  }
  left(): number {
    return (this.#durationMs - (performance.now() - this.#t0)) * this.#k
  }
  until(t: number): Promise<boolean> {
    if (this.#stopped) return Promise.resolve(false)
    if (t <= this.#knownMs) return Promise.resolve(true)
    return new Promise((resolve) => this.#waiters.push({ t, resolve }))
  }
  start(): void {
    this.#loop = this.#run()
  }
  async #run(): Promise<void> {
    while (!this.#stopped) {
      const tickStart = performance.now()
      const target = Math.floor((tickStart - this.#t0) * this.#k)
      const step = target - this.#knownMs
      if (step >= 1) {
        this.#upperMs = Math.max(this.#upperMs, target)
        try {
          const res = await this.#http.call('POST', '/admin/v1/clock', { advance_seconds: step / 1000 }, this.#admin)
          if (res.status !== 200) throw new Error(`POST /admin/v1/clock answered ${res.status}: ${res.text.slice(0, 200)}`)
          const now = Date.parse(String(jsonObject(res.text).now))
          if (!Number.isFinite(now)) throw new Error(`POST /admin/v1/clock: unexpected answer ${res.text.slice(0, 200)}`)
          // The clock may also have been moved by someone else: take what the service says.
          this.#knownMs = Math.max(this.#knownMs, now - this.#originMs)
          this.#upperMs = Math.max(this.#upperMs, this.#knownMs)
        } catch (err) {
          this.error = err instanceof Error ? err : new Error(String(err))
          this.onError(this.error)
          this.stop()
          return
        }
        const ready = this.#waiters.filter((w) => w.t <= this.#knownMs)
        if (ready.length > 0) {
          this.#waiters = this.#waiters.filter((w) => w.t > this.#knownMs)
          for (const w of ready) w.resolve(true)
        }
      }
      await sleepReal(this.#tickMs - (performance.now() - tickStart))
    }
  }
  stop(): void {
    if (this.#stopped) return
    this.#stopped = true
    for (const w of this.#waiters) w.resolve(false)
    this.#waiters = []
  }
  async done(): Promise<void> {
    await this.#loop
  }
}
