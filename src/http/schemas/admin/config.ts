import { Type } from 'typebox'
import { OrderConfigSchema } from '../account.ts'
import { MAX_USD } from './billing.ts'

const MAX_PER_MIN = 1_000_000
const EXPORT_SCHEMA_VERSIONS = ['ledger-export-v1', 'ledger-export-v2'] as const

/** Any subset of the Account `config` fields plus the operator-only ones; bounded like every operator figure. */
export const ConfigPatchSchema = Type.Object(
  {
    min_cpm_usd: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: MAX_USD })),
    max_total_usd: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: MAX_USD })),
    max_blocks: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    block_impressions: Type.Optional(Type.Literal(1000)),
    surface_split_enabled: Type.Optional(Type.Boolean()),
    country_targeting_enabled: Type.Optional(Type.Boolean()),
    outstanding_balance_cap_usd: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: MAX_USD }), Type.Null()])),
    create_rate_limit_per_min: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PER_MIN })),
    read_rate_limit_per_min: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PER_MIN })),
    export_max_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 31 })),
    export_max_rows: Type.Optional(Type.Integer({ minimum: 1, maximum: 250_000 })),
    export_schema_version: Type.Optional(Type.Enum(EXPORT_SCHEMA_VERSIONS)),
    stats_max_live_events: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000_000 })),
  },
  { additionalProperties: false, minProperties: 1 },
)

/** The whole config: code defaults under the operator's overrides. */
export const ConfigSchema = Type.Object({
  ...OrderConfigSchema.properties,
  export_max_days: Type.Integer({ description: 'Longest export window, in days.' }),
  export_max_rows: Type.Integer({ description: 'Most rows in one export.' }),
  export_schema_version: Type.Enum(EXPORT_SCHEMA_VERSIONS, { description: 'Row format of new exports.' }),
  stats_max_live_events: Type.Integer({ description: '/v1/stats refuses a live ledger scan estimated above this many events.' }),
})
