/**
 * Traffic simulator for the serving endpoints (operations.md section 2),
 * driven against a RUNNING service over HTTP.
 *
 *   npm run simulate -- --url http://127.0.0.1:8080 --viewers 200 --duration 30
 *   npm run simulate -- --setup --admin-token T --time-scale 10      # on CLOCK=manual
 *
 * Each simulated viewer is one install id of the editor extension or the
 * terminal status line, in one country, behind one source address (a
 * distinct X-Forwarded-For from the 198.18.0.0/15 benchmarking range, so
 * the per-address limits see many clients when the service runs with
 * TRUST_PROXY=true). A viewer loops: decision → the line stays on screen for
 * its dwell → view (→ sometimes a click) → a pause, never asking for a new
 * decision less than ten seconds after the previous one (what a real client
 * does).
 *
 * Time. The service refuses a dwell longer than the service-clock time that
 * passed since the decision, so a viewer must really let the dwell pass:
 *  - system clock: it waits the dwell in real time;
 *  - `--time-scale K` on a service started with CLOCK=manual (needs
 *    `--admin-token`): one ticker moves the service clock forward through
 *    POST /admin/v1/clock every `tickMs` of real time, K times faster than real
 *    time, and a viewer sends its view only once the clock, as confirmed by the
 *    service, has passed decision time + dwell. Time on the service moves for
 *    everyone, jobs that fall due run as usual, and a run of D seconds moves the
 *    clock about K × D seconds. Without --time-scale, a manual-clock service
 *    (detected with the admin token) is driven at K = 1.
 *
 * Every loop is bounded in count and time and the run stops by itself. It only
 * ever talks to the loopback origin given in --url: URLs in answers (view_url,
 * click_url, redirect targets) are never followed.
 *
 * `runSimulation(options)` is the programmatic entry point (the CLI wraps it).
 */
import { randomBytes } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { Pool } from 'undici'

// ---------------------------------------------------------------------------
// Options and summary

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

export interface LatencySummary {
  count: number
  p50: number | null
  p99: number | null
  max: number | null
}

export interface Summary {
  url: string
  seed: number
  viewers: number
  concurrency: number
  durationS: number
  elapsedS: number
  clock: { kind: 'system' | 'manual' | 'unknown'; timeScale: number | null; serviceSecondsAdvanced: number | null; note: string | null }
  setup: { userId: string; campaigns: { campaignId: string; adLine: string; cpmUsd: number; surface: string; countries: string[] | null }[] } | null
  decisions: { total: number; filled: number; noFill: number; perSecond: number }
  views: {
    total: number
    perSecond: number
    /**
     * Views the simulator expects to be billable: dwell >= 9.5 s. (A simulated client never asks for a
     * new line within 0.5 s of reporting a billable view, so its billable views are always at least
     * 10 s apart on the service clock and the per-viewer rule never applies; inventory is not modelled.)
     */
    expectedBillable: number
    billablePct: number
    dwell: { short: number; boundary: number; long: number }
  }
  clicks: number
  /** Offers still on screen when the run ended (no view sent). */
  openAtEnd: number
  errors: { total: number; rateLimited: number; network: number; byStatus: Record<string, number> }
  latencyMs: { decision: LatencySummary; view: LatencySummary; click: LatencySummary }
  winners: Record<string, number>
  /** Server-side check (with setup): billed impressions of the setup campaigns vs the simulator's expectation for them. */
  billing: { billedBySetupCampaigns: number; expectedBillableForSetupCampaigns: number } | null
}

// ---------------------------------------------------------------------------
// Deterministic randomness

function xmur3(str: string): () => number {
  let h = 1779033703 ^ str.length
  for (let i = 0; i < str.length; i++) {
    h = Math.imul(h ^ str.charCodeAt(i), 3432918353)
    h = (h << 13) | (h >>> 19)
  }
  return () => {
    h = Math.imul(h ^ (h >>> 16), 2246822507)
    h = Math.imul(h ^ (h >>> 13), 3266489909)
    return (h ^= h >>> 16) >>> 0
  }
}

/** sfc32: small, fast, good enough for simulation choices. */
export function rng(seed: string): () => number {
  const s = xmur3(seed)
  let a = s(), b = s(), c = s(), d = s()
  return () => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0
    let t = (a + b) | 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) | 0
    c = (c << 21) | (c >>> 11)
    d = (d + 1) | 0
    t = (t + d) | 0
    c = (c + t) | 0
    return (t >>> 0) / 4294967296
  }
}

// ---------------------------------------------------------------------------
// Traffic model

/** Default mix of countries of developers using the tools; "-" is a client that sends no country. */
export const DEFAULT_COUNTRY_MIX = 'US:34,IN:14,DE:9,GB:8,BR:6,FR:5,CA:5,JP:4,NL:3,PL:3,ES:3,AU:2,-:4'

interface WeightedCountry {
  code: string | null
  weight: number
}

export function parseCountries(spec: string): WeightedCountry[] {
  const out: WeightedCountry[] = []
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [code = '', w] = part.split(':')
    const weight = w === undefined ? 1 : Number(w)
    if (!(weight > 0)) throw new Error(`--countries: bad weight in "${part}"`)
    if (code === '-') out.push({ code: null, weight })
    else if (/^[A-Za-z]{2}$/.test(code)) out.push({ code: code.toUpperCase(), weight })
    else throw new Error(`--countries: "${code}" is not an ISO alpha-2 code (or "-" for none)`)
  }
  if (out.length === 0) throw new Error('--countries: empty list')
  return out
}

function pickWeighted<T extends { weight: number }>(items: readonly T[], r: number): T {
  const total = items.reduce((s, i) => s + i.weight, 0)
  let x = r * total
  for (const i of items) {
    x -= i.weight
    if (x < 0) return i
  }
  return items[items.length - 1]!
}

export type DwellClass = 'short' | 'boundary' | 'long'

/**
 * How long the line stays on screen, in ms: 80 % leave it at least 10 s
 * (10 s plus an exponential tail, mean 6 s, capped at 45 s), 15 % a short
 * 1-9 s, 5 % right around the 9.5 s billing threshold (9.4-9.6 s).
 */
export function sampleDwell(r: () => number): { ms: number; cls: DwellClass } {
  const u = r()
  if (u < 0.05) return { ms: 9_400 + Math.floor(r() * 201), cls: 'boundary' }
  if (u < 0.2) return { ms: 1_000 + Math.floor(r() * 8_001), cls: 'short' }
  const tail = -Math.log(1 - r()) * 6_000
  return { ms: Math.min(45_000, 10_000 + Math.round(tail)), cls: 'long' }
}

/** Pause between a view and the next request for a line (exponential, mean 4 s, capped at 30 s). */
function sampleThinkMs(r: () => number): number {
  return Math.min(30_000, Math.round(-Math.log(1 - r()) * 4_000))
}

/** A real client asks for a decision at most every ten seconds per surface. */
const MIN_DECISION_GAP_MS = 10_000
const BILLABLE_DWELL_MS = 9_500
/**
 * After a billable view, the next decision waits at least this long past the latest service time the
 * view could have carried: with a dwell >= 9.5 s, the next billable view is then >= 10 s later on
 * the service clock (the per-viewer rule), so the expected billable count is exact.
 */
const AFTER_BILLABLE_MS = 500
export const MAX_VIEWERS = 100_000

/** A distinct address of 198.18.0.0/15 (RFC 2544 benchmarking range) per viewer. */
export function viewerAddress(i: number): string {
  const hostsPerBlock = 254
  const block = Math.floor(i / hostsPerBlock)
  return `198.${18 + (block >> 8)}.${block & 255}.${(i % hostsPerBlock) + 1}`
}

export function assertLoopback(url: string): URL {
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

// ---------------------------------------------------------------------------
// Small utilities

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

/** Growable sample buffer; exact percentiles by sorting at the end (bounded by the run's request count). */
export class Samples {
  #buf = new Float64Array(1024)
  #n = 0
  #sorted: Float64Array | null = null
  add(v: number): void {
    if (this.#n === this.#buf.length) {
      const next = new Float64Array(this.#buf.length * 2)
      next.set(this.#buf)
      this.#buf = next
    }
    this.#buf[this.#n++] = v
    this.#sorted = null
  }
  get count(): number {
    return this.#n
  }
  /** Exact quantile (nearest rank), e.g. 0.99; null without samples. */
  quantile(p: number): number | null {
    if (this.#n === 0) return null
    if (!this.#sorted) this.#sorted = this.#buf.slice(0, this.#n).sort()
    return round2(this.#sorted[Math.min(this.#n - 1, Math.max(0, Math.ceil(p * this.#n) - 1))]!)
  }
  summary(): LatencySummary {
    return { count: this.#n, p50: this.quantile(0.5), p99: this.quantile(0.99), max: this.quantile(1) }
  }
}

const round2 = (x: number) => Math.round(x * 100) / 100
const sleepReal = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)))

interface Reply {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

class Http {
  readonly #pool: Pool
  readonly #timeoutMs: number
  constructor(origin: string, connections: number, timeoutMs: number) {
    // A Pool is bound to one origin: nothing else can be reached through it.
    this.#pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 30_000 })
    this.#timeoutMs = timeoutMs
  }
  async call(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    const res = await this.#pool.request({
      method,
      path,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
    })
    const text = await res.body.text()
    return { status: res.statusCode, headers: res.headers, text }
  }
  close(): Promise<void> {
    return this.#pool.close()
  }
}

function parseJson(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text)
    return v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

// ---------------------------------------------------------------------------
// Timelines: where a viewer's waits happen

interface Timeline {
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

class SystemTimeline implements Timeline {
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
class ManualTimeline implements Timeline {
  readonly kind = 'manual' as const
  readonly #http: Http
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

  constructor(http: Http, admin: Record<string, string>, serviceNowMs: number, k: number, tickMs: number, durationMs: number) {
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
          const now = Date.parse(String(parseJson(res.text).now))
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

// ---------------------------------------------------------------------------
// Setup: an approved, billed advertiser with a few campaigns

interface SetupCampaign {
  adLine: string
  cpm: number
  impressions: number
  surface: 'extension' | 'terminal'
  countries?: string[]
  paceMinutes?: number
}

const SETUP_CAMPAIGNS: SetupCampaign[] = [
  { adLine: 'Terminal-native error tracking with Tracewell', cpm: 6.5, impressions: 5_000, surface: 'terminal', countries: ['DE', 'FR', 'GB', 'NL'] },
  { adLine: 'Fix flaky tests in minutes with Steadyrun', cpm: 5, impressions: 10_000, surface: 'extension', countries: ['US', 'CA'], paceMinutes: 60 },
  { adLine: 'Faster builds with Nimbus CI', cpm: 3, impressions: 20_000, surface: 'extension' },
  { adLine: 'Deploy previews in seconds with Glide', cpm: 2.25, impressions: 20_000, surface: 'terminal' },
]

async function expect(res: Reply, ok: number[], what: string): Promise<Record<string, unknown>> {
  if (!ok.includes(res.status)) throw new Error(`setup: ${what} answered ${res.status}: ${res.text.slice(0, 300)}`)
  return parseJson(res.text)
}

async function runSetup(http: Http, adminToken: string, tag: string): Promise<{ userId: string; apiKey: string; campaigns: NonNullable<Summary['setup']>['campaigns'] }> {
  const ip = { 'x-forwarded-for': '198.19.255.254' }
  const admin = { ...ip, authorization: `Bearer ${adminToken}` }
  const account = await expect(await http.call('POST', '/admin/v1/accounts', { email: `simulator-${tag}@example.com` }, admin), [201], 'POST /admin/v1/accounts')
  const userId = String(account.user_id)
  const apiKey = String(account.api_key)
  for (const [path, body] of [
    ['write-approval', { approved: true }],
    ['terms', { accepted: true }],
    ['billing', { mode: 'weekly_autopay', card_number: '4242424242424242' }],
  ] as const) {
    await expect(await http.call('POST', `/admin/v1/accounts/${userId}/${path}`, body, admin), [200], `POST /admin/v1/accounts/{id}/${path}`)
  }
  const auth = { ...ip, 'x-service-user-id': userId, 'x-service-api-key': apiKey }
  const campaigns: NonNullable<Summary['setup']>['campaigns'] = []
  // A tag of this setup in each line: the summary attributes wins by ad line, and an earlier
  // setup on the same service has the same lines (and wins equal-bid ties: it was created first).
  const lineTag = tag.slice(-4)
  for (const [i, c] of SETUP_CAMPAIGNS.entries()) {
    const adLine = `${c.adLine} [${lineTag}]`
    const body: Record<string, unknown> = {
      ad_line: adLine,
      destination_url: `https://example.com/sim/${i}`,
      cpm_usd: c.cpm,
      impressions: c.impressions,
      idempotency_key: `sim-${tag}-${i}`,
      name: `Simulator ${tag} #${i + 1}`,
      target_surface: c.surface,
      ...(c.countries ? { target_countries: c.countries } : {}),
      ...(c.paceMinutes ? { pace_minutes: c.paceMinutes } : {}),
    }
    let res = await http.call('POST', '/v1/campaigns', body, auth)
    // Operators may have switched targeting off: order the campaign without it.
    for (let retry = 0; retry < 2 && res.status === 400; retry++) {
      const reason = String(parseJson(res.text).reason ?? '')
      if (reason === 'surface_split_not_enabled') delete body.target_surface
      else if (reason === 'country_targeting_not_enabled') delete body.target_countries
      else break
      res = await http.call('POST', '/v1/campaigns', body, auth)
    }
    const created = await expect(res, [201], `POST /v1/campaigns (${adLine})`)
    const campaignId = String(created.campaign_id)
    if (created.moderation_status === 'pending') {
      await expect(await http.call('POST', `/admin/v1/campaigns/${campaignId}/moderation`, { status: 'approved' }, admin), [200], 'moderation')
    }
    campaigns.push({
      campaignId,
      adLine,
      cpmUsd: c.cpm,
      surface: typeof body.target_surface === 'string' ? body.target_surface : 'default',
      countries: Array.isArray(body.target_countries) ? (body.target_countries as string[]) : null,
    })
  }
  return { userId, apiKey, campaigns }
}

// ---------------------------------------------------------------------------
// The run

interface Counters {
  decisions: number
  filled: number
  noFill: number
  views: number
  expectedBillable: number
  clicks: number
  openAtEnd: number
  errors: number
  rateLimited: number
  network: number
  byStatus: Map<string, number>
  dwell: Record<DwellClass, number>
  winners: Map<string, number>
  expectedByAdLine: Map<string, number>
}

function bump<K>(m: Map<K, number>, k: K, by = 1): void {
  m.set(k, (m.get(k) ?? 0) + by)
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
  const http = new Http(origin, concurrency + 2, timeoutMs)
  const admin = options.adminToken ? { authorization: `Bearer ${options.adminToken}`, 'x-forwarded-for': '198.19.255.253' } : null
  const durationMs = durationS * 1000
  const c: Counters = {
    decisions: 0,
    filled: 0,
    noFill: 0,
    views: 0,
    expectedBillable: 0,
    clicks: 0,
    openAtEnd: 0,
    errors: 0,
    rateLimited: 0,
    network: 0,
    byStatus: new Map(),
    dwell: { short: 0, boundary: 0, long: 0 },
    winners: new Map(),
    expectedByAdLine: new Map(),
  }
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
        serviceNowMs = Date.parse(String(parseJson(probe.text).now))
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

    let setup: Awaited<ReturnType<typeof runSetup>> | null = null
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
    const wallLeft = () => durationMs - (performance.now() - started)

    async function request(kind: 'decision' | 'view' | 'click', method: 'GET' | 'POST', path: string, body: unknown, ip: string): Promise<Reply | null> {
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

    function failed(res: Reply): void {
      c.errors++
      bump(c.byStatus, String(res.status))
      if (res.status === 429) c.rateLimited++
    }

    // Hard stop: every loop ends at the deadline even if something hangs.
    const hardStop = setTimeout(() => onAbort(), durationMs + timeoutMs + 5_000)
    const softStop = setTimeout(() => timeline.stop(), durationMs)

    async function viewer(i: number): Promise<void> {
      const r = rng(`${seed}:viewer:${i}`)
      const viewerId = `sim-${seedTag}-${i.toString(36)}`
      const surface = r() < 0.55 ? 'extension' : 'terminal'
      const country = pickWeighted(countries, r()).code
      const ip = viewerAddress(i)
      let lastBillableUpper = -Infinity
      // Stagger the start over the first seconds, like installs that open at different times.
      let nextAt = r() * Math.min(10_000, durationMs * (timeline.kind === 'manual' ? timeScale! : 1) * 0.3)
      // A bound on cycles: never more than one decision per 10 s of simulation time.
      const maxCycles = Math.ceil((durationMs * (timeScale ?? 1)) / MIN_DECISION_GAP_MS) + 2
      for (let cycle = 0; cycle < maxCycles && !stopAll.signal.aborted; cycle++) {
        if (nextAt - timeline.now() > timeline.left()) return
        if (!(await timeline.until(nextAt))) return
        if (wallLeft() <= 0) return
        const decidedAt = timeline.now()
        const res = await request('decision', 'POST', '/serve/v1/decisions', { surface, viewer_id: viewerId, ...(country ? { country } : {}) }, ip)
        c.decisions++
        nextAt = decidedAt + MIN_DECISION_GAP_MS
        if (res === null) continue
        if (res.status === 204) {
          c.noFill++
          continue
        }
        if (res.status !== 200) {
          failed(res)
          const retryAfter = Number(res.headers['retry-after'])
          if (res.status === 429 && retryAfter > 0) nextAt = Math.max(nextAt, timeline.now() + retryAfter * 1000)
          continue
        }
        const decision = parseJson(res.text)
        const impressionId = typeof decision.impression_id === 'string' ? decision.impression_id : null
        if (!impressionId) {
          c.errors++
          bump(c.byStatus, '200-malformed')
          continue
        }
        c.filled++
        const adLine = String(decision.ad_line)
        bump(c.winners, adLine)
        // The offer may carry any service time up to upper(); the view waits from there.
        const shownFrom = timeline.upper()
        const dwell = sampleDwell(r)
        const clicks = r() < clickRate
        const viewAt = shownFrom + dwell.ms
        if (viewAt - timeline.now() > timeline.left() || !(await timeline.until(viewAt))) {
          c.openAtEnd++
          return
        }
        const path = `/serve/v1/impressions/${encodeURIComponent(impressionId)}`
        const v = await request('view', 'POST', `${path}/view`, { dwell_ms: dwell.ms }, ip)
        if (v !== null && v.status === 204) {
          c.views++
          c.dwell[dwell.cls]++
          if (dwell.ms >= BILLABLE_DWELL_MS) {
            // The service stamped this view at some instant up to upper().
            lastBillableUpper = timeline.upper()
            c.expectedBillable++
            bump(c.expectedByAdLine, adLine)
          }
        } else if (v !== null) failed(v)
        if (clicks) {
          // The redirect is answered but never followed: the destination is not ours to call.
          const k = await request('click', 'GET', `${path}/click`, undefined, ip)
          if (k !== null && k.status === 302) c.clicks++
          else if (k !== null) failed(k)
        }
        nextAt = Math.max(nextAt, timeline.now() + sampleThinkMs(r), lastBillableUpper + AFTER_BILLABLE_MS)
      }
    }

    // Progress
    const mode = options.progress ?? 'off'
    const tty = mode === 'tty' || (mode === 'auto' && Boolean(out.isTTY))
    const plain = mode === 'plain' || (mode === 'auto' && !out.isTTY)
    let last = { t: performance.now(), decisions: 0, views: 0 }
    let lastPlain = performance.now()
    const line = () => {
      const now = performance.now()
      const dt = (now - last.t) / 1000
      const dps = dt > 0 ? (c.decisions - last.decisions) / dt : 0
      const vps = dt > 0 ? (c.views - last.views) / dt : 0
      last = { t: now, decisions: c.decisions, views: c.views }
      const pct = c.views > 0 ? Math.round((100 * c.expectedBillable) / c.views) : 0
      const clock = timeline instanceof ManualTimeline ? `  svc clock +${Math.round(timeline.advancedSeconds)}s (x${timeScale})` : ''
      return (
        `t=${Math.round((now - started) / 1000)}s/${durationS}s  decisions ${dps.toFixed(1)}/s  views ${vps.toFixed(1)}/s  ` +
        `billable ${pct}%  clicks ${c.clicks}  no-fill ${c.noFill}  errors ${c.errors}${c.rateLimited ? ` (429: ${c.rateLimited})` : ''}${clock}`
      )
    }
    const ticker =
      tty || plain
        ? setInterval(() => {
            if (tty) {
              const cols = out.columns || 120
              out.write(`\r\x1b[2K${line().slice(0, cols - 1)}`)
            } else if (performance.now() - lastPlain >= 5_000) {
              lastPlain = performance.now()
              out.write(`${line()}\n`)
            }
          }, 1_000)
        : null

    try {
      await Promise.all(Array.from({ length: viewers }, (_, i) => viewer(i)))
    } finally {
      clearTimeout(hardStop)
      clearTimeout(softStop)
      if (ticker) clearInterval(ticker)
      timeline.stop()
      if (timeline instanceof ManualTimeline) await timeline.done()
      options.signal?.removeEventListener('abort', onAbort)
    }
    if (tty) out.write(`\r\x1b[2K${line()}\n`)
    if (fatal) throw fatal
    const elapsedS = (performance.now() - started) / 1000

    let billing: Summary['billing'] = null
    if (setup) {
      const res = await http.call('GET', '/v1/campaigns', undefined, {
        'x-forwarded-for': '198.19.255.254',
        'x-service-user-id': setup.userId,
        'x-service-api-key': setup.apiKey,
      })
      if (res.status === 200) {
        const list = (parseJson(res.text).campaigns ?? []) as { campaign_id: string; impressions_served: number }[]
        const ours = new Set(setup.campaigns.map((x) => x.campaignId))
        const ourLines = new Set(setup.campaigns.map((x) => x.adLine))
        billing = {
          billedBySetupCampaigns: list.filter((x) => ours.has(x.campaign_id)).reduce((s, x) => s + x.impressions_served, 0),
          expectedBillableForSetupCampaigns: [...c.expectedByAdLine].filter(([k]) => ourLines.has(k)).reduce((s, [, n]) => s + n, 0),
        }
      } else note(`note: GET /v1/campaigns answered ${res.status}; billing not confirmed`)
    }

    return {
      url: origin,
      seed,
      viewers,
      concurrency,
      durationS,
      elapsedS: round2(elapsedS),
      clock: {
        kind: clockKind,
        timeScale,
        serviceSecondsAdvanced: timeline instanceof ManualTimeline ? round2(timeline.advancedSeconds) : null,
        note: clockNote,
      },
      setup: setup ? { userId: setup.userId, campaigns: setup.campaigns } : null,
      decisions: { total: c.decisions, filled: c.filled, noFill: c.noFill, perSecond: round2(c.decisions / elapsedS) },
      views: {
        total: c.views,
        perSecond: round2(c.views / elapsedS),
        expectedBillable: c.expectedBillable,
        billablePct: c.views > 0 ? round2((100 * c.expectedBillable) / c.views) : 0,
        dwell: { ...c.dwell },
      },
      clicks: c.clicks,
      openAtEnd: c.openAtEnd,
      errors: { total: c.errors, rateLimited: c.rateLimited, network: c.network, byStatus: Object.fromEntries(c.byStatus) },
      latencyMs: { decision: lat.decision.summary(), view: lat.view.summary(), click: lat.click.summary() },
      winners: Object.fromEntries([...c.winners].sort((a, b) => b[1] - a[1])),
      billing,
    }
  } finally {
    await http.close()
  }
}

// ---------------------------------------------------------------------------
// CLI

const HELP = `npm run simulate -- [options]

  --url URL            running service, loopback only (default $SIMULATE_URL or http://127.0.0.1:8080)
  --viewers N          simulated installs, split across extension and terminal (default 200)
  --duration S         real seconds to run (default 30)
  --concurrency C      HTTP requests in flight at most (default min(viewers, 64))
  --countries LIST     e.g. US,DE,GB or US:40,DE:10,-:5 ("-" = no country); default a realistic mix
  --click-rate P       share of shown lines that are clicked (default 0.02)
  --setup              create an approved, billed advertiser and a few campaigns first (needs --admin-token)
  --admin-token T      operator token (default $SIMULATE_ADMIN_TOKEN)
  --time-scale K       on a CLOCK=manual service (needs --admin-token): move the service clock K x real time
  --seed N             PRNG seed for a reproducible run (default random, printed)
  --json               print the final summary as JSON on stdout
  --help`

export function summaryText(s: Summary): string {
  const l = s.latencyMs
  const lines = [
    `simulated ${s.viewers} viewers for ${s.elapsedS}s against ${s.url} (seed ${s.seed}, concurrency ${s.concurrency})`,
    `clock: ${s.clock.kind}${s.clock.timeScale ? `, x${s.clock.timeScale}, service time advanced ${s.clock.serviceSecondsAdvanced}s` : ''}`,
    `decisions: ${s.decisions.total} (${s.decisions.perSecond}/s), filled ${s.decisions.filled}, no fill (204) ${s.decisions.noFill}; p50 ${l.decision.p50} ms, p99 ${l.decision.p99} ms`,
    `views: ${s.views.total} (${s.views.perSecond}/s), expected billable ${s.views.expectedBillable} (${s.views.billablePct}%); ` +
      `dwell long ${s.views.dwell.long} / boundary ${s.views.dwell.boundary} / short ${s.views.dwell.short}; p50 ${l.view.p50} ms, p99 ${l.view.p99} ms`,
    `clicks: ${s.clicks}; offers still on screen at the end: ${s.openAtEnd}`,
    `errors: ${s.errors.total} (429: ${s.errors.rateLimited}, network: ${s.errors.network}${Object.keys(s.errors.byStatus).length ? `, by status ${JSON.stringify(s.errors.byStatus)}` : ''})`,
    `winners: ${Object.entries(s.winners).map(([k, v]) => `${v} × "${k}"`).join(', ') || 'none'}`,
  ]
  if (s.billing) {
    lines.push(
      `billing check: the setup campaigns billed ${s.billing.billedBySetupCampaigns}; the simulator expected ${s.billing.expectedBillableForSetupCampaigns}`,
    )
  }
  if (s.errors.rateLimited > 0) lines.push('hint: 429s from one address usually mean the service does not run with TRUST_PROXY=true')
  return lines.join('\n')
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      viewers: { type: 'string' },
      duration: { type: 'string' },
      concurrency: { type: 'string' },
      countries: { type: 'string' },
      'click-rate': { type: 'string' },
      setup: { type: 'boolean' },
      'admin-token': { type: 'string' },
      'time-scale': { type: 'string' },
      seed: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
    strict: true,
  })
  if (values.help) {
    process.stdout.write(`${HELP}\n`)
    return
  }
  const num = (name: string, v: string | undefined): number | undefined => {
    if (v === undefined) return undefined
    const n = Number(v)
    if (!Number.isFinite(n)) throw new Error(`--${name}: not a number: "${v}"`)
    return n
  }
  const controller = new AbortController()
  process.once('SIGINT', () => controller.abort())
  const summary = await runSimulation({
    url: values.url ?? process.env.SIMULATE_URL ?? 'http://127.0.0.1:8080',
    viewers: num('viewers', values.viewers),
    durationS: num('duration', values.duration),
    concurrency: num('concurrency', values.concurrency),
    countries: values.countries,
    clickRate: num('click-rate', values['click-rate']),
    setup: values.setup ?? false,
    adminToken: values['admin-token'] ?? process.env.SIMULATE_ADMIN_TOKEN,
    timeScale: num('time-scale', values['time-scale']),
    seed: num('seed', values.seed),
    progress: 'auto',
    signal: controller.signal,
  })
  process.stdout.write(values.json ? `${JSON.stringify(summary, null, 2)}\n` : `${summaryText(summary)}\n`)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    process.stderr.write(`simulate: ${err instanceof Error ? err.message : String(err)}\n`)
    process.exit(1)
  })
}
