import type { Static } from 'typebox'
import { Field, FormError, PostForm } from '../forms.tsx'
import { usdFromCents, utc, utcDay } from '../format.ts'
import { INVOICE_STATUSES, type InvoiceSchema } from '../../schemas/admin/invoices.ts'
import { NextPage, OpsPage, type OpsFrame } from './frame.tsx'
import type { FieldErrors } from './messages.ts'

type Invoice = Static<typeof InvoiceSchema>

export interface InvoiceFilter {
  status?: string
  userId?: string
}

const unpaid = (i: Invoice) => i.status === 'open' || i.status === 'payment_failed'

/** `/ops/invoices`: every account's invoices (or one account's), with "Mark paid" and "Void" on unpaid ones. */
export function InvoicesPage(props: {
  frame: OpsFrame
  filter: InvoiceFilter
  invoices: Invoice[]
  next: string | null
  refused?: { invoiceId: string; errors: FieldErrors; memo: string }
}) {
  const { filter, frame } = props
  return (
    <OpsPage frame={frame} title="Invoices" path="/ops/invoices">
      <form method="get" action="/ops/invoices" class="inline-form" aria-label="Filter invoices">
        <div class="field">
          <label for="f-status">Status</label>
          <select id="f-status" name="status">
            <option value="" selected={!filter.status}>
              any
            </option>
            {INVOICE_STATUSES.map((s) => (
              <option value={s} selected={filter.status === s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <Field type="text" name="user_id" label="User id" value={filter.userId ?? ''} hint="One account's invoices." />
        <button type="submit">Filter</button>
      </form>
      {props.invoices.length === 0 ? <p>No invoices.</p> : null}
      {props.invoices.map((i) => {
        const refused = props.refused?.invoiceId === i.invoice_id ? props.refused : undefined
        return (
          <article class="card" aria-labelledby={`h-${i.invoice_id}`}>
            <h2 id={`h-${i.invoice_id}`}>
              <code>{i.invoice_id}</code> <span class={i.status === 'paid' ? 'badge ok' : i.status === 'void' ? 'badge' : 'badge warn'}>{i.status.replaceAll('_', ' ')}</span>
            </h2>
            <dl class="facts">
              <dt>Account</dt>
              <dd>
                <a href={`/ops/accounts/${i.user_id}`}>{i.user_id}</a>
              </dd>
              <dt>Period</dt>
              <dd>
                {utcDay(i.period.start)} to {utcDay(i.period.end)} ({i.billing_mode.replaceAll('_', ' ')})
              </dd>
              <dt>Total</dt>
              <dd>
                {usdFromCents(i.total_cents)} (amount {usdFromCents(i.amount_cents)}, credits {usdFromCents(i.credits_applied_cents)})
              </dd>
              <dt>Due</dt>
              <dd>{utc(i.due_at)}</dd>
              <dt>Paid</dt>
              <dd>{utc(i.paid_at)}</dd>
            </dl>
            <FormError message={refused ? (refused.errors.form ?? Object.entries(refused.errors).find(([field]) => field !== 'memo')?.[1]) : undefined} />
            {unpaid(i) ? (
              <>
                <div class="actions">
                  <PostForm action={`/ops/invoices/${i.invoice_id}/mark-paid`} csrf={frame.csrf} label={`Mark ${i.invoice_id} paid`}>
                    {filter.userId ? <input type="hidden" name="user_id" value={filter.userId} /> : null}
                    <button type="submit">Mark paid</button>
                  </PostForm>
                </div>
                <PostForm
                  action={`/ops/invoices/${i.invoice_id}/void`}
                  csrf={frame.csrf}
                  class="inline-form"
                  label={`Void ${i.invoice_id}`}
                  confirm="Void this invoice? Its amount is forgiven and never billed again."
                >
                  {filter.userId ? <input type="hidden" name="user_id" value={filter.userId} /> : null}
                  <Field type="text" name="memo" id={`f-memo-${i.invoice_id}`} label="Memo" required value={refused?.memo ?? ''} hint="Why it is voided." error={refused?.errors.memo} />
                  <button type="submit" class="danger">
                    Void
                  </button>
                </PostForm>
              </>
            ) : null}
          </article>
        )
      })}
      <NextPage href={props.next} label="Older invoices" />
    </OpsPage>
  )
}
