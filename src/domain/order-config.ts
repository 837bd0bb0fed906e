import type { AttestationMode } from './attestation.ts'
/**
 * Live order gates (Account `config`) plus the operator-only export settings.
 * Defaults live here; operators override any subset (PATCH /admin/v1/config).
 */
import type { ExportSchemaVersion } from './export-csv.ts'

export interface OrderConfig {
  block_impressions: number
  min_cpm_usd: number
  max_total_usd: number
  max_blocks: number
  surface_split_enabled: boolean
  country_targeting_enabled: boolean
  outstanding_balance_cap_usd: number | null
  create_rate_limit_per_min: number
  read_rate_limit_per_min: number
}

export interface ServiceConfig extends OrderConfig {
  export_max_days: number
  export_max_rows: number
  /** ledger-export-v2 by default (operations.md); v3 adds `non_billable_reason`. */
  export_schema_version: ExportSchemaVersion
  /** /stats refuses a live ledger scan estimated above this many events (window_too_costly). */
  stats_max_live_events: number
  /** Serving abuse limits (domain/rate-limits.ts#servingLimitsOf), per minute of service time. */
  serve_decisions_per_viewer_per_min: number
  serve_decisions_per_address_per_min: number
  serve_events_per_address_per_min: number
  /** Invalid-traffic bounds per source (domain/invalid-traffic.ts; operations.md section 2). */
  ivt_max_viewers_per_source_per_day: number
  ivt_max_billable_per_source_per_hour: number
  /** The same bounds for an IPv6 /48 as a whole (its 65,536 /64 sources together). */
  ivt_max_billable_per_ipv6_48_per_hour: number
  ivt_max_viewers_per_ipv6_48_per_day: number
  /** Attested views (domain/attestation.ts; operations.md section 2): off, prefer (default) or required. */
  attestation: AttestationMode
  /** Privacy Pass tokens one attester subject may be issued in one UTC day. */
  attest_tokens_per_subject_per_day: number
}

export const DEFAULT_CONFIG: ServiceConfig = {
  block_impressions: 1000,
  min_cpm_usd: 0.5,
  max_total_usd: 5000,
  max_blocks: 100,
  surface_split_enabled: true,
  country_targeting_enabled: true,
  outstanding_balance_cap_usd: 10_000,
  create_rate_limit_per_min: 5,
  read_rate_limit_per_min: 60,
  export_max_days: 31,
  export_max_rows: 250_000,
  export_schema_version: 'ledger-export-v2',
  stats_max_live_events: 5_000_000,
  serve_decisions_per_viewer_per_min: 30,
  serve_decisions_per_address_per_min: 3_000,
  serve_events_per_address_per_min: 6_000,
  ivt_max_viewers_per_source_per_day: 50,
  ivt_max_billable_per_source_per_hour: 1_000,
  ivt_max_billable_per_ipv6_48_per_hour: 2_000,
  ivt_max_viewers_per_ipv6_48_per_day: 100,
  attestation: 'prefer',
  attest_tokens_per_subject_per_day: 1_500,
}

/** Export limits may only be lowered by operators (advertiser spec section 8). */
export const EXPORT_CEILING = { days: 31, rows: 250_000 }

export function orderConfigOf(config: ServiceConfig): OrderConfig {
  return {
    block_impressions: config.block_impressions,
    min_cpm_usd: config.min_cpm_usd,
    max_total_usd: config.max_total_usd,
    max_blocks: config.max_blocks,
    surface_split_enabled: config.surface_split_enabled,
    country_targeting_enabled: config.country_targeting_enabled,
    outstanding_balance_cap_usd: config.outstanding_balance_cap_usd,
    create_rate_limit_per_min: config.create_rate_limit_per_min,
    read_rate_limit_per_min: config.read_rate_limit_per_min,
  }
}
