import type { AttestationMode } from './attestation.ts'
import type { SourceLimits } from './invalid-traffic.ts'
import { sourceOf } from './traffic-source.ts'

/**
 * Rate-limit policy (advertiser spec section 8, operations.md section 6):
 * per account, across its keys, in fixed one-minute windows of service time.
 * POST /campaigns counts against `creates`; every other authenticated call
 * against `requests` (config.read_rate_limit_per_min).
 */
export const RATE_WINDOW_MS = 60_000

export type PolicyName = 'requests' | 'creates'

export interface WindowState {
  limit: number
  count: number
  windowStartMs: number
  resetMs: number
}

export function windowStart(nowMs: number, windowMs: number): number {
  return Math.floor(nowMs / windowMs) * windowMs
}

export function windowState(limit: number, count: number, nowMs: number, windowMs = RATE_WINDOW_MS): WindowState {
  const start = windowStart(nowMs, windowMs)
  return { limit, count, windowStartMs: start, resetMs: start + windowMs - nowMs }
}

/** IETF RateLimit-Policy / RateLimit header values (draft-ietf-httpapi-ratelimit-headers). */
export function rateLimitHeaders(name: PolicyName, s: WindowState): Record<string, string> {
  const remaining = Math.max(0, s.limit - s.count)
  const resetSeconds = Math.max(1, Math.ceil(s.resetMs / 1000))
  return {
    'ratelimit-policy': `"${name}";q=${s.limit};w=${RATE_WINDOW_MS / 1000}`,
    ratelimit: `"${name}";r=${remaining};t=${resetSeconds}`,
  }
}

/**
 * Authentication lockout: per source address, LOCKOUT_THRESHOLD failures
 * within any LOCKOUT_WINDOW_MS (an exact sliding log) lock the address for
 * LOCKOUT_MS.
 */
export const LOCKOUT_THRESHOLD = 10
export const LOCKOUT_WINDOW_MS = 15 * 60_000
export const LOCKOUT_MS = 15 * 60_000

/**
 * The lockouts that follow this rule, each with counters of its own so that
 * failures in one never lock another: the API keys (`/v1`), portal sign-in,
 * console sign-in, the console's first-operator setup (a wrong ADMIN_TOKEN),
 * and the operator token of the operator API (`Authorization: Bearer`).
 */
export const LOCKOUT_SCOPES = ['api', 'portal', 'console', 'setup', 'admin'] as const
export type LockoutScope = (typeof LOCKOUT_SCOPES)[number]

const LOCKOUT_KEY_PREFIX: Record<LockoutScope, string> = { api: 'auth', portal: 'signin', console: 'ops-signin', setup: 'ops-setup', admin: 'ops-token' }

/**
 * The counter keys of one address's lockout: its sliding log of failures and its lock. They count per
 * source (an IPv4 address, or an IPv6 /64: domain/traffic-source.ts), since one IPv6 host may use its
 * whole /64.
 */
export function lockoutKeys(scope: LockoutScope, address: string): { failures: string; lock: string } {
  const prefix = LOCKOUT_KEY_PREFIX[scope]
  const source = sourceOf(address)
  return { failures: `${prefix}-fail:${source}`, lock: `${prefix}-lock:${source}` }
}

/** The counter key of one source's public reads (the status, leaderboard and report pages' per-address limit). */
export function publicReadKey(address: string): string {
  return `public:${sourceOf(address)}`
}

/**
 * Serving abuse limits (operations.md section 2), per minute of service time:
 * operator config (`serve_*_per_min`, domain/order-config.ts has the
 * defaults). A real install asks for a decision at most every ten seconds
 * per surface, so 30 a minute per viewer is generous; one address may front
 * a whole office.
 */
export interface ServingLimits {
  decisionsPerViewer: number
  decisionsPerAddress: number
  eventsPerAddress: number
  /** What one source may make billable (config `ivt_*`, domain/invalid-traffic.ts). */
  sources: SourceLimits
  /** Config `attestation` (domain/attestation.ts). */
  attestation: AttestationMode
}

export function servingLimitsOf(config: {
  serve_decisions_per_viewer_per_min: number
  serve_decisions_per_address_per_min: number
  serve_events_per_address_per_min: number
  ivt_max_viewers_per_source_per_day: number
  ivt_max_billable_per_source_per_hour: number
  ivt_max_billable_per_ipv6_48_per_hour: number
  ivt_max_viewers_per_ipv6_48_per_day: number
  attestation: AttestationMode
}): ServingLimits {
  return {
    decisionsPerViewer: config.serve_decisions_per_viewer_per_min,
    decisionsPerAddress: config.serve_decisions_per_address_per_min,
    eventsPerAddress: config.serve_events_per_address_per_min,
    sources: {
      maxViewersPerDay: config.ivt_max_viewers_per_source_per_day,
      maxBillablePerHour: config.ivt_max_billable_per_source_per_hour,
      maxViewersPer48PerDay: config.ivt_max_viewers_per_ipv6_48_per_day,
      maxBillablePer48PerHour: config.ivt_max_billable_per_ipv6_48_per_hour,
    },
    attestation: config.attestation,
  }
}
