/**
 * The review simulation (`npm run simulate -- --review`; docs/simulator.md, "Review mode"): labelled
 * traffic families (families.ts) through the real serving endpoints over HTTP, on a manual clock, over
 * a window of one UTC day; then the clock moves past 00:10 of the next day so that the real
 * `traffic-review` job reviews the day; then what each family billed, what the review credited back
 * and what the bounds refused at serving time are read from the ledger, per source.
 */
import { randomBytes } from 'node:crypto'
import { sourceOf } from '../../../src/domain/traffic-source.ts'
import { loadSettings } from '../../../src/platform/env.ts'
import { createService } from '../../../src/start/service.ts'
import type { Db } from '../../../src/store/db.ts'
import { readSourceOutcomes } from '../../../src/store/traffic-quality.ts'
import { jsonObject, OriginPool, type PoolReply } from '../../lib/http.ts'
import { approvedAdvertiser } from '../setup.ts'
import { runAgents, type EngineCounts } from './engine.ts'
import { buildAgents, DEFAULT_SIZES, FAMILIES, type Family, type FamilySizes } from './families.ts'

const DAY_MS = 86_400_000
/** The window starts at 08:00 UTC of the simulated day. */
const WINDOW_START_MS = 8 * 3_600_000
/** 00:11 UTC of the next day: the traffic review (00:10) has run. */
const AFTER_REVIEW_MS = DAY_MS + 11 * 60_000
/** Every setup campaign bids this, so every billable impression debits 5,000 micros. */
const CPM_USD = 5
const CAMPAIGNS = 8
/** Minutes of traffic by default: long enough for every family's pattern, short enough for a test. */
export const REVIEW_WINDOW_MINUTES = 20

export interface ReviewSimulationOptions {
  /** Same seed, same agents, same requests in the same per-address order. Default 1. */
  seed?: number
  /** Service minutes of traffic (default REVIEW_WINDOW_MINUTES). */
  windowMinutes?: number
  sizes?: Partial<FamilySizes>
  /** A running service with a manual clock and TRUST_PROXY, its operator token and its store; default: one started here (embedded store, in memory). */
  service?: { baseUrl: string; adminToken: string; db: Db }
  /** Addresses acting at once (default 32). */
  concurrency?: number
  /** Where progress goes (default nowhere). */
  progress?: (line: string) => void
}

export interface FamilyOutcome {
  family: Family
  viewers: number
  sources: number
  billedUnits: number
  billedMicros: number
  voidedUnits: number
  voidedMicros: number
  refusedViews: number
  /** Share of the family's billed spend the review credited back, in percent. */
  creditedPct: number
  /** Share of the family's billable-looking views (billed + refused) the bounds refused at serving time, in percent. */
  refusedPct: number
}

export interface ReviewSummary {
  seed: number
  day: string
  windowMinutes: number
  sizes: FamilySizes
  requests: EngineCounts
  families: FamilyOutcome[]
  elapsedS: number
}

async function expect(res: PoolReply, ok: number[], what: string): Promise<Record<string, unknown>> {
  if (!ok.includes(res.status)) throw new Error(`setup: ${what} answered ${res.status}: ${res.text.slice(0, 300)}`)
  return jsonObject(res.text)
}

/** One approved advertiser with auto-pay and CAMPAIGNS untargeted campaigns at CPM_USD, 100,000 impressions each. */
export async function setUpAdvertiser(http: OriginPool, admin: Record<string, string>, tag: string): Promise<void> {
  const { userId, apiKey } = await approvedAdvertiser(http, admin, `review-sim-${tag}@example.com`)
  const auth = { 'x-forwarded-for': admin['x-forwarded-for']!, 'x-service-user-id': userId, 'x-service-api-key': apiKey }
  for (let i = 0; i < CAMPAIGNS; i++) {
    // Five creations a minute per account: a quarter of a minute of service time between two.
    if (i > 0) await expect(await http.call('POST', '/admin/v1/clock', { advance_seconds: 15 }, admin), [200], 'POST /admin/v1/clock')
    const body = {
      ad_line: `Review simulation line ${i + 1}`,
      destination_url: `https://example.com/review-sim/${i}`,
      cpm_usd: CPM_USD,
      impressions: 100_000,
      idempotency_key: `review-sim-${tag}-${i}`,
      name: `Review simulation ${tag} #${i + 1}`,
      target_surface: i % 2 === 0 ? 'terminal' : 'extension',
    }
    let res = await http.call('POST', '/v1/campaigns', body, auth)
    // With the surface split off, every campaign is blended.
    if (res.status === 400 && jsonObject(res.text).reason === 'surface_split_not_enabled') {
      res = await http.call('POST', '/v1/campaigns', { ...body, target_surface: undefined }, auth)
    }
    const created = await expect(res, [201], 'POST /v1/campaigns')
    if (created.moderation_status === 'pending') {
      await expect(await http.call('POST', `/admin/v1/campaigns/${String(created.campaign_id)}/moderation`, { status: 'approved' }, admin), [200], 'moderation')
    }
  }
}

const pct = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part * 10_000) / whole) / 100)

export async function runReviewSimulation(options: ReviewSimulationOptions = {}): Promise<ReviewSummary> {
  const seed = (options.seed ?? 1) >>> 0
  const windowMinutes = options.windowMinutes ?? REVIEW_WINDOW_MINUTES
  if (!(windowMinutes >= 10 && windowMinutes <= 16 * 60)) throw new Error('window must be 10-960 minutes')
  const sizes = { ...DEFAULT_SIZES, ...options.sizes }
  const log = options.progress ?? (() => {})
  const started = performance.now()
  let own: Awaited<ReturnType<typeof createService>> | null = null
  let target = options.service
  if (!target) {
    const adminToken = randomBytes(18).toString('base64url')
    const settings = loadSettings({ PORT: '0', ADMIN_TOKEN: adminToken, CLOCK: 'manual', CLOCK_START: '2026-03-02T12:00:00.000Z', TRUST_PROXY: '1', LOG_LEVEL: 'silent' })
    own = await createService(settings, { inMemory: true })
    await own.app.listen({ port: 0, host: '127.0.0.1' })
    const address = own.app.server.address()
    if (address === null || typeof address === 'string') throw new Error('the service has no address')
    target = { baseUrl: `http://127.0.0.1:${address.port}`, adminToken, db: own.store.db }
  }
  const concurrency = options.concurrency ?? 32
  const http = new OriginPool(target.baseUrl, concurrency + 2, 30_000)
  const admin = { authorization: `Bearer ${target.adminToken}`, 'x-forwarded-for': '198.51.100.254' }
  try {
    const probe = await http.call('POST', '/admin/v1/clock', { advance_seconds: 0 }, admin)
    if (probe.status !== 200) throw new Error(`the review simulation needs a CLOCK=manual service and its operator token: POST /admin/v1/clock answered ${probe.status}`)
    const nowMs = Date.parse(String(jsonObject(probe.text).now))
    // The next whole UTC day is the simulated one.
    const dayStartMs = Math.floor(nowMs / DAY_MS) * DAY_MS + DAY_MS
    const day = new Date(dayStartMs).toISOString().slice(0, 10)
    await setUpAdvertiser(http, admin, `${seed.toString(36)}-${randomBytes(3).toString('hex')}`)
    const windowMs = windowMinutes * 60_000
    const agents = buildAgents(seed, windowMs, sizes)
    log(`review simulation: seed ${seed}, ${agents.length} viewers, ${windowMinutes} min of ${day} from 08:00 UTC`)
    let shown = -1
    const requests = await runAgents(http, admin, agents, dayStartMs + WINDOW_START_MS, windowMs, concurrency, (done, c) => {
      const tenth = Math.floor(done * 10)
      if (tenth > shown) {
        shown = tenth
        log(`  ${tenth * 10} %: ${c.decisions} decisions, ${c.views} views, ${c.clicks} clicks`)
      }
    })
    // The real job reviews the closed day when the clock passes 00:10 UTC of the next.
    log(`  the day ends; the traffic review runs (${Math.round(performance.now() - started) / 1000} s)`)
    await expect(await http.call('POST', '/admin/v1/clock', { now: new Date(dayStartMs + AFTER_REVIEW_MS).toISOString() }, admin), [200], 'POST /admin/v1/clock')
    log(`  reviewed; reading what was credited (${Math.round(performance.now() - started) / 1000} s)`)
    const outcomes = await readSourceOutcomes(target.db, dayStartMs, dayStartMs + DAY_MS)
    const familyOf = new Map<string, Family>()
    const viewers = new Map<Family, number>()
    for (const a of agents) {
      familyOf.set(sourceOf(a.ip), a.family)
      viewers.set(a.family, (viewers.get(a.family) ?? 0) + 1)
    }
    const families = FAMILIES.map((family): FamilyOutcome => {
      const mine = outcomes.filter((o) => familyOf.get(o.source) === family)
      const sum = (k: 'billedUnits' | 'billedMicros' | 'voidedUnits' | 'voidedMicros' | 'refusedViews') => mine.reduce((n, o) => n + o[k], 0)
      const f = { billedUnits: sum('billedUnits'), billedMicros: sum('billedMicros'), voidedUnits: sum('voidedUnits'), voidedMicros: sum('voidedMicros'), refusedViews: sum('refusedViews') }
      return {
        family,
        viewers: viewers.get(family) ?? 0,
        sources: mine.length,
        ...f,
        creditedPct: pct(f.voidedMicros, f.billedMicros),
        refusedPct: pct(f.refusedViews, f.refusedViews + f.billedUnits),
      }
    })
    return { seed, day, windowMinutes, sizes, requests, families, elapsedS: Math.round((performance.now() - started) / 100) / 10 }
  } finally {
    await http.close()
    if (own) await own.close()
  }
}

/** The targets of issue 49: bots credited back at least, honest families voided at most (percent). */
export const TARGETS: Readonly<Record<Family, { minCreditedPct?: number; maxCreditedPct?: number }>> = {
  honest_individuals: { maxCreditedPct: 0.5 },
  honest_office: { maxCreditedPct: 0.5 },
  honest_cgnat: { maxCreditedPct: 0.5 },
  naive_bot: { minCreditedPct: 95 },
  careful_bot: { minCreditedPct: 95 },
  ipv6_48_bot: { minCreditedPct: 90 },
  residential_bot: { minCreditedPct: 50 },
}

/** The table of docs/invalid-traffic.md. */
export function reviewTable(s: ReviewSummary): string {
  const usd = (micros: number) => `$${(micros / 1_000_000).toFixed(2)}`
  const rows = s.families.map((f) => {
    const t = TARGETS[f.family]
    const target = t.minCreditedPct !== undefined ? `≥ ${t.minCreditedPct} % credited` : `≤ ${t.maxCreditedPct} % voided`
    const met = t.minCreditedPct !== undefined ? f.creditedPct >= t.minCreditedPct : f.creditedPct <= (t.maxCreditedPct ?? 0)
    return `| ${f.family} | ${f.viewers.toLocaleString('en-US')} | ${f.sources.toLocaleString('en-US')} | ${f.billedUnits.toLocaleString('en-US')} (${usd(f.billedMicros)}) | ${f.refusedPct.toFixed(2)} % | ${f.creditedPct.toFixed(2)} % (${usd(f.voidedMicros)}) | ${target} | ${met ? 'met' : 'missed'} |`
  })
  return [
    '| Family | Viewers | Sources | Billed units (spend) | Refused at serving | Credited back by the review | Target | |',
    '|---|---:|---:|---:|---:|---:|---|---|',
    ...rows,
  ].join('\n')
}
