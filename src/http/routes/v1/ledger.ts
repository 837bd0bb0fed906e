import type { App, RouteDeps } from '../../types.ts'
import { errors, pagedListSchema } from '../../schemas/common.ts'
import {
  AccountInvoiceListSchema,
  AccountInvoiceParams,
  AccountInvoiceSchema,
  InclusionProofSchema,
  LedgerDaysQuery,
  LedgerDaysSchema,
  ProofParams,
} from '../../schemas/ledger.ts'
import { readInclusionProof, readLedgerDays } from '../../../services/ledger-days.ts'
import { listOwnInvoices, readOwnInvoice } from '../../../services/invoices.ts'
import { presentAccountInvoice } from '../../presenters.ts'

const VERIFY_NOTE = 'How to verify: docs/ledger-verification.md (the byte formats), or the SDK\'s ledger verifier.'

/** GET /v1/ledger/days, GET /v1/ledger/days/{date}/proof, GET /v1/invoices and GET /v1/invoices/{invoice_id}. */
export function ledgerRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.get(
      '/ledger/days',
      {
        schema: {
          summary: 'Closed ledger days and their roots',
          description:
            'The account\'s closed UTC days with ledger rows in [from, to], oldest first: the day\'s figures and its root, a SHA-256 ' +
            'chain over the day\'s rows (every field a `ledger-export-v3` export carries but the billing country) started at the ' +
            'previous day\'s root. A day closes at 00:15 UTC the next day (after the daily traffic review), and its root never ' +
            `changes. Paged by \`limit\` and \`cursor\` (follow \`next_cursor\` until null). A read. ${VERIFY_NOTE}`,
          tags: ['ledger'],
          querystring: LedgerDaysQuery,
          response: { 200: LedgerDaysSchema, ...errors(400, 401, 429) },
        },
      },
      async (request) => {
        const page = await readLedgerDays(deps, request.account.user_id, request.query)
        return {
          days: page.days.map((d) => ({
            date: d.day,
            rows: d.rows,
            billable_impressions: d.billable_impressions,
            clicks: d.clicks,
            debit_micros: d.debit_micros,
            invoiced_micros: d.invoiced_micros,
            root: d.root,
            previous_root: d.previous_root,
            closed_at: d.sealed_at.toISOString(),
          })),
          closed_through: page.closedThrough,
          next_cursor: page.nextCursor,
        }
      },
    )

    app.get(
      '/ledger/days/:date/proof',
      {
        schema: {
          summary: 'Inclusion proof of a closed day\'s root',
          description:
            'The account\'s leaf in the day\'s public Merkle tree (RFC 6962 hashing; the tree\'s head is published at /transparency.json) ' +
            'and its audit path (RFC 9162 section 2.1.3). 404 when the day is not closed or the account has no rows that day; 400 ' +
            `\`invalid_date\` for a date that is not a calendar day. ${VERIFY_NOTE}`,
          tags: ['ledger'],
          params: ProofParams,
          response: { 200: InclusionProofSchema, ...errors(400, 401, 404, 429) },
        },
      },
      async (request) => {
        const proof = await readInclusionProof(deps, request.account.user_id, request.params.date)
        return {
          date: proof.day.day,
          root: proof.day.root,
          leaf_hash: proof.leafHash,
          leaf_index: proof.day.leaf_index,
          tree_size: proof.head.tree_size,
          audit_path: proof.auditPath,
          tree_root: proof.head.root_hash,
        }
      },
    )

    app.get(
      '/invoices',
      {
        schema: pagedListSchema({
          summary: 'List invoices',
          items: 'The account\'s invoices, each with what it took from each UTC day and that day\'s root, newest first by `finalized_at` then `invoice_id`',
          notes: `A read. ${VERIFY_NOTE}`,
          tags: ['billing'],
          list: AccountInvoiceListSchema,
        }),
      },
      async (request) => {
        const page = await listOwnInvoices(deps, request.account.user_id, request.query)
        return { invoices: page.items.map(presentAccountInvoice), next_cursor: page.nextCursor }
      },
    )

    app.get(
      '/invoices/:invoice_id',
      {
        schema: {
          summary: 'One invoice',
          description: `The invoice with the days it took from. Unknown and other accounts' ids are the same 404. ${VERIFY_NOTE}`,
          tags: ['billing'],
          params: AccountInvoiceParams,
          response: { 200: AccountInvoiceSchema, ...errors(401, 404, 429) },
        },
      },
      async (request) => presentAccountInvoice(await readOwnInvoice(deps, request.account.user_id, request.params.invoice_id)),
    )
  }
}
