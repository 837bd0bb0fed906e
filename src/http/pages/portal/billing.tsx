import type { Static } from 'typebox'
import { Page } from '../layout.tsx'
import { Field, FormError, PostForm } from '../forms.tsx'
import { counted, usdSpend, usdFromCents, utc, utcDay } from '../format.ts'
import type { AccountSchema } from '../../schemas/account.ts'
import type { InvoiceSchema } from '../../schemas/admin/invoices.ts'
import { awaitsAuthentication, BILLING_MODE_WORDS, collectionWords, invoiceStatusWords, OVERDUE_WORDS, type Tone } from './billing-words.ts'
import { DataTable } from '../data-table.tsx'
import { InvoiceLedgers, type InvoiceLedgerDay } from './invoice-ledger.tsx'

/** `/portal/billing` (pure rendering): collection status and next step, enrollment, Net 30, balance, invoices. */

type Account = Static<typeof AccountSchema>
type Invoice = Static<typeof InvoiceSchema>

export type BillingErrors = Partial<Record<'card_number' | 'form', string>>

/** The simulated processor's test cards (operations.md section 3, docs/billing.md). */
const TEST_CARDS = [
  { number: '4242 4242 4242 4242', does: 'attaches; every charge succeeds' },
  { number: '4000 0000 0000 0341', does: 'attaches; every charge is declined' },
  { number: '4000 0025 0000 3155', does: 'attaches; the card and every charge need your authentication' },
]

const CADENCE_WORDS: Record<string, string> = {
  weekly_monday_0600_utc: 'Weekly, Mondays 06:00 UTC',
  monthly_1st_0600_utc_net30: 'Monthly, the 1st 06:00 UTC, due 30 days later',
  semi_monthly_1_15: 'The 1st and the 15th, 06:00 UTC',
}

function Badge(props: { tone: Tone; children: string }) {
  return <span class={props.tone === 'neutral' ? 'badge' : `badge ${props.tone}`}>{props.children}</span>
}

/** A credit as the page shows it: posted, why, how much. */
export interface CreditLine {
  posted_at: Date
  memo: string
  amount_cents: number
  /** The UTC day whose invalid traffic it gives back (docs/invalid-traffic.md); null for an operator's adjustment. */
  ivt_day: string | null
}

export function BillingPage(props: {
  csrf: string
  email: string
  account: Account
  invoices: Invoice[]
  /** Each invoice's ledger days, by invoice id (issue 39). */
  invoiceDays: Map<string, InvoiceLedgerDay[]>
  credits: CreditLine[]
  errors?: BillingErrors
  notice?: string | null
}) {
  const { account } = props
  const profile = account.billing_profile
  const errors = props.errors ?? {}
  const overdue = account.access.billing_reason === 'invoice_overdue'
  const status = overdue ? OVERDUE_WORDS : collectionWords(profile)
  return (
    <Page title="Billing" area="portal" path="/portal/billing" session={{ csrf: props.csrf, who: props.email }} flash={props.notice}>
      <FormError message={errors.form} />
      <h2 id="status-h">Billing status</h2>
      <section class="card" aria-labelledby="status-h">
        <p>
          <Badge tone={status.tone}>{status.label}</Badge>
        </p>
        <p>{status.next}</p>
        {account.access.billing_reason === null ? <AfterBilling writes={account.access.campaign_writes} /> : null}
        {awaitsAuthentication(profile) ? (
          <PostForm action="/portal/billing/authenticate" csrf={props.csrf} class="actions">
            <button type="submit">Authenticate card</button>
          </PostForm>
        ) : null}
        <dl class="facts">
          <dt>Arrangement</dt>
          <dd>{BILLING_MODE_WORDS[profile.effective_billing_mode] ?? profile.effective_billing_mode}</dd>
          {profile.requested_billing_mode !== null && profile.requested_billing_mode !== profile.effective_billing_mode ? (
            <>
              <dt>Requested</dt>
              <dd>{BILLING_MODE_WORDS[profile.requested_billing_mode] ?? profile.requested_billing_mode}</dd>
            </>
          ) : null}
          <dt>Card</dt>
          <dd>{profile.payment_method ? `${profile.payment_method.brand ?? 'Card'} ending ${profile.payment_method.last4 ?? '?'}` : 'None'}</dd>
          {profile.effective_billing_mode === 'net30_invoice' ? (
            <>
              <dt>Credit limit</dt>
              <dd>{usdFromCents(profile.credit_limit_cents)}</dd>
            </>
          ) : null}
          <dt>Next bill</dt>
          <dd>{utc(profile.next_bill_at, 'None scheduled')}</dd>
        </dl>
      </section>

      <h2 id="card-h">Weekly auto-pay</h2>
      <p>Your card is charged every Monday at 06:00 UTC for the value delivered the week before, less any credits.</p>
      <CardEnrolment csrf={props.csrf} account={account} error={errors.card_number} />
      <DataTable label="Test cards" columns={['Card number', 'What it does']} captionClass="muted" caption="Test cards">
        {TEST_CARDS.map((c) => (
          <tr>
            <td>
              <code>{c.number}</code>
            </td>
            <td>{c.does}</td>
          </tr>
        ))}
      </DataTable>

      <h2>Net 30 invoicing</h2>
      <Net30 csrf={props.csrf} account={account} />

      <Balance account={account} />

      <h2 id="invoices-h">Invoices</h2>
      <Invoices invoices={props.invoices} overdue={new Set(account.balance.overdue_invoices.map((i) => i.invoice_id))} />
      <InvoiceLedgers invoices={props.invoices.map((i) => ({ ...i, days: props.invoiceDays.get(i.invoice_id) ?? [] }))} />
      <h2 id="credits-h">Credits</h2>
      <Credits credits={props.credits} />
    </Page>
  )
}

/** Billing works: what the account does next, in the order of `access.campaign_writes` (issue 51). */
function AfterBilling(props: { writes: Account['access']['campaign_writes'] }) {
  switch (props.writes) {
    case 'operational':
      return (
        <p class="next-step">
          <strong>Next:</strong> <a href="/portal/campaigns/new">create a campaign</a>. You are billed only for what it delivers.
        </p>
      )
    case 'terms_required':
      return (
        <p class="next-step">
          <strong>Next:</strong> <a href="/portal/terms">accept the API terms</a>; then you can create campaigns.
        </p>
      )
    case 'pending_approval':
      return (
        <p class="next-step">
          <strong>Next:</strong> an operator approves your account, usually within one business day; we email you when it is approved.{' '}
          <a href="/portal">See every step on the overview</a>.
        </p>
      )
    default:
      return null
  }
}

/**
 * The card form. Without a card: "Enroll weekly auto-pay". With one on file:
 * the card, and "Replace card" folded away (open when its number was just
 * refused); a declined card's form stays open, since replacing it is the next step.
 */
function CardEnrolment(props: { csrf: string; account: Account; error: string | undefined }) {
  const profile = props.account.billing_profile
  const card = profile.payment_method
  const declined = profile.collection_status === 'payment_failed'
  const form = (button: string) => (
    <PostForm action="/portal/billing/card" csrf={props.csrf} class="narrow" label={button}>
      <Field
        name="card_number"
        label="Card number"
        type="text"
        inputMode="numeric"
        autocomplete="cc-number"
        required
        maxLength={64}
        hint="Payments are simulated: use one of the test cards below (spaces are fine)."
        error={props.error}
      />
      <button type="submit">{button}</button>
    </PostForm>
  )
  if (card === null) return form('Enroll weekly auto-pay')
  const brand = card.brand ? card.brand.charAt(0).toUpperCase() + card.brand.slice(1) : 'Card'
  const onFile = `${brand} ending ${card.last4 ?? '?'}`
  if (declined) {
    return (
      <>
        <p>
          The card on file, {onFile}, was declined. Enter a working card: unpaid invoices are charged to it at once.
        </p>
        {form('Replace card')}
      </>
    )
  }
  return (
    <>
      <p>
        Card on file: <strong>{onFile}</strong>.
      </p>
      <details class="replace-card" open={props.error !== undefined}>
        <summary>Replace card</summary>
        {form('Replace card')}
      </details>
    </>
  )
}

function Net30(props: { csrf: string; account: Account }) {
  const profile = props.account.billing_profile
  if (profile.effective_billing_mode === 'net30_invoice') {
    return <p>You are on Net 30 with a credit limit of {usdFromCents(profile.credit_limit_cents)}. Invoices are due 30 days after the 1st of each month.</p>
  }
  if (profile.requested_billing_mode === 'net30_invoice') {
    return <p>Your Net 30 request is under review. An operator approves it and sets your credit limit.</p>
  }
  return (
    <>
      <p>Invoiced monthly and paid by transfer within 30 days, up to a credit limit. An operator reviews each request.</p>
      <PostForm action="/portal/billing/net30" csrf={props.csrf}>
        <button type="submit" class="secondary">
          Request Net 30
        </button>
      </PostForm>
    </>
  )
}

function Balance(props: { account: Account }) {
  const b = props.account.balance
  return (
    <section aria-labelledby="balance-h">
      <h2 id="balance-h">Balance</h2>
      <div class="card">
        <dl class="facts">
          <dt>Owed</dt>
          <dd>
            <strong>{usdFromCents(b.owed_cents)}</strong> <span class="muted">(not yet invoiced + unpaid invoices − unapplied credits)</span>
          </dd>
          <dt>Not yet invoiced</dt>
          <dd>
            {usdFromCents(b.pending_cents)}
            {b.unbilled_delivered_micros === 0 ? null : (
              <span class="muted"> ({usdSpend(b.unbilled_delivered_micros)} delivered; invoices round to the cent)</span>
            )}
          </dd>
          <dt>Invoiced, unpaid</dt>
          <dd>
            {usdFromCents(b.unpaid_cents)} <span class="muted">({counted(b.pending_charge_count, 'invoice awaits', 'invoices await')} payment)</span>
          </dd>
          <dt>Invoiced to date</dt>
          <dd>
            {usdFromCents(b.invoiced_cents)} <span class="muted">({counted(b.invoiced_charge_count, 'invoice', 'invoices')}, paid or not, before credits)</span>
          </dd>
          <dt>Paid</dt>
          <dd>{usdFromCents(b.paid_cents)}</dd>
          <dt>Voided</dt>
          <dd>{usdFromCents(b.voided_cents)}</dd>
          <dt>Unapplied credits</dt>
          <dd>{usdFromCents(b.credits_cents)}</dd>
          <dt>Last invoiced</dt>
          <dd>{utc(b.last_invoiced_at, 'Never')}</dd>
          <dt>Next invoice</dt>
          <dd>{utc(b.next_invoice_at, 'After billing is set up')}</dd>
          <dt>Cadence</dt>
          <dd>{CADENCE_WORDS[b.cadence] ?? b.cadence}</dd>
        </dl>
      </div>
    </section>
  )
}

/**
 * Every credit posted to the account: an operator's adjustment, or what the daily traffic review gave
 * back for invalid traffic of a day. Each is applied to the next invoice ("Credits applied").
 */
function Credits(props: { credits: CreditLine[] }) {
  if (props.credits.length === 0) return <p>No credits. Credits are applied to your next invoice.</p>
  return (
    <>
      <p class="muted">Applied to your next invoices, oldest first. Invalid traffic is explained in your campaigns' pages.</p>
      <DataTable labelledBy="credits-h" columns={['Posted', 'Kind', 'Memo', { label: 'Amount', num: true }]}>
        {props.credits.map((c) => (
          <tr>
            <td>{utc(c.posted_at)}</td>
            <td>{c.ivt_day ? <strong>Invalid traffic</strong> : 'Adjustment'}</td>
            <td>{c.memo}</td>
            <td class="num">{usdFromCents(c.amount_cents)}</td>
          </tr>
        ))}
      </DataTable>
    </>
  )
}

function Invoices(props: { invoices: Invoice[]; overdue: Set<string> }) {
  if (props.invoices.length === 0) return <p>No invoices yet. The first one is cut at the next billing run after value is delivered.</p>
  return (
    <DataTable
      labelledBy="invoices-h"
      columns={['Period', { label: 'Amount', num: true }, { label: 'Credits applied', num: true }, { label: 'Total', num: true }, 'Status', 'Due']}
    >
      {props.invoices.map((i) => {
        const status = props.overdue.has(i.invoice_id) ? { label: 'Overdue', tone: 'bad' as const } : invoiceStatusWords(i)
        return (
          <tr>
            <td>
              {utcDay(i.period.start)} – {utcDay(i.period.end)}
            </td>
            <td class="num">{usdFromCents(i.amount_cents)}</td>
            <td class="num">{usdFromCents(i.credits_applied_cents)}</td>
            <td class="num">{usdFromCents(i.total_cents)}</td>
            <td>
              <Badge tone={status.tone}>{status.label}</Badge>
            </td>
            <td>{utc(i.due_at)}</td>
          </tr>
        )
      })}
    </DataTable>
  )
}
