import { Type } from 'typebox'
import { DateTime, NextCursor, Nullable, PageQuerySchema, StringEnum } from './common.ts'
import { INVOICE_STATUSES } from './admin/invoices.ts'

// The verifiable ledger (docs/ledger-verification.md): closed days' roots, inclusion proofs, and the
// advertiser's invoices with the days they took.

const Hash = (description: string) => Type.String({ pattern: '^[0-9a-f]{64}$', description })
const Day = (description: string) => Type.String({ format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description })

export const LEDGER_DAYS_LIMIT_MAX = 400
export const LEDGER_DAYS_LIMIT_DEFAULT = 100

export const LedgerDaysQuery = Type.Object(
  {
    from: Day('First UTC day (inclusive), YYYY-MM-DD.'),
    to: Day('Last UTC day (inclusive), YYYY-MM-DD; not before `from` (else 400 `to_before_from`).'),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: LEDGER_DAYS_LIMIT_MAX, default: LEDGER_DAYS_LIMIT_DEFAULT, description: `Days per page, 1-${LEDGER_DAYS_LIMIT_MAX}; ${LEDGER_DAYS_LIMIT_DEFAULT} when omitted.` }),
    ),
    cursor: PageQuerySchema.properties.cursor,
  },
  { additionalProperties: false },
)

export const LedgerDaySchema = Type.Object({
  date: Day('The UTC day.'),
  rows: Type.Integer({ minimum: 1, description: 'Ledger rows of the account that day: the rows of a `ledger-export-v3` export of the day.' }),
  billable_impressions: Type.Integer({ minimum: 0, description: 'Rows with `event_type` `impression` and `billable` true (voided ones included: their money comes back as a credit).' }),
  clicks: Type.Integer({ minimum: 0, description: 'Rows with `event_type` `click`, billable or not.' }),
  debit_micros: Type.Integer({ minimum: 0, description: 'Sum of the rows\' `debit_micros`: the day\'s billable debits.' }),
  invoiced_micros: Type.Integer({ minimum: 0, description: 'What invoices took from the day so far (the sum of their `days[].micros` for this date); `debit_micros` − this is not yet invoiced.' }),
  root: Hash('The account\'s day root: the SHA-256 chain over the day\'s rows in export order, started at `previous_root` (docs/ledger-verification.md).'),
  previous_root: Hash('The account\'s root of its latest earlier day with rows; 64 zeros on its first day.'),
  closed_at: DateTime,
})

export const LedgerDaysSchema = Type.Object({
  days: Type.Array(LedgerDaySchema, { description: 'The account\'s closed days with ledger rows in [from, to], oldest first. Days without rows have no root and are not listed.' }),
  closed_through: Nullable(Day('The last UTC day closed, for every account (null before the first close): a day up to it that is not listed had no rows of the account.')),
  next_cursor: NextCursor,
})

export const ProofParams = Type.Object({ date: Day('A closed UTC day, YYYY-MM-DD.') })

export const InclusionProofSchema = Type.Object({
  date: Day('The UTC day.'),
  root: Hash('The account\'s day root (as GET /ledger/days lists it).'),
  leaf_hash: Hash('SHA-256(0x00 ‖ enc(user_id) ‖ root bytes): the leaf of the account in the day\'s tree.'),
  leaf_index: Type.Integer({ minimum: 0, description: 'The leaf\'s position: accounts with rows that day, in byte order of their ids.' }),
  tree_size: Type.Integer({ minimum: 1, description: 'Leaves in the day\'s tree (equals the head\'s `tree_size`).' }),
  audit_path: Type.Array(Hash('A sibling hash.'), { description: 'RFC 6962 / RFC 9162 audit path, nearest the leaf first.' }),
  tree_root: Hash('The day\'s tree head `root_hash` as published at /transparency.json; check it there, not here.'),
})

export const InvoiceDaySchema = Type.Object({
  date: Day('A UTC day the invoice took from.'),
  root: Nullable(Hash('That day\'s root once the day is closed; null while it is open (the invoice was finalized at 06:00 UTC, before the day closed).')),
  micros: Type.Integer({ minimum: 1, description: 'The debits of that day\'s billable rows before `period.end` not taken by an earlier invoice.' }),
})

export const AccountInvoiceSchema = Type.Object({
  invoice_id: Type.String({ description: 'Invoice id (`inv_…`).' }),
  billing_mode: Type.String({ description: 'The cadence it was billed on: `weekly_autopay`, `net30_invoice` or `legacy_semimonthly_autopay`.' }),
  period: Type.Object({ start: DateTime, end: DateTime }, { description: 'Periods tile: each starts where the previous invoice ended, and ends at a cadence instant (06:00 UTC).' }),
  delivered_micros: Type.Integer({ minimum: 0, description: 'The invoice\'s micros: the sum of `days[].micros` (for invoices that list days).' }),
  amount_cents: Type.Integer({
    description:
      'round_half_up((delivered micros of this and every earlier invoice) / 10,000) − the amount_cents of every earlier invoice: cumulative rounding, so the cents never drift.',
  }),
  credits_applied_cents: Type.Integer({ minimum: 0, description: 'Posted credits not yet applied when the invoice was finalized, applied to it up to `amount_cents`; the rest carries over.' }),
  total_cents: Type.Integer({ description: '`amount_cents` − `credits_applied_cents`: what is charged or due.' }),
  status: StringEnum(INVOICE_STATUSES),
  finalized_at: DateTime,
  due_at: DateTime,
  paid_at: Nullable(DateTime),
  days: Type.Array(InvoiceDaySchema, { description: 'Per UTC day it took from, oldest first. Empty for invoices finalized before day lists existed.' }),
})

export const AccountInvoiceListSchema = Type.Object({
  invoices: Type.Array(AccountInvoiceSchema, { description: 'One page of the account\'s invoices, newest first (`finalized_at`, then `invoice_id`).' }),
  next_cursor: NextCursor,
})

export const AccountInvoiceParams = Type.Object({ invoice_id: Type.String({ minLength: 1, maxLength: 64 }) })
