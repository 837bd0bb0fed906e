/**
 * Realistic ledger events for ONE advertiser account, for the reporting
 * benchmarks (bench/reporting.ts). Deterministic for a given --seed.
 *
 *   tsx bench/generate-ledger.ts [--events 10000000] [--seed 42] [--viewers 200000]
 *     (--database-url postgres://… | --data-dir DIR)  [--indexes rebuild|keep] [--no-rollups]
 *
 * What it makes (all through SQL consistent with the migrations):
 *  - one account (billing enrolled, approved), a few dozen campaigns (one creative each, as the
 *    schema requires) with their blocks, staggered over ~2 years, bids 0.50-12 USD CPM, target
 *    surface extension / terminal / blended, a few with country targeting;
 *  - `--events` ledger events (exactly), spread over `--days` UTC days (default 730 from
 *    2024-06-01): a growth trend, a weekly cycle, a UTC diurnal curve, noise, a few spike days
 *    and a year-end dip; ~200k viewer keys (a sliding active population with light, medium and
 *    heavy users), 20 countries (+ ~3% unknown), both surfaces;
 *  - the event mix of real traffic: per offer, a measured view 96% of the time (billable
 *    `impression` ≈ 73% of views, debit = cpm/1000 micros; otherwise a non-billable `view` with
 *    its reason: short_dwell, viewer_frequency, dwell_exceeds_elapsed, inventory_exhausted), and
 *    a first click on ≈ 5.7% of billable impressions. That is offers ≈ 50%, impressions ≈ 35%,
 *    views ≈ 13%, clicks ≈ 2% of events. Every impression id is unique, shaped like a signed
 *    offer (`imp_<base64url payload>.<mac>`, ~180 chars), and each row holds its key as the service
 *    writes it (`ledger_claim_key`: 16 bytes of the id's SHA-256, migration 0040); there is at most
 *    one offer, one view or impression and one click per id;
 *  - campaign counters (impressions_billed, lifetime_spent_micros, completed status, block
 *    progress) consistent with the generated ledger: a campaign whose order is used up is
 *    `completed` and later views of its offers are `inventory_exhausted`.
 *
 * Loading: PostgreSQL streams CSV through `COPY ledger_events (…) FROM STDIN` (pg-copy-streams).
 * PGlite runs `COPY ledger_events (…) FROM '/dev/blob'` with the `blob` query option, in chunks
 * of ~32 MB of CSV (PGlite has no STDIN copy protocol; /dev/blob is its documented COPY path and
 * avoids parsing and planning one INSERT per row). With `--indexes rebuild` (the default) the
 * secondary indexes of ledger_events are dropped first and re-created after the load from their
 * own definitions (pg_get_indexdef), the usual bulk-load practice; `keep` loads into the live
 * indexes. Then the table is VACUUM ANALYZEd (PostgreSQL; autovacuum would do it) and, unless
 * --no-rollups, the rollup job is run over every closed day and one busy day's rollup is timed.
 */
import { createHash } from 'node:crypto'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import pg from 'pg'
import copyStreams from 'pg-copy-streams'
import { PGlite } from '@electric-sql/pglite'
import { openStore, type Db } from '../src/store/db.ts'
import { runRollups } from '../src/jobs/rollups.ts'
import { rollUpDay } from '../src/store/rollups.ts'
import { microsToCents, orderFaceValueMicros } from '../src/domain/money.ts'
import { median } from '../tools/lib/stats.ts'

export const DAY_MS = 86_400_000
const HOUR_MS = 3_600_000

export interface GeneratorOptions {
  /** Exact number of ledger events. */
  events: number
  seed: number
  /** Distinct viewer keys in the whole period (approximately all are used). */
  viewers: number
  /** First UTC day (YYYY-MM-DD). */
  startDay: string
  days: number
}

export const DEFAULT_OPTIONS: GeneratorOptions = { events: 10_000_000, seed: 42, viewers: 200_000, startDay: '2024-06-01', days: 730 }

export const LEDGER_COLUMNS = [
  'occurred_at',
  'event_type',
  'impression_key',
  'user_id',
  'campaign_id',
  'creative_id',
  'surface',
  'country',
  'billable',
  'debit_micros',
  'dwell_ms',
  'reason',
  'viewer_key',
] as const

// ---------------------------------------------------------------- randomness

/** sfc32: small, fast, seedable; plenty for synthetic data. */
class Rng {
  #a: number
  #b: number
  #c: number
  #d: number
  constructor(seed: number) {
    this.#a = 0x9e3779b9
    this.#b = 0x243f6a88
    this.#c = 0xb7e15162
    this.#d = seed >>> 0
    for (let i = 0; i < 15; i++) this.u32()
  }
  u32(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0
    this.#d = (this.#d + 1) | 0
    this.#a = this.#b ^ (this.#b >>> 9)
    this.#b = (this.#c + (this.#c << 3)) | 0
    this.#c = (this.#c << 21) | (this.#c >>> 11)
    this.#c = (this.#c + t) | 0
    return t >>> 0
  }
  next(): number {
    return this.u32() / 4294967296
  }
  int(n: number): number {
    return Math.floor(this.next() * n)
  }
  range(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1))
  }
  normal(): number {
    return Math.sqrt(-2 * Math.log(1 - this.next())) * Math.cos(2 * Math.PI * this.next())
  }
  bytes(n: number): Buffer {
    const b = Buffer.allocUnsafe(n)
    for (let i = 0; i < n; i += 4) {
      const v = this.u32()
      for (let k = 0; k < 4 && i + k < n; k++) b[i + k] = (v >>> (8 * k)) & 0xff
    }
    return b
  }
  base62(n: number): string {
    const A = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
    let s = ''
    for (let i = 0; i < n; i++) s += A[this.int(62)]
    return s
  }
}

function pickCumulative(cum: Float64Array | number[], r: number): number {
  const total = cum[cum.length - 1]!
  const x = r * total
  let lo = 0
  let hi = cum.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (cum[mid]! > x) hi = mid
    else lo = mid + 1
  }
  return lo
}

function cumulative(weights: number[]): Float64Array {
  const c = new Float64Array(weights.length)
  let s = 0
  weights.forEach((w, i) => (c[i] = s += w))
  return c
}

// ---------------------------------------------------------------- the plan

export const COUNTRIES = ['US', 'DE', 'GB', 'IN', 'FR', 'CA', 'BR', 'NL', 'JP', 'PL', 'ES', 'SE', 'AU', 'CH', 'IT', 'KR', 'UA', 'SG', 'IL', 'MX'] as const
const COUNTRY_WEIGHTS = [28, 9, 8, 8, 5, 5, 4, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 1.5, 1.5, 1.5]
const NO_COUNTRY = 255
/** UTC hour weights: APAC morning, EU working day, US working day. */
const HOUR_WEIGHTS = [0.45, 0.4, 0.38, 0.4, 0.5, 0.62, 0.8, 1.0, 1.2, 1.35, 1.4, 1.4, 1.35, 1.45, 1.6, 1.72, 1.75, 1.65, 1.45, 1.25, 1.05, 0.85, 0.68, 0.55]
/** Sunday-first UTC weekday factors. */
const WEEKDAY = [0.56, 1.04, 1.1, 1.1, 1.06, 0.95, 0.6]

export type TargetSurface = 'extension' | 'terminal' | 'blended'

export interface CampaignPlan {
  campaignId: string
  creativeId: string
  name: string
  adLine: string
  cpmMicros: number
  blocks: number
  impressions: number
  targetSurface: TargetSurface
  targetCountries: number[] | null
  startDay: number
  /** Exclusive. */
  endDay: number
  createdAtMs: number
  // Outcome of generation:
  billed: number
  spentMicros: number
  completedAtMs: number | null
  lastBilledMs: number | null
}

export interface Plan {
  opts: GeneratorOptions
  userId: string
  email: string
  accountCreatedMs: number
  startMs: number
  /** Exclusive end of the generated days (UTC midnight). */
  endMs: number
  campaigns: CampaignPlan[]
  dayTargets: number[]
}

export interface GenerationStats {
  events: number
  byType: Record<'offer' | 'impression' | 'view' | 'click', number>
  reasons: Record<string, number>
  distinctViewers: number
  busiestDay: string
  busiestDayEvents: number
  lastEventMs: number
  csvBytes: number
  generateMs: number
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

export function makePlan(opts: GeneratorOptions): Plan {
  const rng = new Rng(opts.seed * 7919 + 1)
  const startMs = Date.parse(`${opts.startDay}T00:00:00Z`)
  const D = opts.days
  const endMs = startMs + D * DAY_MS

  // Events per day.
  const weights: number[] = []
  for (let d = 0; d < D; d++) {
    const dayMs = startMs + d * DAY_MS
    const date = new Date(dayMs)
    const growth = 0.4 + 1.2 * Math.pow(d / Math.max(1, D - 1), 1.2)
    let w = growth * WEEKDAY[date.getUTCDay()]! * Math.exp(0.1 * rng.normal())
    const md = (date.getUTCMonth() + 1) * 100 + date.getUTCDate()
    if (md >= 1224 || md <= 101) w *= 0.5
    if (rng.next() < 0.012) w *= 1.6 + 0.6 * rng.next()
    weights.push(w)
  }
  const sum = weights.reduce((a, b) => a + b, 0)
  const dayTargets = weights.map((w) => Math.floor((w / sum) * opts.events))
  let rest = opts.events - dayTargets.reduce((a, b) => a + b, 0)
  for (let d = D - 1; rest > 0; d = (d - 1 + D) % D, rest--) dayTargets[d]!++

  // Campaigns: enough order inventory for ~35% billable events (blocks of 1,000, 40-100 blocks).
  const expectedBillable = opts.events * 0.35
  const C = Math.max(24, Math.ceil(expectedBillable / 60_000))
  const campaigns: CampaignPlan[] = []
  const surfaces: TargetSurface[] = ['extension', 'terminal', 'blended']
  const products = ['Ship faster with', 'Debug in seconds:', 'Typed SQL for', 'Zero-config CI for', 'Observability for', 'Feature flags for']
  for (let c = 0; c < C; c++) {
    // Staggered starts; the first three cover day 0 on every surface.
    const startDay = c < 3 ? 0 : Math.min(D - 20, Math.max(0, Math.floor((c / C) * (D - 45)) + rng.range(-20, 20)))
    const duration = rng.range(120, 420)
    const endDay = c < 3 ? D : Math.min(D, startDay + duration)
    const targetSurface = c < 3 ? surfaces[c]! : surfaces[pickCumulative([0.45, 0.8, 1], rng.next())]!
    let targetCountries: number[] | null = null
    if (c >= 3 && rng.next() < 0.15) {
      const set = new Set<number>([0])
      const n = rng.range(3, 6)
      while (set.size < n) set.add(rng.int(COUNTRIES.length))
      targetCountries = [...set].sort((a, b) => a - b)
    }
    const cpmMicros = rng.range(500, 12_000) * 1000
    const blocks = rng.range(40, 100)
    const createdAtMs = startMs + startDay * DAY_MS - HOUR_MS * rng.range(1, 48)
    campaigns.push({
      campaignId: `cmp_${rng.base62(22)}`,
      creativeId: `crv_${rng.base62(22)}`,
      name: `Bench campaign ${String(c + 1).padStart(2, '0')}`,
      adLine: `${products[c % products.length]} teams #${c + 1}`,
      cpmMicros,
      blocks,
      impressions: blocks * 1000,
      targetSurface,
      targetCountries,
      startDay,
      endDay,
      createdAtMs,
      billed: 0,
      spentMicros: 0,
      completedAtMs: null,
      lastBilledMs: null,
    })
  }
  const userId = `usr_${rng.base62(22)}`
  return {
    opts,
    userId,
    email: 'bench-advertiser@example.dev',
    accountCreatedMs: startMs - 30 * DAY_MS,
    startMs,
    endMs,
    campaigns,
    dayTargets,
  }
}

// ---------------------------------------------------------------- generation

const PAD2 = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'))
const PAD3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'))

interface Ev {
  ms: number
  line: string
}

/**
 * Yields the ledger as CSV text (no header) for `COPY … (FORMAT csv)`, in
 * occurred_at order, in pieces of about `chunkBytes`. Mutates the plan's
 * campaign outcome fields; fills `stats` as it goes.
 */
export function* generateCsv(plan: Plan, stats: GenerationStats, chunkBytes = 1 << 20): Generator<string> {
  const t0 = performance.now()
  const { opts, campaigns, startMs, userId } = plan
  const rng = new Rng(opts.seed)
  const D = opts.days
  const V = opts.viewers

  // Viewers: a keyed-hash-like 22-char key, a surface, a country, an activity tier.
  const viewerKey: string[] = new Array(V)
  const viewerSurface = new Uint8Array(V)
  const viewerCountry = new Uint8Array(V)
  const viewerTier = new Uint8Array(V)
  const countryCum = cumulative(COUNTRY_WEIGHTS)
  for (let i = 0; i < V; i++) {
    viewerKey[i] = createHash('sha256').update(`bench:${opts.seed}:viewer:${i}`).digest('base64url').slice(0, 22)
    viewerSurface[i] = rng.next() < 0.6 ? 0 : 1
    viewerCountry[i] = rng.next() < 0.03 ? NO_COUNTRY : pickCumulative(countryCum, rng.next())
    const r = rng.next()
    viewerTier[i] = r < 0.7 ? 1 : r < 0.95 ? 3 : 10
  }
  const seen = new Uint8Array(V)
  const W = Math.max(1, Math.min(V, Math.round(V * 0.15)))
  const hourCum = cumulative(HOUR_WEIGHTS)
  const dayStrings = Array.from({ length: D + 3 }, (_, d) => isoDay(startMs + d * DAY_MS))
  const surfaceName = ['extension', 'terminal'] as const

  const ts = (ms: number): string => {
    const rel = ms - startMs
    const d = Math.floor(rel / DAY_MS)
    let r = rel - d * DAY_MS
    const h = Math.floor(r / HOUR_MS)
    r -= h * HOUR_MS
    const m = Math.floor(r / 60_000)
    r -= m * 60_000
    const s = Math.floor(r / 1000)
    return `${dayStrings[d]} ${PAD2[h]}:${PAD2[m]}:${PAD2[s]}.${PAD3[r - s * 1000]}+00`
  }

  // Eligible campaigns per (surface, country) for the current day, rebuilt when one completes.
  let eligibleDay = -1
  let eligible = new Map<number, { idx: number[]; cum: Float64Array }>()
  const eligibleFor = (d: number, surface: number, country: number) => {
    if (eligibleDay !== d) {
      eligible = new Map()
      eligibleDay = d
    }
    const key = surface * 256 + country
    let e = eligible.get(key)
    if (!e) {
      const idx: number[] = []
      const w: number[] = []
      const tiers: ((c: CampaignPlan) => boolean)[] = [
        (c) => c.startDay <= d && d < c.endDay && c.completedAtMs === null,
        (c) => c.startDay <= d && c.completedAtMs === null,
        (c) => c.startDay <= d,
      ]
      for (const alive of tiers) {
        campaigns.forEach((c, i) => {
          if (!alive(c)) return
          if (c.targetSurface !== 'blended' && c.targetSurface !== surfaceName[surface]) return
          if (c.targetCountries && (country === NO_COUNTRY || !c.targetCountries.includes(country))) return
          idx.push(i)
          w.push(c.cpmMicros)
        })
        if (idx.length > 0) break
      }
      if (idx.length === 0) campaigns.forEach((c, i) => (idx.push(i), w.push(c.cpmMicros)))
      e = { idx, cum: cumulative(w) }
      eligible.set(key, e)
    }
    return e
  }

  let counter = 0
  const counterBuf = Buffer.alloc(6)
  let produced = 0
  let carry: Ev[] = []
  let pending: string[] = []
  let pendingBytes = 0
  stats.busiestDayEvents = 0

  for (let d = 0; d < D + 1; d++) {
    const dayStart = startMs + d * DAY_MS
    const dayEnd = dayStart + DAY_MS
    const evs: Ev[] = []
    const next: Ev[] = []
    for (const e of carry) (e.ms < dayEnd ? evs : next).push(e)
    carry = next
    if (d < D) {
      const target = plan.dayTargets[d]!
      const lo = Math.floor((d * (V - W)) / Math.max(1, D - 1))
      let dayProduced = 0
      while (dayProduced < target && produced < opts.events) {
        const budget = Math.min(3, opts.events - produced)
        // Viewer from the day's active population, weighted by tier.
        let v: number
        do v = lo + rng.int(W)
        while (rng.next() * 10 >= viewerTier[v]!)
        const surface = viewerSurface[v]!
        const country = viewerCountry[v]!
        const el = eligibleFor(d, surface, country)
        const c = campaigns[el.idx[pickCumulative(el.cum, rng.next())]!]!
        const offerMs = dayStart + pickCumulative(hourCum, rng.next()) * HOUR_MS + rng.int(HOUR_MS)
        const cc = country === NO_COUNTRY ? '' : COUNTRIES[country]!
        const sName = surfaceName[surface]
        counterBuf.writeUIntBE(counter++, 0, 6)
        const payload = [c.campaignId, c.creativeId, userId, surface === 0 ? 'e' : 't', cc, viewerKey[v], offerMs.toString(36), counterBuf.toString('base64url')].join('~')
        const impressionId = `imp_${Buffer.from(payload).toString('base64url')}.${rng.bytes(16).toString('base64url')}`
        // The row's impression_key (bytea in COPY's text form), as ledger_claim_key(impressionId) derives it.
        const impressionKey = `\\x${createHash('sha256').update(impressionId).digest().subarray(0, 16).toString('hex')}`
        const head = `,${impressionKey},${userId},${c.campaignId},${c.creativeId},${sName},${cc},`
        const tail = `,${viewerKey[v]}\n`
        const push = (ms: number, line: string) => {
          const e = { ms, line }
          if (ms < dayEnd) evs.push(e)
          else carry.push(e)
        }
        push(offerMs, `${ts(offerMs)},offer${head}f,0,,${tail}`)
        let n = 1
        stats.byType.offer++
        seen[v] = 1
        if (budget > 1 && rng.next() < 0.96) {
          const r = rng.next()
          let dwell: number
          let elapsed: number
          let reason: string | null = null
          if (r < 0.22) {
            reason = 'short_dwell'
            dwell = rng.range(800, 9499)
            elapsed = dwell + rng.range(200, 3000)
          } else if (r < 0.253) {
            reason = 'viewer_frequency'
            dwell = rng.range(9500, 20_000)
            elapsed = dwell + rng.range(200, 3000)
          } else if (r < 0.265) {
            reason = 'dwell_exceeds_elapsed'
            elapsed = rng.range(1500, 9000)
            dwell = elapsed + rng.range(1500, 20_000)
          } else {
            dwell = Math.min(60_000, 9500 + Math.floor(-Math.log(1 - rng.next()) * 3000))
            elapsed = dwell + rng.range(200, 3000)
            if (c.completedAtMs !== null || c.billed >= c.impressions) reason = 'inventory_exhausted'
          }
          const viewMs = offerMs + elapsed
          if (reason === null) {
            const debit = c.cpmMicros / 1000
            c.billed++
            c.spentMicros += debit
            c.lastBilledMs = Math.max(c.lastBilledMs ?? 0, viewMs)
            if (c.billed >= c.impressions) {
              c.completedAtMs = c.lastBilledMs
              eligibleDay = -1
            }
            push(viewMs, `${ts(viewMs)},impression${head}t,${debit},${dwell},${tail}`)
            stats.byType.impression++
            n++
            if (budget > 2 && rng.next() < 0.057) {
              const clickMs = viewMs + rng.range(1000, 30_000)
              push(clickMs, `${ts(clickMs)},click${head}f,0,,${tail}`)
              stats.byType.click++
              n++
            }
          } else {
            push(viewMs, `${ts(viewMs)},view${head}f,0,${dwell},${reason}${tail}`)
            stats.byType.view++
            stats.reasons[reason] = (stats.reasons[reason] ?? 0) + 1
            n++
          }
        }
        produced += n
        dayProduced += n
      }
    }
    evs.sort((a, b) => a.ms - b.ms)
    if (evs.length > stats.busiestDayEvents && d < D) {
      stats.busiestDayEvents = evs.length
      stats.busiestDay = dayStrings[d]!
    }
    for (const e of evs) {
      pending.push(e.line)
      pendingBytes += e.line.length
      stats.events++
      if (e.ms > stats.lastEventMs) stats.lastEventMs = e.ms
      if (pendingBytes >= chunkBytes) {
        const s = pending.join('')
        stats.csvBytes += s.length
        pending = []
        pendingBytes = 0
        yield s
      }
    }
  }
  if (pending.length > 0) {
    const s = pending.join('')
    stats.csvBytes += s.length
    yield s
  }
  let distinct = 0
  for (let i = 0; i < V; i++) distinct += seen[i]!
  stats.distinctViewers = distinct
  stats.generateMs = performance.now() - t0
}

export function emptyStats(): GenerationStats {
  return {
    events: 0,
    byType: { offer: 0, impression: 0, view: 0, click: 0 },
    reasons: {},
    distinctViewers: 0,
    busiestDay: '',
    busiestDayEvents: 0,
    lastEventMs: 0,
    csvBytes: 0,
    generateMs: 0,
  }
}

// ---------------------------------------------------------------- SQL for the account rows

type Exec = (text: string, params?: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>

/** Inserts the account, its campaigns, creatives and blocks, with counters matching the generated ledger. */
async function insertAccountRows(exec: Exec, plan: Plan): Promise<void> {
  const created = new Date(plan.accountCreatedMs)
  const rng = new Rng(plan.opts.seed * 31 + 7)
  await exec(
    `INSERT INTO accounts (user_id, email, billing_email, created_at, api_key_hash, key_prefix, key_created_at,
       write_approved, terms_accepted, terms_accepted_at, collection_status, requested_billing_mode, effective_billing_mode,
       processor_customer_id, payment_method_id, card_brand, card_last4, billing_country, billing_enrolled_at)
     VALUES ($1, $2, $2, $3, $4, $5, $3, true, true, $3, 'ready', 'weekly_autopay', 'weekly_autopay',
       'cus_bench', 'pm_bench', 'visa', '4242', 'US', $3)`,
    [plan.userId, plan.email, created, createHash('sha256').update(rng.bytes(32)).digest(), `sk_live_${rng.base62(6)}`],
  )
  const lastDayEnd = plan.endMs
  for (const c of plan.campaigns) {
    const created = new Date(c.createdAtMs)
    const activated = new Date(c.startDay === 0 ? plan.startMs - HOUR_MS : plan.startMs + c.startDay * DAY_MS)
    let status = 'active'
    let cancelledAt: Date | null = null
    let completedAt: Date | null = null
    let updated = activated
    if (c.completedAtMs !== null) {
      status = 'completed'
      completedAt = new Date(c.completedAtMs)
      updated = completedAt
    } else if (plan.startMs + c.endDay * DAY_MS < lastDayEnd) {
      status = 'cancelled_user'
      cancelledAt = new Date(plan.startMs + c.endDay * DAY_MS - 60_000)
      updated = cancelledAt
    }
    const countries = c.targetCountries ? `{${c.targetCountries.map((i) => COUNTRIES[i]).join(',')}}` : null
    await exec(
      `INSERT INTO campaigns (campaign_id, user_id, creation_channel, name, status, kind, cpm_micros, impressions, block_count,
         target_surface, target_countries, pace_minutes, optin_leaderboard, start_paused, amount_cents, lifetime_spent_micros,
         report_uuid, created_at, updated_at, activated_at, paused_at, paused_ms, cancelled_at, impressions_billed, completed_at)
       VALUES ($1, $2, 'advertiser_api', $3, $4, 'impression', $5, $6, $7, $8, $9::text[], NULL, false, false, $10, $11,
         NULL, $12, $13, $14, NULL, 0, $15, $16, $17)`,
      [
        c.campaignId,
        plan.userId,
        c.name,
        status,
        c.cpmMicros,
        c.impressions,
        c.blocks,
        c.targetSurface,
        countries,
        microsToCents(orderFaceValueMicros(c.cpmMicros, c.blocks)),
        c.spentMicros,
        created,
        updated,
        activated,
        cancelledAt,
        c.billed,
        completedAt,
      ],
    )
    await exec(
      `INSERT INTO creatives (creative_id, campaign_id, user_id, ad_line, destination_url, brand, icon_url, moderation_status,
         moderation_reason, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'Acme', NULL, 'approved', NULL, $6, $6)`,
      [c.creativeId, c.campaignId, plan.userId, c.adLine, `https://acme.dev/p/${c.campaignId.slice(4, 12).toLowerCase()}`, created],
    )
    // Blocks fill in order (their served counts derive from impressions_billed); the current one is serving while the campaign is live.
    const values: string[] = []
    const params: unknown[] = []
    for (let i = 0; i < c.blocks; i++) {
      const served = Math.max(0, Math.min(1000, c.billed - i * 1000))
      const current = Math.floor(c.billed / 1000) === i
      const blockStatus = served >= 1000 ? 'exhausted' : current && status === 'active' ? 'serving' : 'queued'
      const started = served > 0 || (current && status === 'active') ? activated : null
      const exhausted = served >= 1000 ? (completedAt ?? updated) : null
      const p = params.length
      values.push(`($${p + 1}, $${p + 2}, $${p + 3}, 1000, $${p + 4}, $${p + 5})`)
      params.push(c.campaignId, i, blockStatus, started, exhausted)
    }
    await exec(
      `INSERT INTO blocks (campaign_id, block_index, status, impressions_target, started_at, exhausted_at) VALUES ${values.join(', ')}`,
      params,
    )
  }
}

// ---------------------------------------------------------------- loading

export type LoadTarget = { kind: 'postgres'; url: string } | { kind: 'embedded'; dataDir: string }

export interface LoadReport {
  store: 'postgres' | 'embedded'
  method: string
  indexes: 'rebuild' | 'keep'
  events: number
  copyMs: number
  indexMs: number
  indexTimings: Record<string, number>
  analyzeMs: number
  totalMs: number
  rowsPerSec: number
  tableBytes: number | null
  indexBytes: number | null
  generation: GenerationStats
  plan: { userId: string; campaigns: number; campaignsCompleted: number; startDay: string; days: number; endMs: number }
}

const copySql = (source: string) => `COPY ledger_events (${LEDGER_COLUMNS.join(', ')}) FROM ${source} WITH (FORMAT csv)`

interface Conn {
  exec: Exec
  /** Streams the CSV into ledger_events. */
  copy(chunks: Iterable<string>): Promise<void>
  close(): Promise<void>
}

async function connect(target: LoadTarget): Promise<Conn> {
  if (target.kind === 'postgres') {
    const client = new pg.Client({ connectionString: target.url })
    await client.connect()
    return {
      exec: (text, params) => client.query(text, params as unknown[]),
      async copy(chunks) {
        const stream = client.query(copyStreams.from(copySql('STDIN')))
        await pipeline(Readable.from(chunks, { objectMode: false }), stream)
      },
      close: () => client.end(),
    }
  }
  const lite = await PGlite.create({ dataDir: `${target.dataDir}/pglite` })
  return {
    exec: async (text, params) => {
      const r = await lite.query<Record<string, unknown>>(text, params as unknown[])
      return { rows: r.rows }
    },
    async copy(chunks) {
      // ~32 MB of CSV per COPY: /dev/blob reads one Blob per statement.
      const limit = 32 << 20
      let parts: string[] = []
      let bytes = 0
      const flush = async () => {
        if (parts.length === 0) return
        const blob = new Blob(parts)
        parts = []
        bytes = 0
        await lite.query(copySql(`'/dev/blob'`), [], { blob })
      }
      for (const c of chunks) {
        parts.push(c)
        bytes += c.length
        if (bytes >= limit) await flush()
      }
      await flush()
    },
    close: () => lite.close(),
  }
}

/**
 * Generates and loads the ledger (and the account rows) into a migrated
 * store. The store must not be open elsewhere (PGlite is single-process).
 */
export async function loadLedger(target: LoadTarget, opts: GeneratorOptions, indexes: 'rebuild' | 'keep' = 'rebuild', log = console.log): Promise<{ plan: Plan; report: LoadReport }> {
  const plan = makePlan(opts)
  const stats = emptyStats()
  const conn = await connect(target)
  const t0 = performance.now()
  try {
    const defs = (
      await conn.exec(
        `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'ledger_events' AND indexname <> 'ledger_events_pkey' ORDER BY indexname`,
      )
    ).rows as { indexname: string; indexdef: string }[]
    if (indexes === 'rebuild') for (const d of defs) await conn.exec(`DROP INDEX ${d.indexname}`)

    log(`  generating and loading ${opts.events.toLocaleString('en-US')} events (${target.kind}, ${target.kind === 'postgres' ? 'COPY FROM STDIN' : "COPY FROM '/dev/blob'"})…`)
    const tc = performance.now()
    let lastLog = tc
    const chunks = generateCsv(plan, stats)
    const logged = (function* () {
      for (const c of chunks) {
        yield c
        const now = performance.now()
        if (now - lastLog > 15_000) {
          lastLog = now
          log(`    ${stats.events.toLocaleString('en-US')} events, ${((now - tc) / 1000).toFixed(0)} s`)
        }
      }
    })()
    await conn.copy(logged)
    const copyMs = performance.now() - tc
    log(`  loaded ${stats.events.toLocaleString('en-US')} events in ${(copyMs / 1000).toFixed(1)} s (generation share ${(stats.generateMs / 1000).toFixed(1)} s)`)

    const indexTimings: Record<string, number> = {}
    const ti = performance.now()
    if (indexes === 'rebuild') {
      for (const d of defs) {
        const t = performance.now()
        await conn.exec(d.indexdef)
        indexTimings[d.indexname] = Math.round(performance.now() - t)
        log(`    ${d.indexname}: ${(indexTimings[d.indexname]! / 1000).toFixed(1)} s`)
      }
    }
    const indexMs = performance.now() - ti

    await insertAccountRows(conn.exec, plan)

    const ta = performance.now()
    if (target.kind === 'postgres') await conn.exec('VACUUM (ANALYZE) ledger_events')
    const analyzeMs = target.kind === 'postgres' ? performance.now() - ta : 0
    const sizes = (
      await conn.exec(
        `SELECT pg_table_size('ledger_events')::text AS t, pg_indexes_size('ledger_events')::text AS i`,
      )
    ).rows[0] as { t: string; i: string }
    const totalMs = performance.now() - t0
    const report: LoadReport = {
      store: target.kind,
      method: target.kind === 'postgres' ? 'COPY FROM STDIN (csv, pg-copy-streams)' : "COPY FROM '/dev/blob' (csv, ~32 MB blobs)",
      indexes,
      events: stats.events,
      copyMs: Math.round(copyMs),
      indexMs: Math.round(indexMs),
      indexTimings,
      analyzeMs: Math.round(analyzeMs),
      totalMs: Math.round(totalMs),
      rowsPerSec: Math.round(stats.events / (totalMs / 1000)),
      tableBytes: Number(sizes.t),
      indexBytes: Number(sizes.i),
      generation: stats,
      plan: {
        userId: plan.userId,
        campaigns: plan.campaigns.length,
        campaignsCompleted: plan.campaigns.filter((c) => c.completedAtMs !== null).length,
        startDay: opts.startDay,
        days: opts.days,
        endMs: plan.endMs,
      },
    }
    return { plan, report }
  } finally {
    await conn.close()
  }
}

export interface RollupReport {
  runMs: number
  daysRolled: number
  dailyRollupsRows: number
  dailyViewersRows: number
  busyDay: string
  busyDayEvents: number
  /** rollUpDay on the busy day, 5 repetitions. */
  busyDayRunsMs: number[]
  busyDayMedianMs: number
  analyzeMs: number
}

/**
 * Runs the rollup job as the service would at `now` (every closed day), then
 * times `rollUpDay` on the busiest day (5 repetitions, median). With
 * `analyze`, VACUUM ANALYZEs the rollup tables afterwards (autovacuum would on
 * PostgreSQL; nothing does on PGlite).
 */
export async function runAndTimeRollups(db: Db, now: Date, busyDay: string, busyDayEvents: number, analyze: boolean, log = console.log): Promise<RollupReport> {
  const { sql } = await import('kysely')
  log('  rolling up every closed day…')
  const t0 = performance.now()
  const r = await runRollups(db, now)
  const runMs = performance.now() - t0
  log(`  rollups: ${String(r.days_rolled)} days in ${(runMs / 1000).toFixed(1)} s`)
  const runs: number[] = []
  for (let i = 0; i < 5; i++) {
    const t = performance.now()
    await rollUpDay(db, busyDay)
    runs.push(Math.round(performance.now() - t))
  }
  log(`  rollUpDay(${busyDay}, ${busyDayEvents.toLocaleString('en-US')} events): ${runs.join(', ')} ms`)
  let analyzeMs = 0
  if (analyze) {
    const t = performance.now()
    await sql`VACUUM (ANALYZE) daily_rollups`.execute(db)
    await sql`VACUUM (ANALYZE) daily_viewers`.execute(db)
    analyzeMs = performance.now() - t
  }
  const counts = await sql<{ r: string; v: string }>`SELECT (SELECT count(*) FROM daily_rollups)::text AS r, (SELECT count(*) FROM daily_viewers)::text AS v`.execute(db)
  return {
    runMs: Math.round(runMs),
    daysRolled: Number(r.days_rolled),
    dailyRollupsRows: Number(counts.rows[0]!.r),
    dailyViewersRows: Number(counts.rows[0]!.v),
    busyDay,
    busyDayEvents,
    busyDayRunsMs: runs,
    busyDayMedianMs: median(runs),
    analyzeMs: Math.round(analyzeMs),
  }
}

// ---------------------------------------------------------------- CLI

async function main() {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: String(DEFAULT_OPTIONS.events) },
      seed: { type: 'string', default: String(DEFAULT_OPTIONS.seed) },
      viewers: { type: 'string', default: String(DEFAULT_OPTIONS.viewers) },
      'start-day': { type: 'string', default: DEFAULT_OPTIONS.startDay },
      days: { type: 'string', default: String(DEFAULT_OPTIONS.days) },
      'database-url': { type: 'string' },
      'data-dir': { type: 'string' },
      indexes: { type: 'string', default: 'rebuild' },
      'no-rollups': { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
    },
  })
  const opts: GeneratorOptions = {
    events: Number(values.events),
    seed: Number(values.seed),
    viewers: Number(values.viewers),
    startDay: values['start-day']!,
    days: Number(values.days),
  }
  if (values['dry-run']) {
    // Generation only: the mix and the throughput of the generator itself.
    const plan = makePlan(opts)
    const stats = emptyStats()
    for (const chunk of generateCsv(plan, stats)) void chunk
    console.log(JSON.stringify({ ...stats, campaigns: plan.campaigns.length, completed: plan.campaigns.filter((c) => c.completedAtMs).length }, null, 2))
    return
  }
  const url = values['database-url'] ?? null
  const dataDir = values['data-dir'] ?? null
  if ((url === null) === (dataDir === null)) throw new Error('give exactly one of --database-url or --data-dir (or --dry-run)')
  // Migrate first (openStore), then load with the store closed (PGlite is single-process).
  const store0 = await openStore({ databaseUrl: url, dataDir: dataDir ?? '' })
  await store0.close()
  const target: LoadTarget = url ? { kind: 'postgres', url } : { kind: 'embedded', dataDir: dataDir! }
  const { report } = await loadLedger(target, opts, values.indexes === 'keep' ? 'keep' : 'rebuild')
  console.log(JSON.stringify(report, null, 2))
  if (!values['no-rollups']) {
    const store = await openStore({ databaseUrl: url, dataDir: dataDir ?? '' })
    try {
      const now = new Date(report.plan.endMs + 30 * 60_000)
      const roll = await runAndTimeRollups(store.db, now, report.generation.busiestDay, report.generation.busiestDayEvents, target.kind === 'postgres')
      console.log(JSON.stringify(roll, null, 2))
    } finally {
      await store.close()
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: unknown) => {
    console.error(err)
    process.exit(1)
  })
}
