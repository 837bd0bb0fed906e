import { count, usdFromCents, usdSpend, utcDay } from '../format.ts'
import { DataTable } from '../data-table.tsx'

/** One day an invoice took from: the day's root (null until the day closes) and the micros. */
export interface InvoiceLedgerDay {
  date: string
  root: string | null
  micros: number
}

/** An invoice with the figures its reconciliation statement needs. */
export interface InvoiceLedger {
  invoice_id: string
  period: { start: string; end: string }
  delivered_micros: number
  amount_cents: number
  credits_applied_cents: number
  total_cents: number
  days: InvoiceLedgerDay[]
}

/** Invoices shown with their ledger days (the newest); the API lists every one. */
export const LEDGER_INVOICES_SHOWN = 12

const half = 5_000
const cents = (micros: number) => Math.floor((micros + half) / 10_000)

/**
 * `/portal/billing`, "What each invoice took from the ledger" (issue 39, docs/ledger-verification.md): per
 * invoice, the UTC days it took from with each day's root and micros, and the statement that ties them to
 * the invoice's cents (cumulative rounding, then credits). `invoices` newest first, every one of the account.
 */
export function InvoiceLedgers(props: { invoices: InvoiceLedger[] }) {
  if (props.invoices.length === 0) return null
  // The cumulative figures need every earlier invoice: walk them oldest first.
  const oldestFirst = [...props.invoices].reverse()
  const before = new Map<string, { micros: number; cents: number }>()
  let micros = 0
  let centsSoFar = 0
  for (const i of oldestFirst) {
    before.set(i.invoice_id, { micros, cents: centsSoFar })
    micros += i.delivered_micros
    centsSoFar += i.amount_cents
  }
  return (
    <>
      <h2 id="invoice-ledger-h">What each invoice took from the ledger</h2>
      <p>
        Each invoice takes the debits of your ledger rows before its period end that no earlier invoice took, day by UTC day. A day's root
        is the fingerprint of all its ledger rows, published in the <a href="/transparency">transparency log</a>; a day still open when the
        invoice was cut shows its root once it closes. Check them yourself with <code>GET /v1/ledger/days</code> and your exports.
      </p>
      {props.invoices.slice(0, LEDGER_INVOICES_SHOWN).map((i) => {
        const prior = before.get(i.invoice_id)!
        const headingId = `ledger-${i.invoice_id}`
        return (
          <div class="invoice-ledger">
            <h3 id={headingId}>
              Invoice {utcDay(i.period.start)} – {utcDay(i.period.end)} <span class="muted">({i.invoice_id})</span>
            </h3>
            {i.days.length === 0 ? (
              <p class="muted">This invoice was cut before invoices listed their days.</p>
            ) : (
              <DataTable labelledBy={headingId} columns={['Day (UTC)', 'Day root', { label: 'Taken (USD)', num: true }]} stack={false}>
                {i.days.map((d) => {
                  const id = `root-${i.invoice_id}-${d.date}`
                  return (
                    <tr>
                      <td>
                        <time dateTime={d.date}>{d.date}</time>
                      </td>
                      <td>
                        {d.root === null ? (
                          <span class="muted">Day not closed yet</span>
                        ) : (
                          <>
                            <code class="hash" title={d.root}>
                              {d.root.slice(0, 12)}…
                            </code>{' '}
                            <span id={id} hidden>
                              {d.root}
                            </span>
                            <button type="button" class="secondary" data-copy={id} aria-label={`Copy the root of ${d.date}`}>
                              Copy
                            </button>
                          </>
                        )}
                      </td>
                      <td class="num">{usdSpend(d.micros)}</td>
                    </tr>
                  )
                })}
              </DataTable>
            )}
            <p class="reconciliation">
              {i.days.length > 0 ? (
                <>
                  {i.days.length === 1 ? 'Its one day comes' : `${count(i.days.length)} days add up`} to {usdSpend(i.delivered_micros)} delivered.{' '}
                </>
              ) : null}
              Delivered to date {usdSpend(prior.micros + i.delivered_micros)} rounds to {usdFromCents(cents(prior.micros + i.delivered_micros))}; less{' '}
              {usdFromCents(prior.cents)} on earlier invoices, the amount is {usdFromCents(i.amount_cents)}; less {usdFromCents(i.credits_applied_cents)}{' '}
              credits applied, the total is {usdFromCents(i.total_cents)}.
            </p>
          </div>
        )
      })}
    </>
  )
}
