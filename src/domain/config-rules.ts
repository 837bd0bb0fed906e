import type { FieldDetail } from './errors.ts'
import { MAX_OPERATOR_USD } from './money.ts'
import { EXPORT_CEILING, type ServiceConfig } from './order-config.ts'

/**
 * What an operator may set each config field to (PATCH /admin/v1/config and
 * the console's config page). The operator API's schema is built from this
 * table and `configPatchProblems` applies it, so both refuse the same values
 * with the same `{field, reason, ...}`.
 */
export type ConfigRule =
  | { kind: 'number'; integer: boolean; minimum: number; exclusiveMinimum?: true; maximum: number; nullable?: true }
  | { kind: 'boolean' }
  | { kind: 'choice'; values: readonly string[] }
  | { kind: 'fixed'; value: number }

const MAX_PER_MIN = 1_000_000
import { EXPORT_SCHEMA_VERSIONS } from './export-csv.ts'
import { ATTESTATION_MODES } from './attestation.ts'

export { EXPORT_SCHEMA_VERSIONS }

const usd = (rule: Partial<Extract<ConfigRule, { kind: 'number' }>> = {}): ConfigRule => ({
  kind: 'number',
  integer: false,
  minimum: 0,
  maximum: MAX_OPERATOR_USD,
  ...rule,
})
const integer = (minimum: number, maximum: number): ConfigRule => ({ kind: 'number', integer: true, minimum, maximum })

export const CONFIG_RULES: { readonly [K in keyof ServiceConfig]: ConfigRule } = {
  block_impressions: { kind: 'fixed', value: 1000 },
  min_cpm_usd: usd({ exclusiveMinimum: true }),
  max_total_usd: usd({ exclusiveMinimum: true }),
  max_blocks: integer(1, 100),
  surface_split_enabled: { kind: 'boolean' },
  country_targeting_enabled: { kind: 'boolean' },
  outstanding_balance_cap_usd: usd({ nullable: true }),
  create_rate_limit_per_min: integer(1, MAX_PER_MIN),
  read_rate_limit_per_min: integer(1, MAX_PER_MIN),
  // Export limits may only be lowered (advertiser spec section 8).
  export_max_days: integer(1, EXPORT_CEILING.days),
  export_max_rows: integer(1, EXPORT_CEILING.rows),
  export_schema_version: { kind: 'choice', values: EXPORT_SCHEMA_VERSIONS },
  stats_max_live_events: integer(1, 1_000_000_000_000),
  serve_decisions_per_viewer_per_min: integer(1, MAX_PER_MIN),
  serve_decisions_per_address_per_min: integer(1, MAX_PER_MIN),
  serve_events_per_address_per_min: integer(1, MAX_PER_MIN),
  ivt_max_viewers_per_source_per_day: integer(1, 1_000_000),
  ivt_max_billable_per_source_per_hour: integer(1, 10_000_000),
  ivt_max_billable_per_ipv6_48_per_hour: integer(1, 10_000_000),
  ivt_max_viewers_per_ipv6_48_per_day: integer(1, 1_000_000),
  attestation: { kind: 'choice', values: ATTESTATION_MODES },
  attest_tokens_per_subject_per_day: integer(1, 1_000_000),
}

export const CONFIG_FIELDS = Object.keys(CONFIG_RULES) as (keyof ServiceConfig)[]

const isConfigField = (name: string): name is keyof ServiceConfig => Object.hasOwn(CONFIG_RULES, name)

/** Why `value` cannot be `field`'s new value, or null. */
function problemOf(field: keyof ServiceConfig, value: unknown): FieldDetail | null {
  const rule = CONFIG_RULES[field]
  switch (rule.kind) {
    case 'fixed':
      return value === rule.value ? null : { field, reason: 'invalid_value', allowed: [rule.value] }
    case 'boolean':
      return typeof value === 'boolean' ? null : { field, reason: 'invalid_type', expected: 'boolean' }
    case 'choice':
      return typeof value === 'string' && rule.values.includes(value) ? null : { field, reason: 'invalid_value', allowed: rule.values }
    case 'number': {
      if (value === null && rule.nullable) return null
      const expected = rule.integer ? 'integer' : 'number'
      if (typeof value !== 'number' || !Number.isFinite(value) || (rule.integer && !Number.isInteger(value))) {
        return { field, reason: 'invalid_type', expected }
      }
      if (rule.exclusiveMinimum ? value <= rule.minimum : value < rule.minimum) {
        return { field, reason: 'below_minimum', minimum: rule.minimum, ...(rule.exclusiveMinimum ? { exclusive: true } : {}) }
      }
      if (value > rule.maximum) return { field, reason: 'above_maximum', maximum: rule.maximum }
      return null
    }
  }
}

/** Every reason to refuse `patch`, in field order (an empty patch and unknown fields included); none: it may be applied. */
export function configPatchProblems(patch: Readonly<Record<string, unknown>>): FieldDetail[] {
  const names = Object.keys(patch)
  if (names.length === 0) return [{ field: 'body', reason: 'empty_body' }]
  const problems: FieldDetail[] = names.filter((n) => !isConfigField(n)).map((field) => ({ field, reason: 'unknown_field' }))
  for (const field of CONFIG_FIELDS) {
    if (!Object.hasOwn(patch, field)) continue
    const problem = problemOf(field, patch[field])
    if (problem) problems.push(problem)
  }
  return problems
}
