/**
 * Serving benchmark: CPU time per completed operation, latency at a fixed
 * offered load, peak memory and maximum throughput of the real service's two
 * hot endpoints, on each store, next to a bare node:http server (the baseline)
 * measured in the same run with the same load generator. A benchmark, not a
 * test: it reports figures against the issue-24 targets and fails only when
 * something breaks (and on a billed/answered mismatch of the views).
 *
 *   npm run bench                                   # baseline + embedded store
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench   # + PostgreSQL
 *   npm run bench -- --duration 9 --windows 3 --connections 50,200 --stores postgres --cpu-prof .tmp/prof
 *   npm run bench -- --instances 3                  # 3 web instances and a worker on PostgreSQL, round-robin
 *
 * Method (docs/benchmarks.md, "Serving benchmark"): per store, decisions and
 * then billable views, each as (1) a closed loop at every --connections count
 * and (2) an open loop at --load × the baseline's closed-loop rate; every
 * series is --windows measured windows alternating with the baseline's (the
 * order swapped every round). Then (--attested on, the default) attested
 * billable views: a closed loop at the first connection count, each view with
 * a valid, unspent Privacy Pass token minted beforehand, every window
 * alternating with one of unattested views; the figures are each round's
 * attested window less the unattested one beside it. Modules: bench/lib/load.ts
 * (closed and open loops, CPU readings per window), bench/lib/proc.ts (/proc),
 * bench/lib/figures.ts (medians, targets, tables), bench/lib/workload.ts
 * (requests, the service's set-up), bench/lib/tokens.ts (the tokens). With
 * --instances N (N > 1, PostgreSQL only) the service is N processes with
 * ROLE=web and one with ROLE=worker on one database, the generator sends each
 * request to the next web instance in turn, and the service's CPU per
 * operation is the sum over the web instances (the worker's beside it); RSS
 * is the largest instance's.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { positiveSetting } from '../tools/lib/args.ts'
import { createDatabase, postmasterPid } from '../tools/lib/postgres.ts'
import { buildService, freePort, killChildren, onInterrupt, root, spawnNode, stopProcess, waitHealthy, type Proc } from '../tools/lib/processes.ts'
import { median } from '../tools/lib/stats.ts'
import { detailTable, figure, postgresUs, walPerOp, workerUs, ratios, serverUs, spread, summaryTable, throughputRatios, type Figure, type Series, type Spread } from './lib/figures.ts'
import { closedLoop, LATE_MS, MAX_QUEUE_S, openLoop, type LoadTarget, type Req, type WindowResult } from './lib/load.ts'
import { machineCpu, readMemory, resetPeakMemory } from './lib/proc.ts'
import { ensureIssuerKey, issuerParams, readIssuerKeys, TokenMinter, type IssuerKey } from './lib/tokens.ts'
import { ADMIN_TOKEN, CAMPAIGN_IMPRESSIONS, CLOCK_START, decisionRequest, setUpService, viewRequest, type Operator } from './lib/workload.ts'

/** Unmeasured seconds before each measured window (each window opens its connections afresh). */
const WINDOW_WARMUP_S = 0.5

// ---------------------------------------------------------------------------
// Settings

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    'open-connections': { type: 'string' },
    load: { type: 'string' },
    windows: { type: 'string' },
    stores: { type: 'string' },
    instances: { type: 'string' },
    'cpu-prof': { type: 'string' },
    attested: { type: 'string' },
    out: { type: 'string' },
    help: { type: 'boolean' },
  },
  strict: true,
})
if (args.help) {
  process.stdout.write(`npm run bench -- [--duration S] [--windows N] [--warmup S] [--connections 50,200] [--load F] [--open-connections N] [--stores embedded,postgres] [--instances N] [--attested on|off] [--cpu-prof DIR] [--out FILE]

  --duration S          measured seconds per series (a target at one load), split into the windows (default $BENCH_DURATION_S or 6)
  --windows N           measured windows per series, alternating with the baseline's (default $BENCH_WINDOWS or 3)
  --warmup S            unmeasured warm-up seconds per target before each endpoint's first series, plus ${WINDOW_WARMUP_S}s before every window (default $BENCH_WARMUP_S or 2)
  --connections LIST    closed-loop connection counts, one request in flight each; the first one sets the fixed load and the CPU ratios (default $BENCH_CONNECTIONS or 50,200)
  --load F              the open loop's rate as a share of the baseline's closed-loop rate at the first connection count (default $BENCH_LOAD or 0.5)
  --open-connections N  the open loop's connection pool (default $BENCH_OPEN_CONNECTIONS or 256)
  --stores LIST         which stores to run (default: embedded, plus postgres when BENCH_DATABASE_URL or TEST_DATABASE_URL is set)
  --instances N         N web instances (ROLE=web) and one worker (ROLE=worker) on one PostgreSQL, requests round-robin over the web
                        instances; CPU per operation summed over them (default $BENCH_INSTANCES or 1: one ROLE=all process). N > 1: PostgreSQL only
  --attested on|off     after the billable views, attested billable views (a valid Privacy Pass token each, minted beforehand) in a closed loop at
                        the first connection count, each window beside an unattested one (default $BENCH_ATTESTED or on)
  --cpu-prof DIR        start the service with --cpu-prof; profiles go to DIR/<store>/ (the main thread's is the largest file; DIR/<store>/<instance>/ with --instances)
  --out FILE            results JSON: every window's raw figures (default .tmp/bench-results.json)

  BENCH_IDLE_WAIT_S  before each store, wait up to this long for an idle machine (default 20; 0: don't wait)
`)
  process.exit(0)
}
const DURATION_S = positiveSetting(args.duration, 'BENCH_DURATION_S', 6)
const WARMUP_S = positiveSetting(args.warmup, 'BENCH_WARMUP_S', 2)
const WINDOWS = Math.max(1, Math.floor(positiveSetting(args.windows, 'BENCH_WINDOWS', 3)))
const WINDOW_S = DURATION_S / WINDOWS
const CONNECTIONS = (args.connections ?? process.env.BENCH_CONNECTIONS ?? '50,200').split(',').map((c) => Math.floor(positiveSetting(c.trim(), 'BENCH_CONNECTIONS', 50)))
const FIXED_LOAD_CONNECTIONS = CONNECTIONS[0]!
const LOAD = positiveSetting(args.load, 'BENCH_LOAD', 0.5)
const OPEN_CONNECTIONS = Math.floor(positiveSetting(args['open-connections'], 'BENCH_OPEN_CONNECTIONS', 256))
const PG_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || null
const INSTANCES = Math.floor(positiveSetting(args.instances, 'BENCH_INSTANCES', 1))
const STORES = (args.stores ?? (INSTANCES > 1 ? 'postgres' : PG_URL ? 'embedded,postgres' : 'embedded')).split(',').map((s) => s.trim()).filter(Boolean)
for (const s of STORES) if (s !== 'embedded' && s !== 'postgres') throw new Error(`--stores: unknown store "${s}"`)
// ROLE=web and ROLE=worker share a store only on PostgreSQL (the embedded store is one process's).
if (INSTANCES > 1 && STORES.includes('embedded')) throw new Error('--instances N > 1 runs on PostgreSQL only: --stores postgres')
if (STORES.includes('postgres') && !PG_URL) throw new Error('--stores postgres needs BENCH_DATABASE_URL or TEST_DATABASE_URL')
const CPU_PROF_DIR = args['cpu-prof'] ?? null
const ATTESTED_SETTING = (args.attested ?? process.env.BENCH_ATTESTED ?? 'on').trim().toLowerCase()
if (!['on', 'off'].includes(ATTESTED_SETTING)) throw new Error(`--attested: "on" or "off", got "${ATTESTED_SETTING}"`)
const ATTESTED = ATTESTED_SETTING === 'on'
const IDLE_WAIT_S = process.env.BENCH_IDLE_WAIT_S === undefined ? 20 : Number(process.env.BENCH_IDLE_WAIT_S)
const OUT = args.out ?? join(root, '.tmp', 'bench-results.json')
const TIMING = { warmupS: WINDOW_WARMUP_S, durationS: WINDOW_S }
/** Seconds a series keeps its target busy (its windows and their warm-ups). */
const SERIES_S = WINDOWS * (WINDOW_WARMUP_S + WINDOW_S)

/** Issue 33's CPU targets (issue 24's latency targets), on PostgreSQL, for the medians. */
const TARGETS = {
  serviceCpuPerDecision: 2,
  postgresCpuPerDecision: 0.05,
  serviceCpuPerView: 3,
  postgresCpuPerView: 1.2,
  decisionsP99Ms: 5,
  viewsP99Ms: 25,
  peakRssMB: 250,
  /** Issue 53: an attested view's service CPU beyond an unattested one's, µs. */
  attestedExtraServiceUs: 40,
} as const

const cleanups: (() => Promise<void>)[] = []

// ---------------------------------------------------------------------------
// Series

type Who = 'baseline' | 'service'

/** WINDOWS rounds of one window on each side (the baseline first in even rounds): the machine's drift weighs on both alike. */
async function interleaved(run: (who: Who) => Promise<WindowResult>): Promise<Series> {
  const s: Series = { baseline: [], service: [] }
  for (let round = 0; round < WINDOWS; round++) {
    const order: Who[] = round % 2 === 0 ? ['baseline', 'service'] : ['service', 'baseline']
    for (const who of order) s[who].push(await run(who))
  }
  return s
}

/** One endpoint on one store: closed-loop series at each connection count, then the open loop at the fixed load. */
interface EndpointResult {
  closed: Record<string, Series>
  /** Offered arrivals per second of the open loop (LOAD × the baseline's median closed-loop rate at FIXED_LOAD_CONNECTIONS). */
  fixedRate: number
  open: Series
  /** The service's peak RSS over the open loop's windows (VmHWM reset before them; the largest instance's); null when the reset was refused. */
  openPeakRssMB: number | null
  /** The service's VmHWM just before that reset: its peak so far (set-up, earlier series). */
  peakBeforeOpenRssMB: number | null
}

/** Called before every series of the service with the series so far; `rate` is the open loop's (null for a closed loop). */
type BeforeSeries = (done: Series[], rate: number | null) => Promise<void>

/** The largest peak RSS (VmHWM) of the service's processes; null when one is unreadable. */
function peakRssMB(pids: number[]): number | null {
  const peaks = pids.map((pid) => readMemory(pid)?.peakMB ?? null)
  return peaks.length === 0 || peaks.includes(null) ? null : Math.max(...(peaks as number[]))
}

async function measureEndpoint(label: string, targets: Record<Who, LoadTarget>, serverPids: number[], before?: BeforeSeries): Promise<EndpointResult> {
  const closed: Record<string, Series> = {}
  for (const c of CONNECTIONS) {
    await before?.(Object.values(closed), null)
    process.stderr.write(`  ${label}: closed loop, ${c} connections, ${WINDOWS} windows each side…\n`)
    closed[c] = await interleaved((who) => closedLoop(targets[who], c, TIMING))
  }
  const fixedRate = Math.round(LOAD * median(closed[FIXED_LOAD_CONNECTIONS]!.baseline.map((w) => w.perSecond)))
  await before?.(Object.values(closed), fixedRate)
  process.stderr.write(`  ${label}: open loop at ${fixedRate}/s (${LOAD} × the baseline's rate at ${FIXED_LOAD_CONNECTIONS} connections)…\n`)
  const peakBeforeOpenRssMB = peakRssMB(serverPids)
  const reset = serverPids.map(resetPeakMemory).every(Boolean)
  const open = await interleaved((who) => openLoop(targets[who], fixedRate, OPEN_CONNECTIONS, TIMING))
  return { closed, fixedRate, open, openPeakRssMB: reset ? peakRssMB(serverPids) : null, peakBeforeOpenRssMB }
}

/**
 * Waits (at most maxS) until the machine is nearly idle, so other work on it
 * does not skew a store; returns the busy share (% of all cores) of the last one-second sample.
 */
async function waitIdle(maxS = IDLE_WAIT_S): Promise<number> {
  for (let waited = 0; ; waited++) {
    const a = machineCpu()
    await new Promise((r) => setTimeout(r, 1_000))
    const b = machineCpu()
    const busyPct = Math.round(((b.busy - a.busy) / Math.max(1, b.total - a.total)) * 100)
    if (busyPct <= 10) return busyPct
    if (waited + 1 >= maxS) {
      process.stderr.write(`  machine ${busyPct}% busy: measuring anyway (see "other %core")\n`)
      return busyPct
    }
    if (waited === 0) process.stderr.write(`  waiting up to ${maxS}s for the machine to go idle (${busyPct}% busy)…\n`)
  }
}

// ---------------------------------------------------------------------------
// One store

/**
 * Attested billable views (--attested on): WINDOWS rounds of a window of unattested billable views and one
 * of attested ones side by side (the order swapped every round), closed loop at FIXED_LOAD_CONNECTIONS.
 */
interface AttestedResult {
  /** `baseline`: the unattested views' windows (the reference, not the bare server); `service`: the attested views'. */
  closed: Series
  /** Tokens minted before the windows, in the generator (bench/lib/tokens.ts), and the issuer key's period. */
  tokens: { minted: number; seconds: number; keyPeriod: number }
  /** Wall seconds of the whole phase: offers topped up, tokens minted, the windows. */
  seconds: number
  /** Attested views answered 204 (every window, warm-up included) against the ledger's attested billable impressions. */
  verification: { attestedAnswered204: number; attestedDelta: number; ok: boolean; networkErrors: number }
}

interface StoreResult {
  decisions: EndpointResult
  views: EndpointResult
  attested: AttestedResult | null
  fill: { filled: number; noFill: number }
  /** Offers made (unmeasured) so the pool lasts the views' series. */
  topUps: { offers: number; seconds: number }[]
  /** Views answered 204 (every window, warm-up and drain) against the billed count the advertiser API shows. */
  verification: { viewsAnswered204: number; billedDelta: number; ok: boolean; viewNetworkErrors: number }
  rateLimited: number
  /** With --instances: the web instances' count and the worker's peak RSS over the run; null for one process. */
  workers: { webInstances: number; peakRssMB: number | null } | null
  idleBeforeStartPct: number
  serverWarnings: string[]
}

const allResults = (e: EndpointResult): WindowResult[] => [...Object.values(e.closed), e.open].flatMap((s) => s.service)

/** The baseline's targets for one store: decisions fill a pool of ids, views reuse it round-robin (it keeps no state). */
function baselineTargets(baseline: Proc): Record<'decisions' | 'views', LoadTarget> {
  const pool: string[] = []
  let cursor = 0
  const common = { origin: baseline.origin, serverPid: baseline.child.pid }
  return {
    decisions: {
      ...common,
      next: () => decisionRequest('bench-baseline'),
      onResponse: (status, body) => {
        if (status === 200 && pool.length < 100_000) pool.push((JSON.parse(body) as { impression_id: string }).impression_id)
      },
    },
    views: { ...common, next: () => viewRequest(pool[cursor++ % pool.length]!) },
  }
}

/** The service under test: one process (ROLE=all), or INSTANCES web processes (ROLE=web) and a worker (ROLE=worker). */
interface Service {
  web: Proc[]
  worker: Proc | null
}

/**
 * Starts the service into `into` (so the caller stops whatever started, even on a failure): one process, or with
 * --instances the first web instance (it migrates the store), then the other web instances and the worker together.
 */
async function startService(label: string, env: Record<string, string>, into: Proc[]): Promise<Service> {
  // One directory per store (and instance): every thread writes its own profile (the main thread's is the largest).
  // BENCH_NODE_ARGS: V8 or Node flags for the service only (a heap setting under trial), space-separated.
  const extra = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '')
  // What `npm start` runs: the built service on plain node.
  const script = buildService()
  const start = async (name: string | null, role: 'web' | 'worker' | null): Promise<Proc> => {
    const port = await freePort()
    const profile = CPU_PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir', join(CPU_PROF_DIR, label, ...(name === null ? [] : [name]))] : []
    const proc = spawnNode(script, { ...env, PORT: String(port), ...(role ? { ROLE: role } : {}) }, [...extra, ...profile])
    into.push(proc)
    await waitHealthy(proc, `service (${label}${name === null ? '' : ` ${name}`})`)
    return proc
  }
  if (INSTANCES === 1) return { web: [await start(null, null)], worker: null }
  const first = await start('web-1', 'web')
  const [worker, ...others] = await Promise.all([start('worker', 'worker'), ...Array.from({ length: INSTANCES - 1 }, (_, i) => start(`web-${i + 2}`, 'web'))])
  return { web: [first, ...others], worker: worker! }
}

/**
 * The embedded store's issuer keys, for the attested views' tokens: the store is one process's, so the
 * service is started once on the fresh DATA_DIR to make its issuing key, stopped, and the key read from
 * the directory (bench/lib/tokens.ts); the service under test then starts on that store.
 */
async function embeddedIssuerKeys(label: string, env: Record<string, string>): Promise<IssuerKey[]> {
  process.stderr.write(`  ${label}: the issuer's key for the attested views' tokens…\n`)
  const proc = spawnNode(buildService(), { ...env, PORT: String(await freePort()), SHUTDOWN_DRAIN_SECONDS: '0' })
  try {
    await waitHealthy(proc, `service (${label}, issuer key)`)
    await ensureIssuerKey(proc.origin)
  } finally {
    await stopProcess(proc)
  }
  return readIssuerKeys({ dataDir: env.DATA_DIR! })
}

const withToken = (req: Req, authorization: string): Req => ({ ...req, headers: { ...req.headers, authorization } })

async function benchService(label: string, env: Record<string, string>, baseline: Proc, pg: { postmaster: number | null; database: string } | null): Promise<StoreResult> {
  const procs: Proc[] = []
  try {
    let issuerKeys = ATTESTED && !pg ? await embeddedIssuerKeys(label, env) : null
    const service = await startService(label, env, procs)
    const origins = service.web.map((p) => p.origin)
    const origin = origins[0]!
    if (ATTESTED && pg) {
      // PostgreSQL: read from the running service's database (unmeasured, before any series).
      await ensureIssuerKey(origin)
      issuerKeys = await readIssuerKeys({ url: env.DATABASE_URL! })
    }
    const operator: Operator = await setUpService(origin, label, origins.slice(1))
    const serverPids = service.web.map((p) => p.child.pid!)
    const common = {
      origin,
      origins,
      serverPids,
      workerPid: service.worker?.child.pid,
      sampleMemory: true,
      postgres: pg?.postmaster ? { postmaster: pg.postmaster, database: pg.database, ...(PG_URL ? { walUrl: PG_URL } : {}) } : null,
    }
    const base = baselineTargets(baseline)

    // Decisions. Every filled offer goes to the view pool (within each campaign's inventory).
    const pool: string[] = []
    let cursor = 0
    const perCampaign = new Map<string, number>()
    const cap = CAMPAIGN_IMPRESSIONS - 1_000
    const fill = { filled: 0, noFill: 0 }
    const harvest = (status: number, body: string) => {
      if (status === 204) fill.noFill++
      if (status !== 200) return
      fill.filled++
      const d = JSON.parse(body) as { impression_id: string; ad_line: string }
      const n = perCampaign.get(d.ad_line) ?? 0
      if (n < cap) {
        perCampaign.set(d.ad_line, n + 1)
        pool.push(d.impression_id)
      }
    }
    const serviceDecisions: LoadTarget = { ...common, next: () => decisionRequest(`bench-${label}`), onResponse: harvest }
    const idleBeforeStartPct = await waitIdle()
    process.stderr.write(`  ${label}: decisions, warm-up…\n`)
    await closedLoop(base.decisions, FIXED_LOAD_CONNECTIONS, { warmupS: WARMUP_S, durationS: 0 })
    await closedLoop(serviceDecisions, FIXED_LOAD_CONNECTIONS, { warmupS: WARMUP_S, durationS: 0 })
    const decisions = await measureEndpoint(`${label} decisions`, { baseline: base.decisions, service: serviceDecisions }, serverPids)

    // Billable views. Ten seconds of service time make every offer's 10 s dwell real.
    await operator.advanceClock(10)
    await new Promise((r) => setTimeout(r, 1_000)) // let the offers' background writes settle
    const billedBefore = await operator.billedTotal()
    const topUps: StoreResult['topUps'] = []
    /** Makes sure `need` unviewed offers are in the pool (unmeasured decisions, then the clock moved so they are billable). */
    const ensurePool = async (need: number) => {
      const want = Math.ceil(need - (pool.length - cursor))
      if (want <= 0) return
      process.stderr.write(`  ${label}: making ${want} more offers for the views…\n`)
      const t = performance.now()
      let made = 0
      await closedLoop({ origin, origins, next: () => (made++ < want ? decisionRequest(`bench-${label}-more`) : null), onResponse: harvest }, FIXED_LOAD_CONNECTIONS, { warmupS: 0, durationS: 120 })
      topUps.push({ offers: want, seconds: Math.round((performance.now() - t) / 100) / 10 })
      await operator.advanceClock(10)
      await new Promise((r) => setTimeout(r, 1_000))
    }
    const serviceViews: LoadTarget = { ...common, next: () => (cursor < pool.length ? viewRequest(pool[cursor++]!) : null) }
    // The warm-up doubles as a first probe of the views' rate.
    process.stderr.write(`  ${label}: billable views, warm-up (pool of ${pool.length} offers)…\n`)
    await closedLoop(base.views, FIXED_LOAD_CONNECTIONS, { warmupS: WARMUP_S, durationS: 0 })
    const probe = await closedLoop(serviceViews, FIXED_LOAD_CONNECTIONS, { warmupS: 0, durationS: WARMUP_S })
    /**
     * Before each series, enough offers for it at 2.5 × (a closed loop) or 1.5 × (an open loop) the fastest rate seen so far (windows with
     * their warm-ups); an open loop the service cannot keep up with also drains its queue (up to a
     * quarter-second of arrivals) after each window.
     */
    const views = await measureEndpoint(`${label} views`, { baseline: base.views, service: serviceViews }, serverPids, (done, rate) => {
      const seen = done.flatMap((s) => s.service).map((w) => (w.allStatuses['204'] ?? 0) / (WINDOW_WARMUP_S + WINDOW_S))
      const fastest = Math.max(probe.perSecond, ...seen)
      return ensurePool(rate === null ? 2.5 * fastest * SERIES_S + 1_000 : Math.min(rate, 1.5 * fastest) * SERIES_S * 1.2 + WINDOWS * Math.max(1_000, rate * MAX_QUEUE_S) + 1_000)
    })

    // Attested billable views: the same views, each with a valid, unspent token, beside unattested ones in every round.
    let attested: AttestedResult | null = null
    if (issuerKeys) {
      const phaseStart = performance.now()
      const c = FIXED_LOAD_CONNECTIONS
      const minter = new TokenMinter(await issuerParams(origin), issuerKeys)
      // Tokens for 1.2 × the fastest rate the unattested views reached at c connections (windows with their warm-ups; attested
      // views are no faster), offers for both sides. Short of them, a window ends early ("pool ran out"), its figures still per view.
      const seen = views.closed[c]!.service.map((w) => (w.allStatuses['204'] ?? 0) / (WINDOW_WARMUP_S + WINDOW_S))
      const want = Math.ceil(1.2 * Math.max(...seen) * SERIES_S) + 500
      await ensurePool(2 * want + 1_000)
      process.stderr.write(`  ${label}: minting ${want} tokens…\n`)
      const minted = minter.mint(want)
      let tokenCursor = 0
      const attestedViews: LoadTarget = {
        ...common,
        next: () => (cursor < pool.length && tokenCursor < minted.authorizations.length ? withToken(viewRequest(pool[cursor++]!), minted.authorizations[tokenCursor++]!) : null),
      }
      const attestedBefore = await operator.attestedTotal()
      process.stderr.write(`  ${label} attested views: closed loop, ${c} connections, ${WINDOWS} windows, each round beside a window of unattested views…\n`)
      const closed = await interleaved((who) => closedLoop(who === 'baseline' ? serviceViews : attestedViews, c, TIMING))
      const attestedDelta = (await operator.attestedTotal()) - attestedBefore
      const attestedAnswered204 = closed.service.reduce((n, w) => n + (w.allStatuses['204'] ?? 0), 0)
      attested = {
        closed,
        tokens: { minted: minted.authorizations.length, seconds: Math.round(minted.seconds * 10) / 10, keyPeriod: minter.period },
        seconds: Math.round((performance.now() - phaseStart) / 100) / 10,
        verification: { attestedAnswered204, attestedDelta, ok: attestedAnswered204 === attestedDelta, networkErrors: closed.service.reduce((n, w) => n + w.networkErrors, 0) },
      }
    }

    const billedAfter = await operator.billedTotal()
    const viewWindows = [...allResults(views), ...(attested ? [...attested.closed.baseline, ...attested.closed.service] : [])]
    const answered204 = viewWindows.reduce((n, w) => n + (w.allStatuses['204'] ?? 0), probe.allStatuses['204'] ?? 0)
    const rateLimited = [...allResults(decisions), ...viewWindows].reduce((n, w) => n + (w.allStatuses['429'] ?? 0), 0)
    return {
      decisions,
      views,
      attested,
      fill,
      topUps,
      verification: {
        viewsAnswered204: answered204,
        billedDelta: billedAfter - billedBefore,
        ok: billedAfter - billedBefore === answered204,
        // A view that failed in transit may have been billed: a mismatch with errors here is the generator's, not the service's.
        viewNetworkErrors: viewWindows.reduce((n, w) => n + w.networkErrors, probe.networkErrors),
      },
      rateLimited,
      workers: service.worker ? { webInstances: service.web.length, peakRssMB: readMemory(service.worker.child.pid)?.peakMB ?? null } : null,
      idleBeforeStartPct,
      serverWarnings: procs.flatMap((p) => p.stderrTail).slice(-5),
    }
  } finally {
    await Promise.all(procs.map(stopProcess))
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

async function withPostgres<T>(adminUrl: string, fn: (env: Record<string, string>, pg: { postmaster: number | null; database: string }) => Promise<T>): Promise<T> {
  const database = await createDatabase(adminUrl, 'adapi_bench')
  cleanups.push(database.drop)
  try {
    return await fn(serviceEnv({ DATABASE_URL: database.url }), { postmaster: await postmasterPid(adminUrl), database: database.name })
  } finally {
    await database.drop()
  }
}

// ---------------------------------------------------------------------------
// Report

/** Other work on the machine used more than this share of a core in a window (median): the figure is not clean. */
const CONTENDED_PCT = 25

function notes(...windows: WindowResult[][]): string {
  const ws = windows.flat()
  const out: string[] = []
  const other = spread(ws.map((w) => w.cpu?.otherPctOfCore ?? null))
  if (other && other.median > CONTENDED_PCT) out.push(`contended (other ${Math.round(other.median)}% of a core)`)
  if (ws.some((w) => w.exhausted)) out.push('pool ran out')
  const dropped = ws.reduce((n, w) => n + (w.open?.dropped ?? 0), 0)
  if (dropped > 0) out.push(`${dropped} dropped`)
  const unfinished = ws.reduce((n, w) => n + (w.open?.unfinished ?? 0), 0)
  if (unfinished > 0) out.push(`${unfinished} unanswered`)
  return out.join(', ')
}

/** How much of PostgreSQL's CPU per operation is its shared auxiliary processes' (WAL writer, checkpointer…), and other databases' share of a core. */
function auxNote(ws: WindowResult[]): string {
  const aux = spread(ws.map((w) => (w.cpu?.postgres && w.completed > 0 ? (w.cpu.postgres.aux / w.completed) * 1e6 : null)))
  const foreign = spread(ws.map((w) => (w.cpu?.postgres ? (w.cpu.postgres.foreign / w.cpu.wall) * 100 : null)))
  return aux && foreign ? `of which auxiliary ${aux.median.toFixed(1)} µs; other databases ${Math.round(foreign.median)}% of a core (not charged)` : ''
}

/** A peak over phases: its "median" column shows the highest. */
function peak(values: (number | null)[]): Spread | null {
  const s = spread(values)
  return s && { ...s, median: s.max }
}

/** A store's name in the tables: with --instances, how many web instances ran on it. */
const storeLabel = (store: string): string => (INSTANCES > 1 ? `${store} ×${INSTANCES}` : store)

function storeFigures(storeName: string, r: StoreResult): Figure[] {
  const c = String(FIXED_LOAD_CONNECTIONS)
  const dec = r.decisions.closed[c]!
  const vw = r.views.closed[c]!
  const onPg = storeName === 'postgres'
  const store = storeLabel(storeName)
  /** The service's CPU: with --instances, summed over the web instances. */
  const service = INSTANCES > 1 ? `service (${INSTANCES} web instances summed)` : 'service'
  const us = (ws: WindowResult[], f: (w: WindowResult) => number | null) => spread(ws.map(f))
  const figures: Figure[] = [
    figure(store, `bare CPU/request, decisions (closed ${c})`, 'µs', us(dec.baseline, serverUs), null, notes(dec.baseline)),
    figure(store, `${service} CPU/decision (${us(dec.service, serverUs)?.median.toFixed(1) ?? '-'} µs) ÷ bare`, '×', ratios(dec, serverUs), TARGETS.serviceCpuPerDecision, notes(dec.service)),
  ]
  if (onPg) figures.push(figure(store, `PostgreSQL CPU/decision (${us(dec.service, postgresUs)?.median.toFixed(1) ?? '-'} µs) ÷ bare`, '×', ratios(dec, postgresUs), TARGETS.postgresCpuPerDecision, auxNote(dec.service)))
  figures.push(
    figure(store, `bare CPU/request, views (closed ${c})`, 'µs', us(vw.baseline, serverUs), null, notes(vw.baseline)),
    figure(store, `${service} CPU/billable view (${us(vw.service, serverUs)?.median.toFixed(1) ?? '-'} µs) ÷ bare`, '×', ratios(vw, serverUs), TARGETS.serviceCpuPerView, notes(vw.service)),
  )
  if (onPg) figures.push(figure(store, `PostgreSQL CPU/billable view (${us(vw.service, postgresUs)?.median.toFixed(1) ?? '-'} µs) ÷ bare`, '×', ratios(vw, postgresUs), TARGETS.postgresCpuPerView, auxNote(vw.service)))
  if (onPg) {
    // The cluster's WAL position at each window's edges: decisions write none between count flushes (every 2 s).
    figures.push(
      figure(store, `WAL bytes/decision (closed ${c})`, 'B', us(dec.service, walPerOp), null, 'cluster-wide: other databases\' writes count too'),
      figure(store, `WAL bytes/billable view (closed ${c})`, 'B', us(vw.service, walPerOp), null, 'cluster-wide'),
    )
  }
  if (r.workers) {
    figures.push(
      figure(store, `worker CPU/decision (closed ${c})`, 'µs', us(dec.service, workerUs)),
      figure(store, `worker CPU/billable view (closed ${c})`, 'µs', us(vw.service, workerUs)),
    )
  }
  if (r.attested) {
    // Each round's attested window against the unattested window beside it (same connections, same offers' kind).
    const a = r.attested.closed
    const extra = (f: (w: WindowResult) => number | null) =>
      spread(
        a.service.map((w, i) => {
          const x = f(w)
          const y = a.baseline[i] ? f(a.baseline[i]) : null
          return x === null || y === null ? null : x - y
        }),
      )
    const att = (x: Spread | null) => x?.median.toFixed(1) ?? '-'
    figures.push(
      figure(store, `${service} CPU/attested view (${att(us(a.service, serverUs))} µs) − unattested (${att(us(a.baseline, serverUs))} µs), closed ${c}`, 'µs', extra(serverUs), TARGETS.attestedExtraServiceUs, notes(a.service, a.baseline)),
    )
    if (onPg) {
      figures.push(
        figure(store, `PostgreSQL CPU/attested view (${att(us(a.service, postgresUs))} µs) − unattested (${att(us(a.baseline, postgresUs))} µs), closed ${c}`, 'µs', extra(postgresUs), null, auxNote(a.service)),
        figure(store, `WAL bytes/attested billable view (closed ${c})`, 'B', us(a.service, walPerOp), null, 'cluster-wide'),
        figure(store, `WAL bytes/attested view − unattested, closed ${c}`, 'B', extra(walPerOp), null, 'cluster-wide'),
      )
    }
    figures.push(figure(store, `throughput attested ÷ unattested billable views (closed ${c})`, '×', throughputRatios(a)))
  }
  for (const [name, e, target] of [
    ['decisions', r.decisions, TARGETS.decisionsP99Ms],
    ['billable views', r.views, TARGETS.viewsP99Ms],
  ] as const) {
    figures.push(figure(store, `bare p99 ${name} at ${e.fixedRate}/s (open loop)`, 'ms', spread(e.open.baseline.map((w) => w.latencyMs.p99)), null, notes(e.open.baseline)))
    const note = notes(e.open.service)
    const f = figure(store, `p99 ${name} at ${e.fixedRate}/s (open loop)`, 'ms', spread(e.open.service.map((w) => w.latencyMs.p99)), target, note)
    // Dropped or unanswered arrivals: the service did not keep up with the offered load.
    if (/dropped|unanswered/.test(note)) f.met = false
    figures.push(f)
  }
  for (const [name, e] of [
    ['decisions', r.decisions],
    ['billable views', r.views],
  ] as const) {
    figures.push(figure(store, `${service} CPU/op ÷ bare at fixed load, ${name}`, '×', ratios(e.open, serverUs)))
    if (onPg) figures.push(figure(store, `PostgreSQL CPU/op ÷ bare at fixed load, ${name}`, '×', ratios(e.open, postgresUs)))
  }
  const rss = spread([...r.decisions.open.service, ...r.views.open.service].map((w) => w.maxRssMB))
  const hwm = peak([r.decisions.openPeakRssMB, r.views.openPeakRssMB])
  /** With --instances, RSS is per process: the largest web instance's. */
  const largest = INSTANCES > 1 ? ', largest instance' : ''
  figures.push(
    hwm
      ? figure(store, `peak RSS under the fixed load (VmHWM${largest})`, 'MB', hwm, TARGETS.peakRssMB)
      : figure(store, `peak RSS under the fixed load (sampled${largest})`, 'MB', peak([rss?.max ?? null]), TARGETS.peakRssMB, 'VmHWM reset refused'),
    figure(store, `RSS sampled in the fixed-load windows (max each${largest})`, 'MB', rss),
    figure(store, `peak RSS before the fixed load (VmHWM${largest})`, 'MB', peak([r.decisions.peakBeforeOpenRssMB, r.views.peakBeforeOpenRssMB])),
  )
  if (r.workers) figures.push(figure(store, 'worker peak RSS over the run (VmHWM)', 'MB', peak([r.workers.peakRssMB])))
  for (const conns of CONNECTIONS) {
    figures.push(
      figure(store, `throughput ÷ bare, decisions (closed ${conns})`, '×', throughputRatios(r.decisions.closed[conns]!)),
      figure(store, `throughput ÷ bare, billable views (closed ${conns})`, '×', throughputRatios(r.views.closed[conns]!)),
    )
  }
  return figures
}

async function main(): Promise<void> {
  if (CPU_PROF_DIR) mkdirSync(CPU_PROF_DIR, { recursive: true })
  process.stderr.write(
    `bench: closed loops at ${CONNECTIONS.join(' and ')} connections, open loop at ${LOAD} × the baseline's rate (${OPEN_CONNECTIONS} connections); ` +
      `${WINDOWS} windows of ${WINDOW_S}s per series, interleaved with the baseline; stores: ${STORES.join(', ')}; ${os.cpus().length} cores\n`,
  )
  const results: Record<string, StoreResult> = {}
  process.stderr.write('baseline (bare node:http), running throughout\n')
  const baseline = await startBaseline()
  try {
    if (STORES.includes('embedded')) {
      process.stderr.write('embedded store (PGlite in a temp DATA_DIR)\n')
      results.embedded = await withEmbedded((env) => benchService('embedded', env, baseline, null))
    }
    if (STORES.includes('postgres') && PG_URL) {
      process.stderr.write('PostgreSQL (a database of its own)\n')
      results.postgres = await withPostgres(PG_URL, (env, pg) => benchService('postgres', env, baseline, pg))
    }
  } finally {
    await stopProcess(baseline)
  }

  const figures = Object.entries(results).flatMap(([store, r]) => storeFigures(store, r))
  const report = {
    generatedAt: new Date().toISOString(),
    machine: { cores: os.cpus().length, cpu: os.cpus()[0]?.model ?? null, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version, platform: `${os.platform()} ${os.release()}` },
    settings: {
      connections: CONNECTIONS,
      openConnections: OPEN_CONNECTIONS,
      load: LOAD,
      windows: WINDOWS,
      windowSeconds: WINDOW_S,
      windowWarmupSeconds: WINDOW_WARMUP_S,
      warmupSeconds: WARMUP_S,
      lateMs: LATE_MS,
      stores: STORES,
      instances: INSTANCES,
      attested: ATTESTED,
      cpuProfileDir: CPU_PROF_DIR,
    },
    targetsOnPostgres: TARGETS,
    figures,
    results,
  }
  mkdirSync(join(OUT, '..'), { recursive: true })
  writeFileSync(OUT, `${JSON.stringify(report, null, 2)}\n`)

  const series = Object.entries(results).flatMap(([store, r]) => [
    ...(['decisions', 'views'] as const).flatMap((endpoint) => [
      ...CONNECTIONS.map((c) => ({ store: storeLabel(store), endpoint, load: `closed ${c}`, s: r[endpoint].closed[c]! })),
      { store: storeLabel(store), endpoint, load: `open ${r[endpoint].fixedRate}/s`, s: r[endpoint].open },
    ]),
    ...(r.attested
      ? [{ store: storeLabel(store), endpoint: 'attested views', load: `closed ${FIXED_LOAD_CONNECTIONS}`, s: r.attested.closed, reference: { endpoint: 'views (unattested)', target: 'unattested', serviceTarget: 'attested' } }]
      : []),
  ])
  const lines = [
    '',
    'Medians over the windows (CPU per completed operation; % of ONE core):',
    detailTable(series),
    `* the pool of offers ran out before a window ended. late: sent more than ${LATE_MS} ms after its scheduled time (generator lag or no free connection); dropped: ${MAX_QUEUE_S} s of arrivals were already waiting. Open-loop latency runs from the scheduled time.`,
    '',
    summaryTable(figures),
    '',
    `Targets are issue 33's (CPU), issue 24's (latency) and issue 53's (an attested view's added service CPU), set for PostgreSQL (medians); on the embedded store for information. CPU ratios: each round's service window over the bare window next to it, at ${FIXED_LOAD_CONNECTIONS} connections; attested views: each round's attested window less the unattested window next to it.`,
  ]
  let mismatch = false
  for (const [name, r] of Object.entries(results)) {
    const v = r.verification
    mismatch ||= !v.ok
    lines.push(`${storeLabel(name)}: views answered 204 = ${v.viewsAnswered204}, impressions billed = ${v.billedDelta} → ${v.ok ? 'match' : 'MISMATCH'} (view network errors ${v.viewNetworkErrors}); decisions filled ${r.fill.filled}, no fill ${r.fill.noFill}; 429s ${r.rateLimited}`)
    if (r.attested) {
      const a = r.attested
      mismatch ||= !a.verification.ok
      lines.push(
        `${storeLabel(name)}: attested views answered 204 = ${a.verification.attestedAnswered204}, attested billable impressions = ${a.verification.attestedDelta} → ${a.verification.ok ? 'match' : 'MISMATCH'} (network errors ${a.verification.networkErrors}); ` +
          `${a.tokens.minted} tokens minted in ${a.tokens.seconds} s (issuer key of period ${a.tokens.keyPeriod}); the attested phase took ${a.seconds} s`,
      )
    }
  }
  lines.push(`results: ${OUT}`)
  process.stdout.write(`${lines.join('\n')}\n`)
  if (mismatch) process.exitCode = 1
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
