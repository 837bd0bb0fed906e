import type { Static } from 'typebox'
import { Page } from '../layout.tsx'
import { usdFromCents, utc } from '../format.ts'
import type { AccountSchema } from '../../schemas/account.ts'
import type { CampaignSummarySchema } from '../../schemas/campaigns.ts'
import { collectionWords, OVERDUE_WORDS } from './billing-words.ts'
import { CampaignGroups } from './overview-campaigns.tsx'

type Account = Static<typeof AccountSchema>
type Campaign = Static<typeof CampaignSummarySchema>

/** The write prerequisites in the order of `access.campaign_writes` (operations.md section 6), each with its next step. */
export function WriteSteps(props: { account: Account }) {
  const { access } = props.account
  const state = access.campaign_writes
  if (state === 'operational') {
    return (
      <p class="flash" role="status">
        Campaign writes are open. <a href="/portal/campaigns/new">Create a campaign</a>.
      </p>
    )
  }
  if (state === 'disabled') {
    return <p class="form-error">An operator has switched campaign writes off for this account. Reads still work; contact support to reopen them.</p>
  }
  const billingOk = access.billing_reason === null
  const billing = access.billing_reason === 'invoice_overdue' ? OVERDUE_WORDS : collectionWords(props.account.billing_profile)
  const steps = [
    {
      done: access.write_approved,
      title: 'Account approval',
      next: <>We review new accounts within one business day; you will be able to write as soon as an operator approves yours.</>,
    },
    {
      done: access.terms_accepted,
      title: 'API terms',
      next: (
        <>
          <a href="/portal/terms">Read and accept the API terms</a>.
        </>
      ),
    },
    {
      done: billingOk,
      title: 'Billing',
      next: (
        <>
          Now: {billing.label}. {billing.next} <a href="/portal/billing">Go to billing</a>.
        </>
      ),
    },
  ]
  return (
    <section aria-labelledby="steps-h">
      <h2 id="steps-h">Before you can create campaigns</h2>
      <ol class="steps">
        {steps.map((s) => (
          <li class={s.done ? 'done' : undefined}>
            <strong>{s.title}:</strong> {s.done ? 'done.' : s.next}
          </li>
        ))}
      </ol>
    </section>
  )
}

export function OverviewPage(props: { csrf: string; email: string; account: Account; campaigns: Campaign[]; notice: string | null }) {
  const { account } = props
  const b = account.balance
  return (
    <Page title="Overview" area="portal" path="/portal" session={{ csrf: props.csrf, who: props.email }} flash={props.notice}>
      <WriteSteps account={account} />
      <h2>Balance</h2>
      <div class="grid">
        <div class="card">
          <div class="stat-label">Owed</div>
          <p class="stat">{usdFromCents(b.owed_cents)}</p>
          <p class="muted">Delivered and not yet paid, less credits.</p>
        </div>
        <div class="card">
          <div class="stat-label">Not yet invoiced</div>
          <p class="stat">{usdFromCents(b.pending_cents)}</p>
          <p class="muted">Next invoice: {utc(b.next_invoice_at, 'after billing is set up')}</p>
        </div>
        <div class="card">
          <div class="stat-label">Invoiced, unpaid</div>
          <p class="stat">{usdFromCents(b.invoiced_cents)}</p>
          <p class="muted">
            <a href="/portal/billing">Invoices and billing</a>
          </p>
        </div>
      </div>
      <CampaignGroups campaigns={props.campaigns} />
      <p class="muted">
        User id <code>{account.user_id}</code> · <a href="/portal/key">API key</a>
      </p>
    </Page>
  )
}
