import { Type } from 'typebox'
import { DateTime, NextCursor, Nullable, PageQuerySchema, StringEnum } from '../common.ts'

export const INVOICE_STATUSES = ['open', 'paid', 'payment_failed', 'void'] as const

export const InvoiceParams = Type.Object({ invoice_id: Type.String({ minLength: 1, maxLength: 64 }) })

export const InvoiceSchema = Type.Object({
  invoice_id: Type.String(),
  user_id: Type.String(),
  billing_mode: Type.String({ description: 'The cadence it was billed on: `weekly_autopay`, `net30_invoice` or `legacy_semimonthly_autopay`.' }),
  period: Type.Object({ start: DateTime, end: DateTime }),
  delivered_micros: Type.Integer(),
  amount_cents: Type.Integer(),
  credits_applied_cents: Type.Integer(),
  total_cents: Type.Integer(),
  status: StringEnum(INVOICE_STATUSES),
  finalized_at: DateTime,
  due_at: DateTime,
  paid_at: Nullable(DateTime),
  charge_attempts: Type.Integer(),
  awaiting_authentication: Type.Boolean({ description: "The processor holds this invoice's charge until the card holder authenticates it." }),
})

export const InvoiceListSchema = Type.Object({ invoices: Type.Array(InvoiceSchema, { description: 'Newest period first.' }) })

export const VoidInvoiceSchema = Type.Object(
  { memo: Type.String({ minLength: 1, maxLength: 500, description: 'Why the invoice is voided (kept in the billing events).' }) },
  { additionalProperties: false },
)

export const InvoiceQuery = Type.Object(
  { status: Type.Optional(StringEnum(INVOICE_STATUSES, { description: 'Only invoices in this status; absent: all.' })), ...PageQuerySchema.properties },
  { additionalProperties: false },
)

export const InvoicePageSchema = Type.Object({
  invoices: Type.Array(InvoiceSchema, { description: 'Every account\'s, newest first (by finalization).' }),
  next_cursor: NextCursor,
})
