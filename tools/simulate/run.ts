/**
 * One simulation run against a running service: checks the options, finds
 * the service's clock, makes the optional set-up, runs every viewer of the
 * traffic model (tools/simulate/traffic.ts) through one request gate, and
 * returns the summary (tools/simulate/report.ts).
 */
import { randomBytes } from 'node:crypto'
import { jsonObject, OriginPool, type PoolReply } from '../lib/http.ts'
import { round2, Samples } from '../lib/stats.ts'
import { ManualTimeline, SystemTimeline, type Timeline } from './clock.ts'
import { buildSummary, newCounters, bump, startProgress, type Summary } from './report.ts'
import { checkBilling, runSetup, type Setup } from './setup.ts'
import { DEFAULT_COUNTRY_MIX, MAX_VIEWERS, parseCountries, runViewer } from './traffic.ts'

export interface SimulationOptions {
  /** Base URL of the running service; loopback only. */
  url: string
  /** Simulated installs (default 200, at most 100,000). */
  viewers?: number
  /** Wall-clock seconds to run (default 30). */
  durationS?: number
  /** Maximum HTTP requests in flight (default min(viewers, 64)). */
  concurrency?: number
  /** Country mix: "US,DE" (uniform) or "US:40,DE:10" (weights); "-" means no country sent. Default: a realistic mix. */
  countries?: string
  /** Probability that a shown line is clicked (default 0.02). */
  clickRate?: number
  /** Create an approved, billed advertiser with a few campaigns first (needs adminToken). */
  setup?: boolean
  /** Operator token: setup and the manual-clock ticker. */
  adminToken?: string
  /** PRNG seed; the same seed replays the same viewers and choices (default random, reported in the summary). */
  seed?: number
  /**
   * Service-time speed-up on a CLOCK=manual service (needs adminToken): the
   * simulator moves the service clock K× faster than real time. Ignored (with a
   * note) on a system-clock service.
   */
  timeScale?: number
  /** Progress display: one updating line on a TTY, periodic plain lines otherwise, or none (default 'off'). */
  progress?: 'auto' | 'tty' | 'plain' | 'off'
  /** Where progress and notes go (default process.stderr). */
  progressStream?: NodeJS.WriteStream
  /** Per-request timeout (default 10 s). */
  requestTimeoutMs?: number
  /** Real-time interval between manual clock moves (default 200 ms). */
  tickMs?: number
  /** Aborts the run early (the summary still comes back). */
  signal?: AbortSignal
}

function assertLoopback(url: string): URL {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    throw new Error(`--url: not a URL: "${url}"`)
  }
  if (u.protocol !== 'http:') throw new Error('--url: only http:// is supported')
  const host = u.hostname.replace(/^\[|\]$/g, '')
  if (!(host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host))) {
    throw new Error(`--url: the simulator only talks to a loopback address (127.0.0.0/8, localhost, [::1]), not "${u.hostname}"`)
  }
  return u
}

/** At most `n` at once. */
class Semaphore {
  #free: number
  #queue: (() => void)[] = []
  constructor(n: number) {
    this.#free = n
  }
  async acquire(): Promise<void> {
    if (this.#free > 0) {
      this.#free--
      return
    }
    await new Promise<void>((r) => this.#queue.push(r))
  }
  release(): void {
    const next = this.#queue.shift()
    if (next) next()
    else this.#free++
  }
}

export async function runSimulation(options: SimulationOptions): Promise<Summary> {
  const base = assertLoopback(options.url)
  const origin = base.origin
  const viewers = Math.floor(options.viewers ?? 200)
  if (!(viewers >= 1 && viewers <= MAX_VIEWERS)) throw new Error(`viewers must be 1-${MAX_VIEWERS}`)
  const durationS = options.durationS ?? 30
  if (!(durationS > 0 && durationS <= 24 * 3600)) throw new Error('duration must be > 0 and at most a day')
  const concurrency = Math.floor(options.concurrency ?? Math.min(viewers, 64))
  if (!(concurrency >= 1 && concurrency <= 4096)) throw new Error('concurrency must be 1-4096')
  const clickRate = options.clickRate ?? 0.02
  if (!(clickRate >= 0 && clickRate <= 1)) throw new Error('click rate must be within 0-1')
  const countries = parseCountries(options.countries ?? DEFAULT_COUNTRY_MIX)
  const seed = (options.seed ?? randomBytes(4).readUInt32BE(0)) >>> 0
  const seedTag = seed.toString(36)
  const timeoutMs = options.requestTimeoutMs ?? 10_000
  const out = options.progressStream ?? process.stderr
  const note = (msg: string) => {
    if ((options.progress ?? 'off') !== 'off') out.write(`${msg}\n`)
  }
  if (options.setup && !options.adminToken) throw new Error('--setup needs --admin-token')
  if (options.timeScale !== undefined && !(options.timeScale > 0 && options.timeScale <= 10_000)) throw new Error('time scale must be > 0 and at most 10000')

  // The Pool holds `concurrency` connections for viewers plus one for the clock ticker.
  const http = new OriginPool(origin, concurrency + 2, timeoutMs)
  const admin = options.adminToken ? { authorization: `Bearer ${options.adminToken}`, 'x-forwarded-for': '198.19.255.253' } : null
  const durationMs = durationS * 1000
  const c = newCounters()
  const lat = { decision: new Samples(), view: new Samples(), click: new Samples() }

  try {
    const health = await http.call('GET', '/healthz').catch((err: unknown) => {
      throw new Error(`cannot reach ${origin}: ${err instanceof Error ? err.message : String(err)}`)
    })
    if (health.status !== 200) throw new Error(`${origin}/healthz answered ${health.status}`)

    // Which clock does the service run? Only the operator API can tell.
    let clockKind: Summary['clock']['kind'] = 'unknown'
    let serviceNowMs = 0
    let clockNote: string | null = null
    if (admin) {
      const probe = await http.call('POST', '/admin/v1/clock', { advance_seconds: 0 }, admin)
      if (probe.status === 200) {
        clockKind = 'manual'
        serviceNowMs = Date.parse(String(jsonObject(probe.text).now))
      } else if (probe.status === 409) clockKind = 'system'
      else throw new Error(`operator API: POST /admin/v1/clock answered ${probe.status} (is --admin-token the service's ADMIN_TOKEN?)`)
    }
    let timeScale: number | null = null
    if (clockKind === 'manual') {
      timeScale = options.timeScale ?? 1
      if (options.timeScale === undefined) clockNote = 'manual clock without --time-scale: driving it at real speed (K = 1)'
    } else if (options.timeScale !== undefined) {
      clockNote =
        clockKind === 'system'
          ? '--time-scale ignored: the service runs on the system clock; viewers wait their dwell in real time'
          : '--time-scale ignored: it needs --admin-token (and a CLOCK=manual service); viewers wait their dwell in real time'
    }
    if (clockNote) note(`note: ${clockNote}`)

    let setup: Setup | null = null
    if (options.setup && options.adminToken) {
      setup = await runSetup(http, options.adminToken, `${seedTag}-${randomBytes(3).toString('hex')}`)
      note(`setup: advertiser ${setup.userId} with ${setup.campaigns.length} campaigns (${setup.campaigns.map((x) => `${x.cpmUsd} ${x.surface}`).join(', ')})`)
    }

    const timeline: Timeline =
      clockKind === 'manual' ? new ManualTimeline(http, admin!, serviceNowMs, timeScale!, options.tickMs ?? 200, durationMs) : new SystemTimeline(durationMs)
    const gate = new Semaphore(concurrency)
    const stopAll = new AbortController()
    let fatal: Error | null = null
    if (timeline instanceof ManualTimeline) {
      timeline.onError = (err) => {
        fatal = err
        stopAll.abort()
      }
      timeline.start()
    }
    const onAbort = () => {
      stopAll.abort()
      timeline.stop()
    }
    options.signal?.addEventListener('abort', onAbort, { once: true })
    if (options.signal?.aborted) onAbort()

    const started = performance.now()

    async function request(kind: 'decision' | 'view' | 'click', method: 'GET' | 'POST', path: string, body: unknown, ip: string): Promise<PoolReply | null> {
      await gate.acquire()
      const t = performance.now()
      try {
        const res = await http.call(method, path, body, { 'x-forwarded-for': ip })
        lat[kind].add(performance.now() - t)
        return res
      } catch {
        c.network++
        c.errors++
        return null
      } finally {
        gate.release()
      }
    }

    function failed(res: PoolReply): void {
      c.errors++
      bump(c.byStatus, String(res.status))
      if (res.status === 429) c.rateLimited++
    }

    // Hard stop: every loop ends at the deadline even if something hangs.
    const hardStop = setTimeout(() => onAbort(), durationMs + timeoutMs + 5_000)
    const softStop = setTimeout(() => timeline.stop(), durationMs)

    const traffic = {
      seed,
      seedTag,
      countries,
      clickRate,
      durationMs,
      timeScale,
      timeline,
      stopped: stopAll.signal,
      wallLeft: () => durationMs - (performance.now() - started),
      request,
      failed,
      counters: c,
    }
    const progress = startProgress({
      mode: options.progress ?? 'off',
      out,
      counters: c,
      started,
      durationS,
      serviceClock: timeline instanceof ManualTimeline ? () => ({ seconds: timeline.advancedSeconds, timeScale }) : null,
    })

    try {
      await Promise.all(Array.from({ length: viewers }, (_, i) => runViewer(traffic, i)))
    } finally {
      clearTimeout(hardStop)
      clearTimeout(softStop)
      progress.stop()
      timeline.stop()
      if (timeline instanceof ManualTimeline) await timeline.done()
      options.signal?.removeEventListener('abort', onAbort)
    }
    progress.finish()
    if (fatal) throw fatal
    const elapsedS = (performance.now() - started) / 1000

    const billing = setup ? await checkBilling(http, setup, c, note) : null

    return buildSummary(
      {
        url: origin,
        seed,
        viewers,
        concurrency,
        durationS,
        elapsedS,
        clock: {
          kind: clockKind,
          timeScale,
          serviceSecondsAdvanced: timeline instanceof ManualTimeline ? round2(timeline.advancedSeconds) : null,
          note: clockNote,
        },
        setup: setup ? { userId: setup.userId, campaigns: setup.campaigns } : null,
        billing,
      },
      c,
      lat,
    )
  } finally {
    await http.close()
  }
}
