/**
 * What the serving benchmark sends: decisions from ever-new viewers and
 * addresses (abuse limits stay out of the way), views of the offers those
 * decisions made, and the operator's set-up of a service under test (an
 * account, its campaigns, the billed total read back).
 */
import { jsonObject, jsonRequest, viewerAddress } from '../../tools/lib/http.ts'
import type { Req } from './load.ts'

export const ADMIN_TOKEN = 'bench-admin-token-0123456789'
/** A Monday morning: no job falls due during a run. */
export const CLOCK_START = '2026-11-02T09:00:00Z'
/** The UTC day a run's clock stays in (it moves by seconds). */
const RUN_DAY = CLOCK_START.slice(0, 10)
const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)
const COUNTRIES = ['US', 'DE', 'GB', 'IN', 'BR', 'FR', 'CA', 'JP', null] as const
const SURFACES = ['extension', 'terminal'] as const

let requestCounter = 0

/** A decision from a distinct viewer behind a distinct address. */
export function decisionRequest(prefix: string): Req {
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

/** A billable view (ten seconds of dwell) of an offer. */
export function viewRequest(impressionId: string): Req {
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
  // A read after a quiet spell (tokens being minted) may find its kept-alive socket closed by the server: sent once more.
  const r = await jsonRequest(origin, method, path, { body, headers: { 'x-forwarded-for': '198.19.255.250', ...headers }, retryGet: true })
  return { status: r.status, body: jsonObject(r.text), text: r.text }
}

async function must(p: ReturnType<typeof api>, status: number, what: string): Promise<Record<string, unknown>> {
  const r = await p
  if (r.status !== status) throw new Error(`${what}: expected ${status}, got ${r.status}: ${r.text.slice(0, 300)}`)
  return r.body
}

/** The campaigns: four different winners across surfaces and countries, two bids that never win. */
const BENCH_CAMPAIGNS = [
  { ad_line: 'Bench: extension line for North America', cpm_usd: 8, target_surface: 'extension', target_countries: ['US', 'CA'] },
  { ad_line: 'Bench: terminal line for Europe', cpm_usd: 7, target_surface: 'terminal', target_countries: ['DE', 'GB', 'FR'] },
  { ad_line: 'Bench: extension line, global', cpm_usd: 5, target_surface: 'extension' },
  { ad_line: 'Bench: terminal line, global', cpm_usd: 4, target_surface: 'terminal' },
  { ad_line: 'Bench: a lower extension bid', cpm_usd: 2, target_surface: 'extension' },
  { ad_line: 'Bench: a lower terminal bid for India', cpm_usd: 1, target_surface: 'terminal', target_countries: ['IN'] },
] as const
/** Impressions bought per campaign (the most one order may buy). */
export const CAMPAIGN_IMPRESSIONS = 100_000

export interface Operator {
  /** Moves the service's manual clock. */
  advanceClock(seconds: number): Promise<void>
  /** Impressions billed so far over the bench's campaigns, as the advertiser API shows them. */
  billedTotal(): Promise<number>
  /** Of them, attested (a valid Privacy Pass token spent): `/v1/stats`'s `attested_billable_impressions` over the run's UTC day, read from the ledger. */
  attestedTotal(): Promise<number>
}

/**
 * Opens the limits, creates an approved advertiser with the bench's campaigns (approved too). `others`: further
 * web instances of the same service, whose clocks are moved to the same instant.
 */
export async function setUpService(origin: string, label: string, others: string[] = []): Promise<Operator> {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
  await must(
    api(origin, 'PATCH', '/admin/v1/config', { outstanding_balance_cap_usd: null, max_blocks: 100, max_total_usd: 100_000, create_rate_limit_per_min: 1_000, read_rate_limit_per_min: 100_000 }, admin),
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
  return {
    async advanceClock(seconds) {
      const { now } = await must(api(origin, 'POST', '/admin/v1/clock', { advance_seconds: seconds }, admin), 200, 'POST /admin/v1/clock')
      // The others would follow the stored clock within a second; moved here, they are there when this returns.
      for (const o of others) await must(api(o, 'POST', '/admin/v1/clock', { now }, admin), 200, `POST /admin/v1/clock (${o})`)
    },
    async billedTotal() {
      const list = await must(api(origin, 'GET', '/v1/campaigns', undefined, auth), 200, 'GET /v1/campaigns')
      return (list.campaigns as { impressions_served: number }[]).reduce((s, c) => s + c.impressions_served, 0)
    },
    async attestedTotal() {
      const stats = await must(api(origin, 'GET', `/v1/stats?granularity=day&start=${RUN_DAY}T00:00:00Z&end=${nextDay(RUN_DAY)}T00:00:00Z`, undefined, auth), 200, 'GET /v1/stats')
      return (stats.totals as { attested_billable_impressions: number }).attested_billable_impressions
    },
  }
}
