import { Field, FormError, PostForm } from '../forms.tsx'
import { CONFIG_FIELDS, CONFIG_RULES } from '../../../domain/config-rules.ts'
import type { ServiceConfig } from '../../../domain/order-config.ts'
import { OpsPage, type OpsFrame } from './frame.tsx'
import type { FieldErrors } from './messages.ts'

/** What each field does, in a few words (the API names the field; this explains it). */
const ABOUT: Record<keyof ServiceConfig, string> = {
  block_impressions: 'Impressions per block (fixed at 1,000).',
  min_cpm_usd: 'Bid floor, USD per thousand impressions.',
  max_total_usd: 'Upper bound on cpm_usd × blocks for one order, USD.',
  max_blocks: 'Most blocks in one order.',
  surface_split_enabled: 'Orders may target one surface (extension or terminal).',
  country_targeting_enabled: 'Orders may target countries.',
  outstanding_balance_cap_usd: 'Most an account may owe before new orders are refused, USD; empty for no cap.',
  create_rate_limit_per_min: 'Campaign creations per account per minute.',
  read_rate_limit_per_min: 'Other API calls per account per minute.',
  export_max_days: 'Longest export window, days (at most 31).',
  export_max_rows: 'Most rows in one export (at most 250,000).',
  export_schema_version: 'Row format of new exports whose request names none; ledger-export-v3 adds non_billable_reason.',
  stats_max_live_events: '/v1/stats refuses a live ledger scan estimated above this many events.',
  serve_decisions_per_viewer_per_min: 'Serving: decisions per viewer per minute.',
  serve_decisions_per_address_per_min: 'Serving: decisions per client address per minute.',
  serve_events_per_address_per_min: 'Serving: views and clicks per client address per minute.',
  ivt_max_viewers_per_source_per_day: 'Invalid traffic: viewers of one source (IPv4 address or IPv6 /64) that can bill in one UTC day.',
  ivt_max_billable_per_source_per_hour: 'Invalid traffic: billable impressions and clicks of one source in one UTC hour.',
  ivt_max_billable_per_ipv6_48_per_hour: 'Invalid traffic: billable impressions and clicks of one IPv6 /48 (all its /64s together) in one UTC hour.',
  ivt_max_viewers_per_ipv6_48_per_day: 'Invalid traffic: viewers of one IPv6 /48 (all its /64s together) that can bill in one UTC day.',
  attestation: 'Attested views: off ignores Privacy Pass tokens; prefer bills attested views without the address bounds; required bills only attested views.',
  attest_tokens_per_subject_per_day: 'Privacy Pass tokens one signed-in account (attester subject) may be issued per UTC day.',
}

type ConfigValue = ServiceConfig[keyof ServiceConfig]

export const shown = (value: ConfigValue): string => (value === null ? '' : String(value))
const described = (value: ConfigValue): string => (value === null ? 'none' : String(value))

/**
 * `/ops/config`: every config field with its current and default value, in
 * one form; only the fields changed are sent to the same PATCH use case as
 * the operator API, and a refused value is shown next to its field.
 */
export function ConfigPage(props: {
  frame: OpsFrame
  current: ServiceConfig
  defaults: ServiceConfig
  errors?: FieldErrors
  values?: Partial<Record<string, string>>
}) {
  const errors = props.errors ?? {}
  return (
    <OpsPage frame={props.frame} title="Config" heading="Live config" path="/ops/config">
      <p class="muted">Changes take effect on the next request. Fields are named as in PATCH /admin/v1/config.</p>
      <FormError message={errors.form ?? errors.body} />
      <PostForm action="/ops/config" csrf={props.frame.csrf} label="Live config">
        {CONFIG_FIELDS.map((field) => {
          const rule = CONFIG_RULES[field]
          const value = props.values?.[field] ?? shown(props.current[field])
          const overridden = JSON.stringify(props.current[field]) !== JSON.stringify(props.defaults[field])
          const hint = `${ABOUT[field]} Current: ${described(props.current[field])}. Default: ${described(props.defaults[field])}${overridden ? ' (changed)' : ''}.`
          if (rule.kind === 'boolean' || rule.kind === 'choice') {
            const options = rule.kind === 'boolean' ? ['true', 'false'] : rule.values
            const id = `f-${field}`
            const error = errors[field]
            return (
              <div class={error ? 'field has-error' : 'field'}>
                <label for={id}>{field}</label>
                <p class="hint" id={`${id}-hint`}>
                  {hint}
                </p>
                <select id={id} name={field} aria-describedby={error ? `${id}-hint ${id}-error` : `${id}-hint`} aria-invalid={error ? 'true' : undefined}>
                  {options.map((o) => (
                    <option value={o} selected={o === value}>
                      {o}
                    </option>
                  ))}
                </select>
                {error ? (
                  <p class="field-error" id={`${id}-error`}>
                    {error}
                  </p>
                ) : null}
              </div>
            )
          }
          return <Field type="text" name={field} label={field} value={value} inputMode={rule.kind === 'number' && rule.integer ? 'numeric' : 'decimal'} hint={hint} error={errors[field]} />
        })}
        <button type="submit">Save config</button>
      </PostForm>
    </OpsPage>
  )
}
