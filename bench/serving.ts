/**
 * Serving benchmark: decisions/s and billable views/s of the real service, on
 * each store, next to a plain node:http BASELINE measured in the same run with
 * the same load generator. A benchmark, not a test: it reports, it never fails
 * on a figure.
 *
 *   npm run bench                                   # baseline + embedded store
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench   # + PostgreSQL
 *   npm run bench -- --duration 20 --connections 64 --stores postgres --cpu-prof .tmp/prof
 *
 * Method (docs/performance.md): a closed loop of N keep-alive connections
 * (undici Clients, one request in flight each); throughput = responses completed
 * in the measured windows / their total length; latency percentiles are exact
 * (every sample of the windows, sorted). The baseline runs throughout; each phase
 * of each store is measured in --windows short windows that alternate with the
 * baseline's (the order swapped every round, each window after a short warm-up),
 * so the machine's drift weighs on both sides of a ratio alike, and every store
 * is compared with its own interleaved baseline.
 * Each target runs as its own child process; only loopback addresses are used.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { Client } from 'undici'
import { positiveSetting } from '../tools/lib/args.ts'
import { childrenCpuSeconds, familyDelta, machineCpu, processCpuSeconds } from '../tools/lib/cpu.ts'
import { jsonObject, jsonRequest, viewerAddress } from '../tools/lib/http.ts'
import { createDatabase, postmasterPid } from '../tools/lib/postgres.ts'
import { freePort, killChildren, onInterrupt, root, spawnNode, stopProcess, waitHealthy, type Proc } from '../tools/lib/processes.ts'
import { Samples, type LatencySummary } from '../tools/lib/stats.ts'

const ADMIN_TOKEN = 'bench-admin-token-0123456789'
const CLOCK_START = '2026-11-02T09:00:00Z' // a Monday morning: no job falls due during a run
const COUNTRIES = ['US', 'DE', 'GB', 'IN', 'BR', 'FR', 'CA', 'JP', null] as const
const SURFACES = ['extension', 'terminal'] as const
/** Unmeasured seconds before each measured window (each closed loop opens its connections afresh). */
const WINDOW_WARMUP_S = 0.5

// ---------------------------------------------------------------------------
// Settings

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    windows: { type: 'string' },
    stores: { type: 'string' },
    'cpu-prof': { type: 'string' },
    out: { type: 'string' },
    help: { type: 'boolean' },
  },
  strict: true,
})
if (args.help) {
  process.stdout.write(`npm run bench -- [--duration S] [--warmup S] [--windows N] [--connections N] [--stores embedded,postgres] [--cpu-prof DIR] [--out FILE]

  --duration S      TOTAL measured seconds per target per phase, split into the windows (default $BENCH_DURATION_S or 10)
  --warmup S        unmeasured warm-up seconds per target before each phase, plus ${WINDOW_WARMUP_S}s before each window (default $BENCH_WARMUP_S or 2)
  --windows N       measured windows per target per phase, alternating with the baseline's (default $BENCH_WINDOWS or 5)
  --connections N   concurrent keep-alive connections, one request in flight each (default $BENCH_CONNECTIONS or 64)
  --stores LIST     which stores to run (default: embedded, plus postgres when BENCH_DATABASE_URL or TEST_DATABASE_URL is set)
  --cpu-prof DIR    start the service with --cpu-prof; profiles go to DIR/<store>/ (the main thread's is the largest file)
  --out FILE        results JSON (default .tmp/bench-results.json)

  BENCH_IDLE_WAIT_S  before each store, wait up to this long for an idle machine (default 90; 0: don't wait)
`)
  process.exit(0)
}
const DURATION_S = positiveSetting(args.duration, 'BENCH_DURATION_S', 10)
const WARMUP_S = positiveSetting(args.warmup, 'BENCH_WARMUP_S', 2)
const CONNECTIONS = Math.floor(positiveSetting(args.connections, 'BENCH_CONNECTIONS', 64))
/** Measured windows per target per phase; the baseline's alternate with the service's. */
const WINDOWS = Math.max(1, Math.floor(positiveSetting(args.windows, 'BENCH_WINDOWS', 5)))
const WINDOW_S = DURATION_S / WINDOWS
const PG_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || null
const STORES = (args.stores ?? (PG_URL ? 'embedded,postgres' : 'embedded')).split(',').map((s) => s.trim()).filter(Boolean)
for (const s of STORES) if (s !== 'embedded' && s !== 'postgres') throw new Error(`--stores: unknown store "${s}"`)
if (STORES.includes('postgres') && !PG_URL) throw new Error('--stores postgres needs BENCH_DATABASE_URL or TEST_DATABASE_URL')
const CPU_PROF_DIR = args['cpu-prof'] ?? null
/** How long to wait for other work on the machine to finish before measuring a store (0: don't wait). */
const IDLE_WAIT_S = process.env.BENCH_IDLE_WAIT_S === undefined ? 90 : Number(process.env.BENCH_IDLE_WAIT_S)
const OUT = args.out ?? join(root, '.tmp', 'bench-results.json')
/** Upper bound of requests per closed loop, i.e. per window (a closed loop is time-bound already; this bounds it in count too). */
const MAX_REQUESTS_PER_PHASE = 5_000_000

// ---------------------------------------------------------------------------
// Clean-up

const cleanups: (() => Promise<void>)[] = []

// ---------------------------------------------------------------------------
// The load generator: a closed loop over N keep-alive connections

interface Req {
  method: 'GET' | 'POST'
  path: string
  body?: string
  headers: Record<string, string>
}

/** CPU used during the measured windows, in % of ONE core (the machine has os.cpus().length of them). */
interface CpuShare {
  /** The server process (the service or the baseline). */
  server: number | null
  /** PostgreSQL: every process of the local server (backends, WAL writer, checkpointer, autovacuum…; PostgreSQL store only). */
  database: number | null
  /** The load generator (this process). */
  loadGenerator: number
  /** Kernel threads (I/O completion and journaling of PostgreSQL's fsyncs, …). */
  kernel: number
  /** Everything else on the machine (other sessions' work, interrupts). */
  other: number | null
  /** The whole machine, in % of ALL cores. */
  machineBusyPct: number
}

/** What a closed loop counts in its measured window, and a phase over all its windows. */
interface Counts {
  /** Responses completed inside the measured window(s). */
  requests: number
  /** Length of the measured window(s) (a window is shortened to its last response when the source ran dry). */
  seconds: number
  statuses: Record<string, number>
  /** Responses by status including every warm-up (what reached the server). */
  allStatuses: Record<string, number>
  networkErrors: number
  /** The request source ran dry before a window ended. */
  exhausted: boolean
}

/** One target's phase: its measured windows merged. */
export interface PhaseResult extends Counts {
  perSecond: number
  latencyMs: LatencySummary & { p90: number | null }
  cpu: CpuShare | null
}

/** Raw CPU readings over measured windows: summed across windows, turned into shares only at the end. */
interface CpuSeconds {
  /** Wall-clock seconds between the readings. */
  wall: number
  server: number | null
  database: number | null
  loadGenerator: number
  kernel: number
  /** os.cpus() time units (ms), all cores. */
  machineBusy: number
  machineTotal: number
}

/** What one closed loop returns: its measured window, raw. */
interface LoopResult extends Counts {
  cpu: CpuSeconds | null
}

/** What to load a target with: everything a closed loop needs but its timing. */
interface LoopTarget {
  origin: string
  next: () => Req | null
  onResponse?: (status: number, body: string) => void
  serverPid?: number
  /** PostgreSQL's postmaster: its children (backends, WAL writer, autovacuum workers…) are charged as "database" CPU. */
  postmasterPid?: number | null
}

interface LoopOptions extends LoopTarget {
  warmupS: number
  durationS: number
  /** Where the latencies of the measured window go (shared by the windows of a phase); a fresh one when absent. */
  samples?: Samples
}

function cpuSnapshot(serverPid: number | undefined, postmasterPid: number | null | undefined) {
  return {
    at: performance.now(),
    client: process.cpuUsage(),
    server: processCpuSeconds(serverPid),
    database: postmasterPid ? childrenCpuSeconds(postmasterPid) : null,
    kernel: childrenCpuSeconds(2).get(2) ?? 0,
    machine: machineCpu(),
  }
}

/**
 * Closed loop: CONNECTIONS keep-alive connections, each sending its next
 * request as soon as the previous answer is read, for warmupS (not measured)
 * then durationS (measured: responses completed inside the window).
 */
async function closedLoop(o: LoopOptions): Promise<LoopResult> {
  const clients = Array.from({ length: CONNECTIONS }, () => new Client(o.origin, { pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 30_000, bodyTimeout: 30_000 }))
  const samples = o.samples ?? new Samples()
  let measured = 0
  const statuses = new Map<string, number>()
  const allStatuses = new Map<string, number>()
  let networkErrors = 0
  let issued = 0
  let exhausted = false
  let lastDone = 0
  const t0 = performance.now()
  const measureStart = t0 + o.warmupS * 1000
  const endAt = measureStart + o.durationS * 1000

  let start: ReturnType<typeof cpuSnapshot> | null = null
  let cpu: CpuSeconds | null = null
  const startTimer = setTimeout(
    () => {
      start = cpuSnapshot(o.serverPid, o.postmasterPid)
    },
    Math.max(0, measureStart - performance.now()),
  )
  const takeCpu = () => {
    if (!start || cpu) return
    const end = cpuSnapshot(o.serverPid, o.postmasterPid)
    const c = process.cpuUsage(start.client)
    cpu = {
      wall: (end.at - start.at) / 1000,
      server: end.server !== null && start.server !== null ? end.server - start.server : null,
      database: end.database !== null && start.database !== null ? familyDelta(start.database, end.database) : null,
      loadGenerator: (c.user + c.system) / 1e6,
      kernel: end.kernel - start.kernel,
      machineBusy: end.machine.busy - start.machine.busy,
      machineTotal: end.machine.total - start.machine.total,
    }
  }
  const endTimer = setTimeout(takeCpu, Math.max(0, endAt - performance.now()))

  async function worker(client: Client): Promise<void> {
    for (;;) {
      if (performance.now() >= endAt) return
      if (issued >= MAX_REQUESTS_PER_PHASE) return
      const req = o.next()
      if (req === null) {
        exhausted = true
        return
      }
      issued++
      const started = performance.now()
      try {
        const res = await client.request({ method: req.method, path: req.path, body: req.body, headers: req.headers })
        const text = await res.body.text()
        const done = performance.now()
        const key = String(res.statusCode)
        allStatuses.set(key, (allStatuses.get(key) ?? 0) + 1)
        o.onResponse?.(res.statusCode, text)
        if (done >= measureStart && done <= endAt) {
          samples.add(done - started)
          measured++
          statuses.set(key, (statuses.get(key) ?? 0) + 1)
          lastDone = done
        }
      } catch {
        networkErrors++
      }
    }
  }

  try {
    await Promise.all(clients.map(worker))
  } finally {
    clearTimeout(startTimer)
    clearTimeout(endTimer)
    // The workers may all stop before the end timer gets its turn: take the reading here then.
    takeCpu()
    await Promise.all(clients.map((c) => c.close()))
  }
  const windowEnd = exhausted ? Math.min(endAt, lastDone) : endAt
  return {
    requests: measured,
    seconds: Math.max(0, (windowEnd - measureStart) / 1000),
    statuses: Object.fromEntries(statuses),
    allStatuses: Object.fromEntries(allStatuses),
    networkErrors,
    exhausted,
    cpu,
  }
}

function addCounts(into: Record<string, number>, from: Record<string, number>): void {
  for (const [k, n] of Object.entries(from)) into[k] = (into[k] ?? 0) + n
}

const sumOrNull = (a: number | null, b: number | null) => (a === null || b === null ? null : a + b)

/** CPU shares over windows whose raw readings were summed: CPU seconds / wall seconds, in % of one core. */
function cpuShare(c: CpuSeconds): CpuShare {
  const pctOfCore = (seconds: number) => Math.round((seconds / Math.max(0.001, c.wall)) * 100)
  const server = c.server === null ? null : pctOfCore(c.server)
  const database = c.database === null ? null : pctOfCore(c.database)
  const loadGenerator = pctOfCore(c.loadGenerator)
  const kernel = pctOfCore(c.kernel)
  const busy = c.machineBusy / Math.max(1, c.machineTotal)
  const machineCores = Math.round(busy * os.cpus().length * 100)
  return {
    server,
    database,
    loadGenerator,
    kernel,
    other: server === null ? null : Math.max(0, machineCores - server - (database ?? 0) - loadGenerator - kernel),
    machineBusyPct: Math.round(busy * 100),
  }
}

/**
 * One target's phase, accumulated window by window: counts and CPU seconds are
 * summed, latencies go to one shared Samples (exact percentiles over all windows).
 */
class Phase {
  readonly samples = new Samples()
  #requests = 0
  #seconds = 0
  #statuses: Record<string, number> = {}
  #allStatuses: Record<string, number> = {}
  #networkErrors = 0
  #exhausted = false
  #cpu: CpuSeconds | null = null

  /** A loop that is not part of the measurement (a warm-up, the probe): only what reached the server counts. */
  addUnmeasured(r: LoopResult): void {
    addCounts(this.#allStatuses, r.allStatuses)
    this.#networkErrors += r.networkErrors
  }

  /** A measured window (its latencies already went to this.samples). */
  addWindow(r: LoopResult): void {
    this.addUnmeasured(r)
    this.#requests += r.requests
    this.#seconds += r.seconds
    addCounts(this.#statuses, r.statuses)
    this.#exhausted ||= r.exhausted
    if (!r.cpu) return
    const a = this.#cpu
    this.#cpu = !a
      ? { ...r.cpu }
      : {
          wall: a.wall + r.cpu.wall,
          server: sumOrNull(a.server, r.cpu.server),
          database: sumOrNull(a.database, r.cpu.database),
          loadGenerator: a.loadGenerator + r.cpu.loadGenerator,
          kernel: a.kernel + r.cpu.kernel,
          machineBusy: a.machineBusy + r.cpu.machineBusy,
          machineTotal: a.machineTotal + r.cpu.machineTotal,
        }
  }

  result(): PhaseResult {
    const seconds = Math.max(0.001, this.#seconds)
    return {
      requests: this.#requests,
      seconds: Math.round(seconds * 100) / 100,
      perSecond: Math.round((this.#requests / seconds) * 10) / 10,
      latencyMs: { ...this.samples.summary(), p90: this.samples.quantile(0.9) },
      statuses: { ...this.#statuses },
      allStatuses: { ...this.#allStatuses },
      networkErrors: this.#networkErrors,
      exhausted: this.#exhausted,
      cpu: this.#cpu ? cpuShare(this.#cpu) : null,
    }
  }
}

/** An unmeasured closed loop of `seconds` on a target, counted in its phase's allStatuses. */
async function warmUp(phase: Phase, target: LoopTarget, seconds: number): Promise<void> {
  phase.addUnmeasured(await closedLoop({ ...target, warmupS: seconds, durationS: 0 }))
}

/**
 * WINDOWS rounds of one measured window on each of two targets (a first in
 * even rounds, b first in odd ones), each window WINDOW_S long after
 * WINDOW_WARMUP_S unmeasured: the machine's drift weighs on both alike.
 */
async function measureInterleaved(a: Phase, b: Phase, targetA: LoopTarget, targetB: LoopTarget): Promise<void> {
  const measureWindow = async (phase: Phase, target: LoopTarget) =>
    phase.addWindow(await closedLoop({ ...target, warmupS: WINDOW_WARMUP_S, durationS: WINDOW_S, samples: phase.samples }))
  for (let round = 0; round < WINDOWS; round++) {
    if (round % 2 === 0) {
      await measureWindow(a, targetA)
      await measureWindow(b, targetB)
    } else {
      await measureWindow(b, targetB)
      await measureWindow(a, targetA)
    }
  }
}

/**
 * Waits (at most maxS) until the machine is nearly idle, so other work on it
 * (another session's test suite…) does not skew a target; returns the busy
 * share (% of all cores) of the last one-second sample.
 */
async function waitIdle(maxS = IDLE_WAIT_S): Promise<number> {
  for (let waited = 0; ; waited++) {
    const a = machineCpu()
    await new Promise((r) => setTimeout(r, 1_000))
    const b = machineCpu()
    const busyPct = Math.round(((b.busy - a.busy) / Math.max(1, b.total - a.total)) * 100)
    if (busyPct <= 10) return busyPct
    if (waited + 1 >= maxS) {
      process.stderr.write(`  machine ${busyPct}% busy: measuring anyway (see cpu "other")\n`)
      return busyPct
    }
    if (waited === 0) process.stderr.write(`  waiting up to ${maxS}s for the machine to go idle (${busyPct}% busy)…\n`)
  }
}

// ---------------------------------------------------------------------------
// Requests

let requestCounter = 0

/** A decision from a distinct viewer behind a distinct address: abuse limits stay out of the way. */
function decisionRequest(prefix: string): Req {
  const i = requestCounter++
  const country = COUNTRIES[i % COUNTRIES.length]
  const surface = SURFACES[Math.floor(i / COUNTRIES.length) % SURFACES.length]!
  return {
    method: 'POST',
    path: '/serve/v1/decisions',
    body: JSON.stringify({ surface, viewer_id: `${prefix}-${i.toString(36)}`, ...(country ? { country } : {}) }),
    headers: { 'content-type': 'application/json', 'x-forwarded-for': viewerAddress(i % 130_000) },
  }
}

const VIEW_BODY = JSON.stringify({ dwell_ms: 10_000 })
function viewRequest(impressionId: string): Req {
  const i = requestCounter++
  return {
    method: 'POST',
    path: `/serve/v1/impressions/${encodeURIComponent(impressionId)}/view`,
    body: VIEW_BODY,
    headers: { 'content-type': 'application/json', 'x-forwarded-for': viewerAddress(i % 130_000) },
  }
}

/** A set-up call from the operator's address; the answer's JSON object ({} for anything else). */
async function api(origin: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const r = await jsonRequest(origin, method, path, { body, headers: { 'x-forwarded-for': '198.19.255.250', ...headers } })
  return { status: r.status, body: jsonObject(r.text), text: r.text }
}

async function must(p: ReturnType<typeof api>, status: number, what: string): Promise<Record<string, unknown>> {
  const r = await p
  if (r.status !== status) throw new Error(`${what}: expected ${status}, got ${r.status}: ${r.text.slice(0, 300)}`)
  return r.body
}

// ---------------------------------------------------------------------------
// One store: decisions, then billable views, each interleaved with the baseline

interface Target {
  decisions: PhaseResult
  views: PhaseResult
  fill: { filled: number; noFill: number }
  /** Extra offers made (unmeasured) so the pool lasts the measured views windows (service only). */
  topUp: { offers: number; seconds: number } | null
  /** Views answered 204 (probe, warm-ups and windows) vs the billed count the advertiser API shows (service only). */
  verification: { viewsAnswered204: number; billedDelta: number; ok: boolean } | null
  rateLimited: number
  /** Machine busy share (all cores) just before the store was measured (the same reading for its baseline). */
  idleBeforeStartPct: number
  serverWarnings: string[]
}

/** The campaigns of the benchmark: four different winners across surfaces and countries, two bids that never win. */
const BENCH_CAMPAIGNS = [
  { ad_line: 'Bench: extension line for North America', cpm_usd: 8, target_surface: 'extension', target_countries: ['US', 'CA'] },
  { ad_line: 'Bench: terminal line for Europe', cpm_usd: 7, target_surface: 'terminal', target_countries: ['DE', 'GB', 'FR'] },
  { ad_line: 'Bench: extension line, global', cpm_usd: 5, target_surface: 'extension' },
  { ad_line: 'Bench: terminal line, global', cpm_usd: 4, target_surface: 'terminal' },
  { ad_line: 'Bench: a lower extension bid', cpm_usd: 2, target_surface: 'extension' },
  { ad_line: 'Bench: a lower terminal bid for India', cpm_usd: 1, target_surface: 'terminal', target_countries: ['IN'] },
] as const
const CAMPAIGN_IMPRESSIONS = 100_000

/** The baseline's side of one store's measurement: decisions fill a pool of ids, views reuse it round-robin (it keeps no state). */
function baselineTargets(baseline: Proc) {
  const pool: string[] = []
  const fill = { filled: 0, noFill: 0 }
  let cursor = 0
  const common = { origin: baseline.origin, serverPid: baseline.child.pid }
  const decisions: LoopTarget = {
    ...common,
    next: () => decisionRequest('bench-baseline'),
    onResponse: (status, body) => {
      if (status !== 200) return
      fill.filled++
      pool.push((JSON.parse(body) as { impression_id: string }).impression_id)
    },
  }
  const views: LoopTarget = { ...common, next: () => viewRequest(pool[cursor++ % pool.length]!) }
  return { fill, decisions, views }
}

/** Sets up the service on one store and measures it, each phase in windows alternating with the (running) baseline's. */
async function benchService(
  label: string,
  env: Record<string, string>,
  baseline: Proc,
  postmaster?: () => Promise<number | null>,
): Promise<{ service: Target; baseline: Target }> {
  const port = await freePort()
  // One directory per store: every thread writes its own profile (tsx's loader runs in a worker; the service's is the largest).
  const nodeArgs = CPU_PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir', join(CPU_PROF_DIR, label)] : []
  const proc = spawnNode('src/start/server.ts', { ...env, PORT: String(port) }, nodeArgs)
  try {
    await waitHealthy(proc, `service (${label})`)
    const origin = proc.origin
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
    await must(
      api(origin, 'PATCH', '/admin/v1/config', {
        outstanding_balance_cap_usd: null,
        max_blocks: 100,
        max_total_usd: 100_000,
        create_rate_limit_per_min: 1_000,
        read_rate_limit_per_min: 100_000,
      }, admin),
      200,
      'PATCH /admin/v1/config',
    )
    const account = await must(api(origin, 'POST', '/admin/v1/accounts', { email: `bench-${label}@example.com` }, admin), 201, 'POST /admin/v1/accounts')
    const userId = String(account.user_id)
    await must(api(origin, 'POST', `/admin/v1/accounts/${userId}/write-approval`, { approved: true }, admin), 200, 'write-approval')
    await must(api(origin, 'POST', `/admin/v1/accounts/${userId}/terms`, { accepted: true }, admin), 200, 'terms')
    await must(api(origin, 'POST', `/admin/v1/accounts/${userId}/billing`, { mode: 'weekly_autopay', card_number: '4242424242424242' }, admin), 200, 'billing')
    const auth = { 'x-service-user-id': userId, 'x-service-api-key': String(account.api_key) }
    for (const [i, c] of BENCH_CAMPAIGNS.entries()) {
      const created = await must(
        api(origin, 'POST', '/v1/campaigns', { ...c, destination_url: `https://example.com/bench/${i}`, impressions: CAMPAIGN_IMPRESSIONS, idempotency_key: `bench-${i}` }, auth),
        201,
        `POST /v1/campaigns (${c.ad_line})`,
      )
      if (created.moderation_status === 'pending') {
        await must(api(origin, 'POST', `/admin/v1/campaigns/${String(created.campaign_id)}/moderation`, { status: 'approved' }, admin), 200, 'moderation')
      }
    }
    const billedTotal = async () => {
      const list = await must(api(origin, 'GET', '/v1/campaigns', undefined, auth), 200, 'GET /v1/campaigns')
      return (list.campaigns as { impressions_served: number }[]).reduce((s, c) => s + c.impressions_served, 0)
    }

    // Phase 1: decisions. Every filled offer goes to the view pool (within each campaign's inventory).
    const pool: string[] = []
    const perCampaign = new Map<string, number>()
    const cap = CAMPAIGN_IMPRESSIONS - 1_000
    let filled = 0
    let noFill = 0
    const harvest = (status: number, body: string) => {
      if (status === 204) noFill++
      if (status !== 200) return
      filled++
      const d = JSON.parse(body) as { impression_id: string; ad_line: string }
      const n = perCampaign.get(d.ad_line) ?? 0
      if (n < cap) {
        perCampaign.set(d.ad_line, n + 1)
        pool.push(d.impression_id)
      }
    }
    const common = { origin, serverPid: proc.child.pid, postmasterPid: postmaster ? await postmaster() : null }
    const base = baselineTargets(baseline)
    const decisions = { baseline: new Phase(), service: new Phase() }
    const serviceDecisions: LoopTarget = { ...common, next: () => decisionRequest(`bench-${label}`), onResponse: harvest }
    const idleBeforeStartPct = await waitIdle()
    process.stderr.write(`  ${label}: decisions, ${WINDOWS} windows interleaved with the baseline…\n`)
    await warmUp(decisions.baseline, base.decisions, WARMUP_S)
    await warmUp(decisions.service, serviceDecisions, WARMUP_S)
    await measureInterleaved(decisions.baseline, decisions.service, base.decisions, serviceDecisions)

    // Phase 2: billable views. Ten seconds of service time make every offer's 10 s dwell real.
    await must(api(origin, 'POST', '/admin/v1/clock', { advance_seconds: 10 }, admin), 200, 'POST /admin/v1/clock')
    await new Promise((r) => setTimeout(r, 1_000)) // let the offers' background writes settle
    const before = await billedTotal()
    let cursor = 0
    const serviceViews: LoopTarget = { ...common, next: () => (cursor < pool.length ? viewRequest(pool[cursor++]!) : null) }
    const views = { baseline: new Phase(), service: new Phase() }
    // The warm-up of the views doubles as a probe of their rate: when the pool
    // cannot last the measured windows (and their warm-ups), more offers are made first (unmeasured).
    process.stderr.write(`  ${label}: billable views, warm-up (pool of ${pool.length} offers)…\n`)
    const probe = await closedLoop({ ...serviceViews, warmupS: 0, durationS: WARMUP_S })
    views.service.addUnmeasured(probe)
    const needed = Math.ceil((probe.requests / Math.max(0.001, probe.seconds)) * (DURATION_S + WINDOWS * WINDOW_WARMUP_S + 1) * 1.5)
    let topUp: Target['topUp'] = null
    if (pool.length - cursor < needed) {
      const want = needed - (pool.length - cursor)
      process.stderr.write(`  ${label}: making ${want} more offers for the measured windows…\n`)
      const t = performance.now()
      let made = 0
      await closedLoop({
        origin,
        warmupS: 0,
        durationS: 120,
        next: () => (made++ < want ? decisionRequest(`bench-${label}-more`) : null),
        onResponse: harvest,
      })
      topUp = { offers: want, seconds: Math.round((performance.now() - t) / 100) / 10 }
      await must(api(origin, 'POST', '/admin/v1/clock', { advance_seconds: 10 }, admin), 200, 'POST /admin/v1/clock')
      await new Promise((r) => setTimeout(r, 1_000))
    }
    await warmUp(views.baseline, base.views, WARMUP_S)
    process.stderr.write(`  ${label}: billable views, ${WINDOWS} windows interleaved with the baseline…\n`)
    await measureInterleaved(views.baseline, views.service, base.views, serviceViews)
    const after = await billedTotal()

    const service = { decisions: decisions.service.result(), views: views.service.result() }
    const answered204 = service.views.allStatuses['204'] ?? 0
    const baselineResult = { decisions: decisions.baseline.result(), views: views.baseline.result() }
    return {
      service: {
        ...service,
        fill: { filled, noFill },
        topUp,
        verification: { viewsAnswered204: answered204, billedDelta: after - before, ok: after - before === answered204 },
        rateLimited: (service.decisions.allStatuses['429'] ?? 0) + (service.views.allStatuses['429'] ?? 0),
        idleBeforeStartPct,
        serverWarnings: proc.stderrTail.slice(-5),
      },
      baseline: {
        ...baselineResult,
        fill: base.fill,
        topUp: null,
        verification: null,
        rateLimited: 0,
        idleBeforeStartPct,
        serverWarnings: baseline.stderrTail.slice(-5),
      },
    }
  } finally {
    await stopProcess(proc)
  }
}

/** Starts the baseline server; it runs for the whole bench (stopped by main). */
async function startBaseline(): Promise<Proc> {
  const port = await freePort()
  const proc = spawnNode('bench/baseline-server.ts', { PATH: process.env.PATH ?? '', PORT: String(port), HOST: '127.0.0.1' })
  try {
    await waitHealthy(proc, 'baseline server')
  } catch (err) {
    await stopProcess(proc)
    throw err
  }
  return proc
}

// ---------------------------------------------------------------------------
// Stores

function serviceEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {}
  // The service's own settings come only from here (no DATABASE_URL / REDIS_URL leaking in from the shell).
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'NODE_OPTIONS']) if (process.env[k]) env[k] = process.env[k]!
  return { ...env, HOST: '127.0.0.1', CLOCK: 'manual', CLOCK_START, TRUST_PROXY: '1', LOG_LEVEL: 'warn', ADMIN_TOKEN, ...extra }
}

async function withEmbedded<T>(fn: (env: Record<string, string>) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(os.tmpdir(), 'adapi-bench-'))
  const cleanup = async () => rmSync(dir, { recursive: true, force: true })
  cleanups.push(cleanup)
  try {
    return await fn(serviceEnv({ DATA_DIR: dir }))
  } finally {
    await cleanup()
  }
}

async function withPostgres<T>(adminUrl: string, fn: (env: Record<string, string>, postmaster: () => Promise<number | null>) => Promise<T>): Promise<T> {
  const database = await createDatabase(adminUrl, 'adapi_bench')
  cleanups.push(database.drop)
  try {
    return await fn(serviceEnv({ DATABASE_URL: database.url }), () => postmasterPid(adminUrl))
  } finally {
    await database.drop()
  }
}

// ---------------------------------------------------------------------------
// Report

const TARGETS = { decisions: 0.5, views: 0.25 } as const

function pct(x: number, base: number): number | null {
  return base > 0 ? Math.round((x / base) * 1000) / 10 : null
}

/** Other work on the machine used more than a quarter of a core during the window: the figure is not clean. */
const CONTENDED_PCT = 25
function contended(r: PhaseResult): boolean {
  return (r.cpu?.other ?? 0) > CONTENDED_PCT
}

/** Per phase, each store's row right under the row of the baseline measured interleaved with it. */
function table(results: Record<string, Target>, baselines: Record<string, Target>): string {
  const rows: string[][] = [['target', 'endpoint', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'vs baseline', 'non-2xx', '429', 'cpu srv/db/gen/krn/other']]
  const row = (name: string, title: string, r: PhaseResult, ratio: string) => {
    const non2xx = Object.entries(r.statuses).filter(([s]) => !s.startsWith('2')).reduce((s, [, n]) => s + n, 0) + r.networkErrors
    rows.push([
      name,
      title,
      r.perSecond.toFixed(0) + (r.exhausted ? '*' : '') + (contended(r) ? '!' : ''),
      String(r.latencyMs.p50),
      String(r.latencyMs.p90),
      String(r.latencyMs.p99),
      ratio,
      String(non2xx),
      String(r.statuses['429'] ?? 0),
      r.cpu ? [r.cpu.server ?? '?', r.cpu.database ?? '-', r.cpu.loadGenerator, r.cpu.kernel, r.cpu.other ?? '?'].join('/') : '?',
    ])
  }
  for (const [phase, title] of [
    ['decisions', 'POST decisions'],
    ['views', 'POST view (billable)'],
  ] as const) {
    for (const [name, t] of Object.entries(results)) {
      const base = baselines[name]![phase]
      row('baseline', title, base, '-')
      row(name, title, t[phase], `${pct(t[phase].perSecond, base.perSecond)}%`)
    }
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
  return rows.map((r) => r.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')).join('\n')
}

async function main(): Promise<void> {
  if (CPU_PROF_DIR) mkdirSync(CPU_PROF_DIR, { recursive: true })
  process.stderr.write(
    `bench: ${CONNECTIONS} connections, ${WARMUP_S}s warm-up + ${DURATION_S}s per target per phase in ${WINDOWS} windows interleaved with the baseline; ` +
      `stores: ${STORES.join(', ')}; ${os.cpus().length} cores\n`,
  )
  const results: Record<string, Target> = {}
  /** Per store: the baseline measured in windows interleaved with that store's. */
  const baselines: Record<string, Target> = {}
  process.stderr.write('baseline (plain node:http), running throughout\n')
  const baseline = await startBaseline()
  try {
    if (STORES.includes('embedded')) {
      process.stderr.write('embedded store (PGlite in a temp DATA_DIR)\n')
      const r = await withEmbedded((env) => benchService('embedded', env, baseline))
      results.embedded = r.service
      baselines.embedded = r.baseline
    }
    if (STORES.includes('postgres') && PG_URL) {
      process.stderr.write('PostgreSQL (a database of its own)\n')
      const r = await withPostgres(PG_URL, (env, pids) => benchService('postgres', env, baseline, pids))
      results.postgres = r.service
      baselines.postgres = r.baseline
    }
  } finally {
    await stopProcess(baseline)
  }

  const ratios: Record<string, { decisionsPct: number | null; billableViewsPct: number | null }> = {}
  for (const [name, t] of Object.entries(results)) {
    const base = baselines[name]!
    ratios[name] = { decisionsPct: pct(t.decisions.perSecond, base.decisions.perSecond), billableViewsPct: pct(t.views.perSecond, base.views.perSecond) }
  }
  const contendedPhases = (prefix: string, targets: Record<string, Target>) =>
    Object.entries(targets).flatMap(([name, t]) => (['decisions', 'views'] as const).filter((p) => contended(t[p])).map((p) => `${prefix}${name}.${p}`))
  const report = {
    generatedAt: new Date().toISOString(),
    machine: { cores: os.cpus().length, cpu: os.cpus()[0]?.model ?? null, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version, platform: `${os.platform()} ${os.release()}` },
    settings: {
      connections: CONNECTIONS,
      warmupSeconds: WARMUP_S,
      durationSeconds: DURATION_S,
      windows: WINDOWS,
      windowWarmupSeconds: WINDOW_WARMUP_S,
      stores: STORES,
      cpuProfileDir: CPU_PROF_DIR,
    },
    targetsOnPostgres: { decisionsPctOfBaseline: TARGETS.decisions * 100, billableViewsPctOfBaseline: TARGETS.views * 100 },
    contended: [...contendedPhases('', results), ...contendedPhases('baselines.', baselines)],
    results,
    baselines,
    ratios,
  }
  mkdirSync(join(OUT, '..'), { recursive: true })
  writeFileSync(OUT, `${JSON.stringify(report, null, 2)}\n`)

  // The marks' legends only when a row carries the mark.
  const phases = [...Object.values(results), ...Object.values(baselines)].flatMap((t) => [t.decisions, t.views])
  const lines = [
    '',
    table(results, baselines),
    '',
    ...(phases.some((r) => r.exhausted) ? ['* the pool of offers ran out before a window ended; the rate is over the shortened windows'] : []),
    ...(phases.some(contended) ? [`! contended: other processes used more than ${CONTENDED_PCT}% of a core during the windows; run again on an idle machine`] : []),
    `cpu: % of ONE core during the windows: server process / PostgreSQL / load generator / kernel threads / everything else (${os.cpus().length} cores = ${os.cpus().length * 100}%)`,
  ]
  for (const [name, t] of Object.entries(results)) {
    if (t.verification) {
      const v = t.verification
      lines.push(`${name}: views answered 204 = ${v.viewsAnswered204}, impressions billed = ${v.billedDelta} → ${v.ok ? 'match' : 'MISMATCH'}; decisions filled ${t.fill.filled}, no fill ${t.fill.noFill}; 429s ${t.rateLimited}`)
    }
  }
  for (const [name, r] of Object.entries(ratios)) {
    const target = name === 'postgres' ? ` (targets on PostgreSQL: decisions >= ${TARGETS.decisions * 100}%, billable views >= ${TARGETS.views * 100}%)` : ''
    lines.push(`${name}: decisions ${r.decisionsPct}% of baseline, billable views ${r.billableViewsPct}% of baseline${target}`)
  }
  lines.push(`results: ${OUT}`)
  process.stdout.write(`${lines.join('\n')}\n`)
}

async function shutdown(): Promise<void> {
  killChildren()
  for (const c of cleanups) await c().catch(() => {})
}

onInterrupt(async (signal) => {
  process.stderr.write(`\nbench: ${signal}, cleaning up\n`)
  await shutdown()
})

main().catch(async (err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  await shutdown()
  process.exit(1)
})
