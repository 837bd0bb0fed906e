/**
 * The traffic model: who the simulated viewers are (surface, country,
 * address) and how each behaves (decision → the line on screen for its dwell
 * → view, sometimes a click → a pause), all drawn from a seeded PRNG so a
 * seed replays the same run.
 */
import { jsonObject, viewerAddress, type PoolReply } from '../lib/http.ts'
import type { Timeline } from './clock.ts'
import { rng } from './random.ts'
import { bump, type Counters } from './report.ts'

// ---------------------------------------------------------------------------
// Viewers

/** Default mix of countries of developers using the tools; "-" is a client that sends no country. */
export const DEFAULT_COUNTRY_MIX = 'US:34,IN:14,DE:9,GB:8,BR:6,FR:5,CA:5,JP:4,NL:3,PL:3,ES:3,AU:2,-:4'

export interface WeightedCountry {
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
function sampleDwell(r: () => number): { ms: number; cls: DwellClass } {
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

// ---------------------------------------------------------------------------
// One viewer's loop

/** What a viewer runs against: the run's settings, its clock, its request gate and its counters. */
export interface TrafficContext {
  seed: number
  seedTag: string
  countries: readonly WeightedCountry[]
  clickRate: number
  durationMs: number
  /** The manual clock's speed-up; null on the system clock. */
  timeScale: number | null
  timeline: Timeline
  /** Aborted when the run must stop at once. */
  stopped: AbortSignal
  /** Real milliseconds left before the run's deadline. */
  wallLeft(): number
  /** One request through the run's gate; null on a network error (counted). */
  request(kind: 'decision' | 'view' | 'click', method: 'GET' | 'POST', path: string, body: unknown, ip: string): Promise<PoolReply | null>
  /** Counts an unexpected answer. */
  failed(res: PoolReply): void
  counters: Counters
}

/**
 * Viewer `i`: one install id on one surface, in one country, behind one
 * address. It loops decision → dwell → view (→ click) → pause, never asking
 * for a decision within ten seconds of the previous one, until the run ends.
 */
export async function runViewer(ctx: TrafficContext, i: number): Promise<void> {
  const { timeline, counters: c, timeScale, durationMs } = ctx
  const r = rng(`${ctx.seed}:viewer:${i}`)
  const viewerId = `sim-${ctx.seedTag}-${i.toString(36)}`
  const surface = r() < 0.55 ? 'extension' : 'terminal'
  const country = pickWeighted(ctx.countries, r()).code
  const ip = viewerAddress(i)
  let lastBillableUpper = -Infinity
  // Stagger the start over the first seconds, like installs that open at different times.
  let nextAt = r() * Math.min(10_000, durationMs * (timeline.kind === 'manual' ? timeScale! : 1) * 0.3)
  // A bound on cycles: never more than one decision per 10 s of simulation time.
  const maxCycles = Math.ceil((durationMs * (timeScale ?? 1)) / MIN_DECISION_GAP_MS) + 2
  for (let cycle = 0; cycle < maxCycles && !ctx.stopped.aborted; cycle++) {
    if (nextAt - timeline.now() > timeline.left()) return
    if (!(await timeline.until(nextAt))) return
    if (ctx.wallLeft() <= 0) return
    const decidedAt = timeline.now()
    const res = await ctx.request('decision', 'POST', '/serve/v1/decisions', { surface, viewer_id: viewerId, ...(country ? { country } : {}) }, ip)
    c.decisions++
    nextAt = decidedAt + MIN_DECISION_GAP_MS
    if (res === null) continue
    if (res.status === 204) {
      c.noFill++
      continue
    }
    if (res.status !== 200) {
      ctx.failed(res)
      const retryAfter = Number(res.headers['retry-after'])
      if (res.status === 429 && retryAfter > 0) nextAt = Math.max(nextAt, timeline.now() + retryAfter * 1000)
      continue
    }
    const decision = jsonObject(res.text)
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
    const clicks = r() < ctx.clickRate
    const viewAt = shownFrom + dwell.ms
    if (viewAt - timeline.now() > timeline.left() || !(await timeline.until(viewAt))) {
      c.openAtEnd++
      return
    }
    const path = `/serve/v1/impressions/${encodeURIComponent(impressionId)}`
    const v = await ctx.request('view', 'POST', `${path}/view`, { dwell_ms: dwell.ms }, ip)
    if (v !== null && v.status === 204) {
      c.views++
      c.dwell[dwell.cls]++
      if (dwell.ms >= BILLABLE_DWELL_MS) {
        // The service stamped this view at some instant up to upper().
        lastBillableUpper = timeline.upper()
        c.expectedBillable++
        bump(c.expectedByAdLine, adLine)
      }
    } else if (v !== null) ctx.failed(v)
    if (clicks) {
      // The redirect is answered but never followed: the destination is not ours to call.
      const k = await ctx.request('click', 'GET', `${path}/click`, undefined, ip)
      if (k !== null && k.status === 302) c.clicks++
      else if (k !== null) ctx.failed(k)
    }
    nextAt = Math.max(nextAt, timeline.now() + sampleThinkMs(r), lastBillableUpper + AFTER_BILLABLE_MS)
  }
}
