import type { OperationExamples } from './openapi-examples.ts'

// The verifiable ledger's examples (docs/ledger-verification.md): the hex values are real, from the
// fixed rows of test/store/ledger-roots.test.ts.

const ROOT_1 = '014af1c6f5b2ec6a3cc7f99e752b83b741938a3443d3b06e747554c94987225b'
const ROOT_2 = '8d235f78ec95f46cd28748e2d911e4b3b0f54b282826dd40a6a8892a85d42dc8'
const HEAD_1 = '1113b247c48bbaa274b1c588f96aa5764d4fa049bd20129ece244dc9de06de6c'
const ZERO = '0'.repeat(64)

const INVOICE = {
  invoice_id: 'inv_Vd3kQ8rT1mXz6bPq2sLw9n',
  billing_mode: 'weekly_autopay',
  period: { start: '2026-11-02T09:00:00.000Z', end: '2026-11-09T06:00:00.000Z' },
  delivered_micros: 7_400,
  amount_cents: 1,
  credits_applied_cents: 0,
  total_cents: 1,
  status: 'paid',
  finalized_at: '2026-11-09T06:00:00.000Z',
  due_at: '2026-11-09T06:00:00.000Z',
  paid_at: '2026-11-09T06:00:00.000Z',
  days: [
    { date: '2026-11-02', root: ROOT_1, micros: 3_700 },
    { date: '2026-11-03', root: ROOT_2, micros: 3_700 },
  ],
}

export const LEDGER_EXAMPLES: Record<string, OperationExamples> = {
  'GET /ledger/days': {
    status: 200,
    response: {
      days: [
        { date: '2026-11-02', rows: 4, billable_impressions: 1, clicks: 1, debit_micros: 3_700, invoiced_micros: 3_700, root: ROOT_1, previous_root: ZERO, closed_at: '2026-11-03T00:15:00.000Z' },
        { date: '2026-11-03', rows: 1, billable_impressions: 1, clicks: 0, debit_micros: 3_700, invoiced_micros: 3_700, root: ROOT_2, previous_root: ROOT_1, closed_at: '2026-11-04T00:15:00.000Z' },
      ],
      closed_through: '2026-11-08',
      next_cursor: null,
    },
    errors: { 400: { detail: { field: 'to', reason: 'to_before_from' } } },
  },
  'GET /ledger/days/{date}/proof': {
    status: 200,
    response: {
      date: '2026-11-02',
      root: ROOT_1,
      leaf_hash: 'c665bfb81705a637a60eb1dda585d24e9a9fcaf2f1d73a9777db2e8705ba3a2b',
      leaf_index: 0,
      tree_size: 2,
      audit_path: ['fd0c9a39b090bda398eff7e45094b66676142282e594e60ece8c681e29a4bcdf'],
      tree_root: HEAD_1,
    },
    errors: { 404: { detail: 'closed ledger day of this account not found' } },
  },
  'GET /invoices': { status: 200, response: { invoices: [INVOICE], next_cursor: null } },
  'GET /invoices/{invoice_id}': { status: 200, response: INVOICE, errors: { 404: { detail: 'invoice not found' } } },
}
