import { Type, type TSchema } from 'typebox'
import { ATTESTATION_MODES } from '../../../domain/attestation.ts'
import { OrderConfigSchema } from '../account.ts'
import { CONFIG_FIELDS, CONFIG_RULES, EXPORT_SCHEMA_VERSIONS, type ConfigRule } from '../../../domain/config-rules.ts'

/** A config field's schema, from the one table of what operators may set (domain/config-rules.ts). */
function ruleSchema(rule: ConfigRule): TSchema {
  switch (rule.kind) {
    case 'fixed':
      return Type.Literal(rule.value)
    case 'boolean':
      return Type.Boolean()
    case 'choice':
      return Type.Enum(rule.values)
    case 'number': {
      const bounds = { ...(rule.exclusiveMinimum ? { exclusiveMinimum: rule.minimum } : { minimum: rule.minimum }), maximum: rule.maximum }
      const number = rule.integer ? Type.Integer(bounds) : Type.Number(bounds)
      return rule.nullable ? Type.Union([number, Type.Null()]) : number
    }
  }
}

/** Any subset of the Account `config` fields plus the operator-only ones; bounded like every operator figure. */
export const ConfigPatchSchema = Type.Object(
  Object.fromEntries(CONFIG_FIELDS.map((field) => [field, Type.Optional(ruleSchema(CONFIG_RULES[field]))])),
  { additionalProperties: false, minProperties: 1 },
)

/** The whole config: code defaults under the operator's overrides. */
export const ConfigSchema = Type.Object({
  ...OrderConfigSchema.properties,
  export_max_days: Type.Integer({ description: 'Longest export window, in days.' }),
  export_max_rows: Type.Integer({ description: 'Most rows in one export.' }),
  export_schema_version: Type.Enum(EXPORT_SCHEMA_VERSIONS, {
    description: 'Row format of new exports whose request names no `schema_version` (default ledger-export-v2); ledger-export-v3 adds `non_billable_reason`.',
  }),
  stats_max_live_events: Type.Integer({ description: '/v1/stats refuses a live ledger scan estimated above this many events.' }),
  serve_decisions_per_viewer_per_min: Type.Integer({ description: 'Serving abuse limit: POST /serve/v1/decisions per viewer per minute (429 above).' }),
  serve_decisions_per_address_per_min: Type.Integer({ description: 'Serving abuse limit: POST /serve/v1/decisions per client address per minute (429 above).' }),
  serve_events_per_address_per_min: Type.Integer({ description: 'Serving abuse limit: views and clicks per client address per minute (429 above).' }),
  ivt_max_viewers_per_source_per_day: Type.Integer({
    description:
      'Invalid traffic: distinct viewer_ids of one source (an IPv4 address or IPv6 /64) that can earn billable units in one UTC day; ' +
      'past it a view or click is recorded non-billable with reason invalid_traffic (default 50).',
  }),
  ivt_max_billable_per_source_per_hour: Type.Integer({
    description: 'Invalid traffic: billable units (impressions, and clicks of click campaigns) of one source in one UTC hour (default 1000).',
  }),
  ivt_max_billable_per_ipv6_48_per_hour: Type.Integer({
    description:
      'Invalid traffic: billable units of one IPv6 /48 as a whole (all its /64 sources together) in one UTC hour (default 2000); ' +
      'past it a view or click is recorded non-billable with reason invalid_traffic.',
  }),
  ivt_max_viewers_per_ipv6_48_per_day: Type.Integer({
    description: 'Invalid traffic: distinct viewer_ids of one IPv6 /48 as a whole (all its /64 sources together) that can earn billable units in one UTC day (default 100).',
  }),
  attestation: Type.Enum(ATTESTATION_MODES, {
    description:
      'Attested views (Privacy Pass): off ignores tokens; prefer (default) bills attested views without the address bounds and unattested ones under them; ' +
      'required records an unattested view non-billable with reason unattested.',
  }),
  attest_tokens_per_subject_per_day: Type.Integer({ description: 'Privacy Pass tokens one attester subject may be issued per UTC day (429 past it; default 1500).' }),
})
