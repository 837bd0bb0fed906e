import { Type } from 'typebox'
import { DateTime, Nullable, StringEnum } from './common.ts'
import { BILLING_REASONS, CAMPAIGN_WRITES } from '../../domain/access.ts'
import { BILLING_MODES, CADENCES } from '../../domain/billing-schedule.ts'
import { COLLECTION_STATUSES } from '../../domain/collection.ts'

const COLLECTION_STATUS = StringEnum(COLLECTION_STATUSES, {
  description:
    '`not_enrolled`: no arrangement yet. `setup_pending`: enrollment started, not complete (Net 30 awaiting approval, or a card ' +
    'awaiting the holder\'s authentication). `ready`: collecting. `payment_failed`: a charge was declined; campaigns stop serving ' +
    'until a working card is enrolled. `action_required`: a charge awaits the card holder\'s authentication. `paused`: an operator ' +
    'holds collection; delivery continues. `disabled`: an operator disabled billing; campaigns stop serving. Every state but ' +
    '`ready` makes writes answer 402.',
})

export const OverdueInvoiceSchema = Type.Object({
  invoice_id: Type.String(),
  total_cents: Type.Integer({ description: 'Amount due after credits.' }),
  due_at: DateTime,
})

export const OrderConfigSchema = Type.Object({
  block_impressions: Type.Integer({ description: 'Impressions per block (1,000).' }),
  min_cpm_usd: Type.Number({ description: 'Current bid floor.' }),
  max_total_usd: Type.Number({ description: 'Upper bound on cpm_usd × blocks for one order.' }),
  max_blocks: Type.Integer(),
  surface_split_enabled: Type.Boolean(),
  country_targeting_enabled: Type.Boolean(),
  outstanding_balance_cap_usd: Nullable(Type.Number()),
  create_rate_limit_per_min: Type.Integer(),
  read_rate_limit_per_min: Type.Integer(),
})

export const BalanceSchema = Type.Object({
  owed_cents: Type.Integer({
    description: 'Complete payable balance: `pending_cents` (not yet invoiced) + `unpaid_cents` (invoiced, not paid) − `credits_cents` (posted credits not yet applied).',
  }),
  pending_cents: Type.Integer({ description: 'Delivered value not yet invoiced, in cents (rounded half up from micros).' }),
  invoiced_cents: Type.Integer({
    description: 'Everything invoiced to date, paid, unpaid and voided alike, before credits (the sum of invoices\' `amount_cents`). Not an amount due: see `unpaid_cents`.',
  }),
  unpaid_cents: Type.Integer({
    description: 'Finalized invoices not yet paid (`open` or `payment_failed`), after credits applied: the invoiced part of `owed_cents`. Voided invoices are forgiven and not counted.',
  }),
  paid_cents: Type.Integer({ description: 'Paid invoices, after credits applied.' }),
  voided_cents: Type.Integer({ description: 'Amounts of voided invoices: forgiven, never billed again; their applied credits return to `credits_cents`.' }),
  credits_cents: Type.Integer({ description: 'Posted adjustment credits not yet applied.' }),
  pending_charge_count: Type.Integer({ description: 'How many finalized invoices await payment (the invoices `unpaid_cents` adds up).' }),
  invoiced_charge_count: Type.Integer({ description: 'How many invoices were finalized to date (the invoices `invoiced_cents` adds up).' }),
  last_invoiced_at: Nullable(DateTime),
  next_invoice_at: Nullable(DateTime),
  unbilled_delivered_micros: Type.Integer(),
  overdue_invoices: Type.Array(OverdueInvoiceSchema, {
    description: 'Net 30 invoices unpaid past their due date (service clock). While any is listed, writes answer 402 `invoice_overdue`.',
  }),
  collection_status: COLLECTION_STATUS,
  amount_basis: Type.Literal('delivered_value'),
  cadence: StringEnum(CADENCES),
  billing_mode: StringEnum(BILLING_MODES),
})

export const BillingProfileSchema = Type.Object({
  collection_status: COLLECTION_STATUS,
  requested_billing_mode: Nullable(StringEnum(BILLING_MODES)),
  effective_billing_mode: StringEnum(['disabled', ...BILLING_MODES], {
    description: '`legacy_semimonthly_autopay` only for legacy accounts an operator enrolled in it (charged the 1st and 15th, 06:00 UTC).',
  }),
  credit_limit_cents: Type.Integer({ minimum: 0 }),
  tax_ready: Type.Boolean({ description: 'True once a billing country is on file at the processor.' }),
  next_bill_at: Nullable(DateTime),
  payment_method: Nullable(Type.Object({ brand: Nullable(Type.String()), last4: Nullable(Type.String()) })),
})

export const AccountSchema = Type.Object({
  user_id: Type.String(),
  key_prefix: Type.String({ description: 'Leading part of the current API key.' }),
  key_last_used_at: Nullable({
    ...DateTime,
    description: 'Last authenticated use of the current key, recorded at one-minute granularity.',
  }),
  outstanding_cents: Type.Integer({ description: 'Delivered value not yet invoiced, in cents.' }),
  currency: Type.Literal('usd'),
  billing: StringEnum(['delivered_value_postpay', ...BILLING_MODES], {
    description: 'The effective billing arrangement; `delivered_value_postpay` while none is enrolled.',
  }),
  billing_email: Nullable(Type.String()),
  balance: BalanceSchema,
  billing_profile: BillingProfileSchema,
  access: Type.Object({
    reporting: StringEnum(['operational', 'degraded']),
    campaign_writes: StringEnum(CAMPAIGN_WRITES),
    billing_reason: Nullable(
      StringEnum(BILLING_REASONS, {
        description: 'Why billing blocks writes: the `detail.reason` of their 402. Null when billing allows writes (403 causes are not billing).',
      }),
    ),
    write_approved: Type.Boolean(),
    terms_accepted: Type.Boolean(),
    terms_version: Nullable(
      Type.String({
        description:
          'The version of the API terms accepted (a date, e.g. `2026-11-01`; the portal shows the current text). Null while the terms ' +
          'are not accepted, and for an acceptance recorded before versions were kept.',
      }),
    ),
  }),
  config: OrderConfigSchema,
})
