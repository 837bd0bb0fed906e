import { Type } from 'typebox'
import { DateTime, Nullable } from './common.ts'
import { COMPONENTS } from './status.ts'

// Operator figures are bounded so that every derived amount stays an exact integer: a billion USD
// is 10^15 micro-USD, below 2^53. Without bounds, `1e309` (Infinity) was stored as null.
const MAX_USD = 1_000_000_000
const MAX_PER_MIN = 1_000_000

export const AccountCreateSchema = Type.Object(
  { email: Type.String({ format: 'email', maxLength: 254 }), billing_email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })) },
  { additionalProperties: false },
)
export const AccountCreatedSchema = Type.Object({ user_id: Type.String(), api_key: Type.String() })
export const UserParams = Type.Object({ user_id: Type.String({ minLength: 1, maxLength: 64 }) })

export const BillingEnrollSchema = Type.Union([
  Type.Object(
    {
      mode: Type.Literal('weekly_autopay'),
      card_number: Type.String({ pattern: '^[0-9 -]{12,23}$' }),
      billing_country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      mode: Type.Literal('net30_invoice'),
      credit_limit_cents: Type.Integer({ minimum: 0, maximum: MAX_USD * 100 }),
      billing_country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
    },
    { additionalProperties: false },
  ),
  // Operator-only: legacy accounts keep their semi-monthly card charges (the 1st and 15th, 06:00 UTC).
  Type.Object(
    {
      mode: Type.Literal('legacy_semimonthly_autopay'),
      card_number: Type.String({ pattern: '^[0-9 -]{12,23}$' }),
      billing_country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
    },
    { additionalProperties: false },
  ),
])

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
    export_schema_version: Type.Optional(Type.String({ enum: ['ledger-export-v1', 'ledger-export-v2'] })),
    stats_max_live_events: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000_000 })),
  },
  { additionalProperties: false, minProperties: 1 },
)

export const ComponentParams = Type.Object({ component: Type.String({ enum: [...COMPONENTS] }) })
export const ComponentPutSchema = Type.Object(
  { state: Type.String({ enum: ['operational', 'degraded', 'disabled'] }) },
  { additionalProperties: false },
)

export const ModerationSchema = Type.Object({ status: Type.String({ enum: ['approved', 'rejected'] }) }, { additionalProperties: false })

export const ClockSchema = Type.Union([
  // At most about three years per move: enough for any billing or reporting scenario.
  Type.Object({ advance_seconds: Type.Number({ minimum: 0, maximum: 100_000_000 }) }, { additionalProperties: false }),
  Type.Object({ now: DateTime }, { additionalProperties: false }),
])

export const InvoiceParams = Type.Object({ invoice_id: Type.String({ minLength: 1, maxLength: 64 }) })

export const InvoiceSchema = Type.Object({
  invoice_id: Type.String(),
  user_id: Type.String(),
  billing_mode: Type.String(),
  period: Type.Object({ start: DateTime, end: DateTime }),
  delivered_micros: Type.Integer(),
  amount_cents: Type.Integer(),
  credits_applied_cents: Type.Integer(),
  total_cents: Type.Integer(),
  status: Type.String({ enum: ['open', 'paid', 'payment_failed', 'void'] }),
  finalized_at: DateTime,
  due_at: DateTime,
  paid_at: Nullable(DateTime),
  charge_attempts: Type.Integer(),
  awaiting_authentication: Type.Boolean({ description: "The processor holds this invoice's charge until the card holder authenticates it." }),
})

export const CollectionHoldSchema = Type.Object(
  { hold: Nullable(Type.String({ enum: ['paused', 'disabled'] })) },
  { additionalProperties: false },
)

export const VoidInvoiceSchema = Type.Object(
  { memo: Type.String({ minLength: 1, maxLength: 500, description: 'Why the invoice is voided (kept in the billing events).' }) },
  { additionalProperties: false },
)
