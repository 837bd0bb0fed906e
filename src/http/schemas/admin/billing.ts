import { Type } from 'typebox'
import { DateTime, Nullable } from '../common.ts'
import { MAX_OPERATOR_USD as MAX_USD } from '../../../domain/money.ts'

const CardNumber = Type.String({
  pattern: '^[0-9 -]{12,23}$',
  description: 'Simulated processor test cards: 4242424242424242 (charges succeed), 4000000000000341 (charges fail), 4000002500003155 (needs authentication).',
})
const BillingCountry = Type.Optional(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 billing address country.' }))

export const BillingEnrollSchema = Type.Union([
  Type.Object({ mode: Type.Literal('weekly_autopay'), card_number: CardNumber, billing_country: BillingCountry }, { additionalProperties: false }),
  Type.Object(
    {
      mode: Type.Literal('net30_invoice'),
      credit_limit_cents: Type.Integer({ minimum: 0, maximum: MAX_USD * 100 }),
      billing_country: BillingCountry,
    },
    { additionalProperties: false },
  ),
  // Operator-only: legacy accounts keep their semi-monthly card charges (the 1st and 15th, 06:00 UTC).
  Type.Object(
    { mode: Type.Literal('legacy_semimonthly_autopay'), card_number: CardNumber, billing_country: BillingCountry },
    { additionalProperties: false },
  ),
])

export const CollectionHoldSchema = Type.Object(
  {
    hold: Nullable(
      Type.Enum(['paused', 'disabled'], {
        description: '`paused` holds charges, delivery continues; `disabled` also stops delivery; null lifts the hold.',
      }),
    ),
  },
  { additionalProperties: false },
)

export const CreditCreateSchema = Type.Object(
  { amount_cents: Type.Integer({ minimum: 1, maximum: 100_000_000 }), memo: Type.String({ minLength: 1, maxLength: 500 }) },
  { additionalProperties: false },
)

export const CreditSchema = Type.Object({
  credit_id: Type.String(),
  user_id: Type.String(),
  amount_cents: Type.Integer(),
  memo: Type.String(),
  posted_at: DateTime,
})
