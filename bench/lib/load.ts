/**
 * The serving benchmark's load generator, in the bench process: a closed loop
 * (N keep-alive connections, one request in flight each: the maximum rate) and
 * an open loop (requests scheduled at a constant rate, independent of the
 * answers: latency at a fixed load). Each call is one window: an unmeasured
 * warm-up, then a measured stretch with CPU read from /proc at its two ends.
 */
import os from 'node:os'
import { Client } from 'undici'
import { Samples } from '../../tools/lib/stats.ts'
import { kernelCpuSeconds, machineCpu, pgDelta, processCpuSeconds, readMemory, readPostgres, readWalBytes, type PgCpu } from './proc.ts'

export interface Req {
  method: 'GET' | 'POST'
  path: string
  body?: string
  headers: Record<string, string>
}

/** What to load and what to watch while loading it. */
export interface LoadTarget {
  origin: string
  /**
   * Several instances of one service: each connection sends its requests to
   * these origins in turn, one request each (a round-robin balancer in the
   * load generator); `origin` is then unused.
   */
  origins?: string[]
  /** The next request; null when the source ran dry (the window ends early). */
  next: () => Req | null
  onResponse?: (status: number, body: string) => void
  /** The server process: its CPU (all threads) and, with sampleMemory, its RSS. */
  serverPid?: number
  /** Several server processes (one per instance, instead of serverPid): their CPU summed, the largest RSS. */
  serverPids?: number[]
  /** A worker process (ROLE=worker) beside the servers: its CPU is read on its own. */
  workerPid?: number
  sampleMemory?: boolean
  /** PostgreSQL on this machine: the postmaster and the bench's database (its backends are charged). */
  postgres?: { postmaster: number; database: string; /** Where the WAL position is read (the cluster's maintenance database). */ walUrl?: string } | null
}

/** CPU seconds over one measured window. */
export interface WindowCpu {
  wall: number
  /** The server process, or the sum of every instance's. */
  server: number | null
  /** The worker process (LoadTarget.workerPid); null without one. */
  worker: number | null
  postgres: PgCpu | null
  /** This process (the load generator). */
  generator: number
  /** Kernel threads (I/O completion, PostgreSQL's fsyncs…). */
  kernel: number
  /** The whole machine busy, in % of all cores. */
  machineBusyPct: number
  /** Everything not named above (other sessions' work), in % of one core. */
  otherPctOfCore: number | null
  /** WAL bytes PostgreSQL wrote over the window (the cluster's; null without PostgreSQL). */
  walBytes: number | null
}

export interface Latency {
  p50: number | null
  p99: number | null
  max: number | null
}

export interface WindowResult {
  mode: 'closed' | 'open'
  /** Connections (closed: each one request in flight; open: the pool the arrivals draw from). */
  connections: number
  /** Responses completed inside the measured window: the operations CPU is divided by. */
  completed: number
  seconds: number
  perSecond: number
  /** Closed: from sending. Open: from the scheduled start (queueing for a connection and late starts included). */
  latencyMs: Latency
  statuses: Record<string, number>
  /** Every response, warm-up and drain included (what reached the server). */
  allStatuses: Record<string, number>
  networkErrors: number
  exhausted: boolean
  cpu: WindowCpu | null
  /** The server's RSS sampled every 250 ms in the window (sampleMemory). */
  maxRssMB: number | null
  open: OpenStats | null
}

export interface OpenStats {
  offeredPerSecond: number
  /** Arrivals scheduled inside the measured window. */
  scheduled: number
  /** Of those, sent more than LATE_MS after their scheduled time (generator lag or no free connection). */
  late: number
  /** Of those, dropped: the queue for a free connection was full. */
  dropped: number
  /** Of those, never answered: still queued DRAIN_S after the window (then never sent), or failed. */
  unfinished: number
  /** From sending (without the wait for the generator or a connection). */
  sendLatencyMs: Latency
}

const CLIENT_OPTIONS = { pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 30_000, bodyTimeout: 30_000 }
/** A request sent this much after its scheduled time is late. */
export const LATE_MS = 2
/** An open loop's arrivals wait for a free connection in a FIFO of at most this many seconds of arrivals (at least 1,000); beyond, they are dropped. */
export const MAX_QUEUE_S = 0.25
/** After an open window, answers are awaited this long. */
const DRAIN_S = 15
/** Upper bound of requests per window (a window is time-bound already; this bounds it in count too). */
const MAX_REQUESTS = 5_000_000

/** The server processes of a target: serverPids, else serverPid. */
const serverPids = (t: LoadTarget): number[] => t.serverPids ?? (t.serverPid === undefined ? [] : [t.serverPid])

/** CPU seconds summed over processes; null when there are none or one is unreadable. */
function cpuSum(pids: number[]): number | null {
  let sum = 0
  for (const pid of pids) {
    const s = processCpuSeconds(pid)
    if (s === null) return null
    sum += s
  }
  return pids.length === 0 ? null : sum
}

function snapshot(t: LoadTarget) {
  return {
    at: performance.now(),
    generator: process.cpuUsage(),
    server: cpuSum(serverPids(t)),
    worker: processCpuSeconds(t.workerPid),
    postgres: t.postgres ? readPostgres(t.postgres.postmaster, t.postgres.database) : null,
    wal: t.postgres?.walUrl ? readWalBytes(t.postgres.walUrl) : null,
    kernel: kernelCpuSeconds(),
    machine: machineCpu(),
  }
}

function cpuBetween(a: ReturnType<typeof snapshot>, b: ReturnType<typeof snapshot>): WindowCpu {
  const wall = (b.at - a.at) / 1000
  const g = process.cpuUsage(a.generator)
  const server = a.server !== null && b.server !== null ? b.server - a.server : null
  const worker = a.worker !== null && b.worker !== null ? b.worker - a.worker : null
  const postgres = a.postgres && b.postgres ? pgDelta(a.postgres, b.postgres) : null
  const generator = (g.user + g.system) / 1e6
  const kernel = b.kernel - a.kernel
  const busy = (b.machine.busy - a.machine.busy) / Math.max(1, b.machine.total - a.machine.total)
  const named = (server ?? 0) + (worker ?? 0) + (postgres ? postgres.bench + postgres.aux : 0) + generator + kernel
  return {
    wall,
    server,
    worker,
    postgres,
    generator,
    kernel,
    machineBusyPct: Math.round(busy * 100),
    otherPctOfCore: server === null ? null : Math.max(0, Math.round(busy * os.cpus().length * 100 - (named / Math.max(0.001, wall)) * 100)),
    walBytes: a.wal !== null && b.wal !== null ? b.wal - a.wal : null,
  }
}

function latency(s: Samples): Latency {
  return { p50: s.quantile(0.5), p99: s.quantile(0.99), max: s.quantile(1) }
}

const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1)

/**
 * The measured stretch [start, end] of a window: CPU read at both ends, the
 * server's RSS sampled in between; `finish()` takes the end reading now if the
 * load stopped early.
 */
function meter(t: LoadTarget, startAt: number, endAt: number) {
  let start: ReturnType<typeof snapshot> | null = null
  let cpu: WindowCpu | null = null
  let maxRss: number | null = null
  let sampler: ReturnType<typeof setInterval> | null = null
  const sample = () => {
    if (!t.sampleMemory) return
    for (const pid of serverPids(t)) {
      const m = readMemory(pid)
      if (m) maxRss = Math.max(maxRss ?? 0, m.rssMB)
    }
  }
  const finish = () => {
    if (sampler) clearInterval(sampler)
    sampler = null
    if (!start || cpu) return
    sample()
    cpu = cpuBetween(start, snapshot(t))
  }
  const startTimer = setTimeout(() => {
    start = snapshot(t)
    sample()
    if (t.sampleMemory) sampler = setInterval(sample, 250)
  }, Math.max(0, startAt - performance.now()))
  const endTimer = setTimeout(finish, Math.max(0, endAt - performance.now()))
  return {
    finish() {
      clearTimeout(startTimer)
      clearTimeout(endTimer)
      finish()
      return { cpu, maxRssMB: maxRss }
    },
  }
}

/**
 * One connection of the generator: one request in flight at a time. With
 * several origins it keeps a keep-alive connection to each and sends each
 * request to the next origin of the round-robin it shares with the others.
 */
class Connection {
  readonly #clients = new Map<string, Client>()
  readonly #pick: () => string

  constructor(pick: () => string) {
    this.#pick = pick
  }

  async request(req: Req): Promise<{ status: number; text: string }> {
    const origin = this.#pick()
    let client = this.#clients.get(origin)
    if (!client) {
      client = new Client(origin, CLIENT_OPTIONS)
      this.#clients.set(origin, client)
    }
    const res = await client.request({ method: req.method, path: req.path, body: req.body, headers: req.headers })
    return { status: res.statusCode, text: await res.body.text() }
  }

  async close(): Promise<void> {
    await Promise.all([...this.#clients.values()].map((c) => c.close()))
  }

  async destroy(): Promise<void> {
    await Promise.all([...this.#clients.values()].map((c) => c.destroy()))
  }
}

/** `count` connections to a target's origin, or round-robin over its origins (one turn per request across all of them). */
function connect(t: LoadTarget, count: number): Connection[] {
  const origins = t.origins && t.origins.length > 0 ? t.origins : [t.origin]
  let turn = 0
  const pick = origins.length === 1 ? () => origins[0]! : () => origins[turn++ % origins.length]!
  return Array.from({ length: count }, () => new Connection(pick))
}

export interface WindowTiming {
  warmupS: number
  durationS: number
}

/**
 * Closed loop: `connections` keep-alive connections, each sending its next
 * request as soon as the previous answer is read; latency from sending.
 */
export async function closedLoop(t: LoadTarget, connections: number, w: WindowTiming): Promise<WindowResult> {
  const clients = connect(t, connections)
  const samples = new Samples()
  const statuses = new Map<string, number>()
  const allStatuses = new Map<string, number>()
  let completed = 0
  let networkErrors = 0
  let issued = 0
  let exhausted = false
  let lastDone = 0
  const measureStart = performance.now() + w.warmupS * 1000
  const endAt = measureStart + w.durationS * 1000
  const m = meter(t, measureStart, endAt)

  async function worker(client: Connection): Promise<void> {
    while (performance.now() < endAt && issued < MAX_REQUESTS) {
      const req = t.next()
      if (req === null) {
        exhausted = true
        return
      }
      issued++
      const started = performance.now()
      try {
        const res = await client.request(req)
        const done = performance.now()
        bump(allStatuses, String(res.status))
        t.onResponse?.(res.status, res.text)
        if (done >= measureStart && done <= endAt) {
          samples.add(done - started)
          completed++
          bump(statuses, String(res.status))
          lastDone = done
        }
      } catch {
        networkErrors++
      }
    }
  }

  let measured: ReturnType<ReturnType<typeof meter>['finish']>
  try {
    await Promise.all(clients.map(worker))
  } finally {
    // The workers may all stop before the end timer's turn (the source ran dry): the reading is taken here then.
    measured = m.finish()
    await Promise.all(clients.map((c) => c.close()))
  }
  const windowEnd = exhausted ? Math.min(endAt, lastDone) : endAt
  const seconds = Math.max(0.001, (windowEnd - measureStart) / 1000)
  return {
    mode: 'closed',
    connections,
    completed,
    seconds,
    perSecond: completed / seconds,
    latencyMs: latency(samples),
    statuses: Object.fromEntries(statuses),
    allStatuses: Object.fromEntries(allStatuses),
    networkErrors,
    exhausted,
    cpu: measured.cpu,
    maxRssMB: measured.maxRssMB,
    open: null,
  }
}

/**
 * Open loop: arrivals at a constant `rate` per second on a 1 ms timer,
 * independent of the answers. Each takes a free connection from a pool of
 * `connections`, else waits in a FIFO (at most MAX_QUEUE_S of arrivals;
 * beyond that it is dropped and counted). Latency runs from the scheduled start, so a
 * slow answer cannot hide the requests it delays (no coordinated omission).
 * Arrivals scheduled in the window are awaited after it: those still queued
 * DRAIN_S after it are never sent; every request sent is awaited (the
 * client's timeouts bound it), so a view the server saw is never left uncounted.
 */
export async function openLoop(t: LoadTarget, rate: number, connections: number, w: WindowTiming): Promise<WindowResult> {
  const free = connect(t, connections)
  const all = [...free]
  const queue: number[] = []
  let queueHead = 0
  const maxQueue = Math.max(1_000, Math.ceil(rate * MAX_QUEUE_S))
  const samples = new Samples()
  const sendSamples = new Samples()
  const statuses = new Map<string, number>()
  const allStatuses = new Map<string, number>()
  let completed = 0
  let networkErrors = 0
  let exhausted = false
  let inFlight = 0
  let scheduledTotal = 0
  let scheduled = 0
  let late = 0
  let dropped = 0
  let answeredScheduled = 0
  const t0 = performance.now()
  const measureStart = t0 + w.warmupS * 1000
  const endAt = measureStart + w.durationS * 1000
  const inWindow = (at: number) => at >= measureStart && at < endAt
  const m = meter(t, measureStart, endAt)
  let wake: (() => void) | null = null
  /** Past DRAIN_S after the window: queued arrivals are no longer sent. */
  let givenUp = false

  const send = (client: Connection, due: number) => {
    const req = t.next()
    if (req === null) {
      exhausted = true
      free.push(client)
      return
    }
    const started = performance.now()
    if (inWindow(due) && started - due > LATE_MS) late++
    inFlight++
    const settle = (status: number | null, text: string) => {
      const done = performance.now()
      inFlight--
      if (status === null) networkErrors++
      else {
        bump(allStatuses, String(status))
        t.onResponse?.(status, text)
        if (done >= measureStart && done <= endAt) {
          completed++
          bump(statuses, String(status))
        }
        if (inWindow(due)) {
          samples.add(done - due)
          sendSamples.add(done - started)
          answeredScheduled++
        }
      }
      if (queueHead < queue.length && !givenUp) send(client, queue[queueHead++]!)
      else free.push(client)
      if (queueHead > 10_000 && queueHead * 2 > queue.length) {
        queue.splice(0, queueHead)
        queueHead = 0
      }
      wake?.()
    }
    void (async () => {
      let status: number | null = null
      let text = ''
      try {
        const res = await client.request(req)
        text = res.text
        status = res.status
      } catch {
        // counted as a network error by settle
      }
      settle(status, text)
    })()
  }

  const arrive = (due: number) => {
    if (inWindow(due)) scheduled++
    const client = free.pop()
    if (client) send(client, due)
    else if (queue.length - queueHead < maxQueue) queue.push(due)
    else if (inWindow(due)) dropped++
  }

  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now()
      const due = Math.min(Math.floor(((Math.min(now, endAt) - t0) / 1000) * rate), MAX_REQUESTS)
      while (scheduledTotal < due && !exhausted) arrive(t0 + (scheduledTotal++ * 1000) / rate)
      if (now >= endAt || exhausted) resolve()
      else setTimeout(tick, 1)
    }
    tick()
  })
  const measured = m.finish()
  // Drain: what was scheduled in the window is sent (still queued after DRAIN_S: never sent) and every request sent is answered.
  const drainUntil = performance.now() + DRAIN_S * 1000
  const pending = () => inFlight > 0 || (!givenUp && !exhausted && queueHead < queue.length)
  while (pending()) {
    if (performance.now() >= drainUntil) givenUp = true
    await new Promise<void>((r) => {
      wake = r
      setTimeout(r, 50)
    })
    wake = null
  }
  await Promise.all(all.map((c) => c.destroy()))
  const seconds = w.durationS
  return {
    mode: 'open',
    connections,
    completed,
    seconds,
    perSecond: completed / seconds,
    latencyMs: latency(samples),
    statuses: Object.fromEntries(statuses),
    allStatuses: Object.fromEntries(allStatuses),
    networkErrors,
    exhausted,
    cpu: measured.cpu,
    maxRssMB: measured.maxRssMB,
    open: {
      offeredPerSecond: rate,
      scheduled,
      late,
      dropped,
      unfinished: scheduled - dropped - answeredScheduled,
      sendLatencyMs: latency(sendSamples),
    },
  }
}
