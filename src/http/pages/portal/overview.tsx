import type { Static } from 'typebox'
import { Page } from '../layout.tsx'
import { counted, usdFromCents, utc } from '../format.ts'
import type { AccountSchema } from '../../schemas/account.ts'
import type { CampaignSummarySchema } from '../../schemas/campaigns.ts'
import { collectionWords, OVERDUE_WORDS } from './billing-words.ts'
import { CampaignGroups } from './overview-campaigns.tsx'

type Account = Static<typeof AccountSchema>
type Campaign = Static<typeof CampaignSummarySchema>

/**
 * The write prerequisites in the order of `access.campaign_writes`
 * (operations.md section 6) as a checklist: a tick on each step done, how
 * many are done, and the next step marked with what to do. The overview and
 * the create form (while writes are closed) show it.
 */
export function WriteSteps(props: { account: Account }) {
  const { access } = props.account
  const state = access.campaign_writes
  if (state === 'disabled') {
    return <p class="form-error">An operator has switched campaign writes off for this account. Reads still work; contact support to reopen them.</p>
  }
  const billingOk = access.billing_reason === null
  const billing = access.billing_reason === 'invoice_overdue' ? OVERDUE_WORDS : collectionWords(props.account.billing_profile)
  const steps = [
    {
      done: access.write_approved,
      title: 'Account approval',
      doneText: 'An operator approved your account.',
      next: <>We review new accounts within one business day and email you when yours is approved, with the next step.</>,
    },
    {
      done: access.terms_accepted,
      title: 'API terms',
      doneText: 'You accepted the API terms.',
      next: (
        <>
          <a href="/portal/terms">Read and accept the API terms</a>.
        </>
      ),
    },
    {
      done: billingOk,
      title: 'Billing',
      doneText: `Billing is set up (${billing.label.toLowerCase()}).`,
      next: (
        <>
          Now: {billing.label}. {billing.next} <a href="/portal/billing">Go to billing</a>.
        </>
      ),
    },
  ]
  const done = steps.filter((s) => s.done).length
  const next = steps.findIndex((s) => !s.done)
  const ready = state === 'operational'
  return (
    <section aria-labelledby="steps-h" class="card checklist">
      <h2 id="steps-h">{ready ? 'Ready to create campaigns' : 'Before you can create campaigns'}</h2>
      <p class="checklist-progress">
        <progress max={steps.length} value={done} aria-labelledby="steps-count"></progress>{' '}
        <span id="steps-count">
          {done} of {steps.length} steps done
        </span>
      </p>
      <ol class="steps">
        {steps.map((s, i) => (
          <li class={s.done ? 'done' : i === next ? 'next' : undefined}>
            <span class="step-mark" aria-hidden="true">
              {s.done ? '✓' : String(i + 1)}
            </span>
            <span>
              <strong>{s.title}</strong> <span class="visually-hidden">{s.done ? '(done)' : i === next ? '(next step)' : '(to do)'}</span>
              <br />
              {s.done ? s.doneText : s.next}
            </span>
          </li>
        ))}
      </ol>
      {ready ? (
        <p>
          <a class="button" href="/portal/campaigns/new">
            Create a campaign
          </a>
        </p>
      ) : null}
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
          <p class="muted">Not yet invoiced plus unpaid invoices, less credits.</p>
        </div>
        <div class="card">
          <div class="stat-label">Not yet invoiced</div>
          <p class="stat">{usdFromCents(b.pending_cents)}</p>
          <p class="muted">Next invoice: {utc(b.next_invoice_at, 'after billing is set up')}</p>
        </div>
        <div class="card">
          <div class="stat-label">Invoiced, unpaid</div>
          <p class="stat">{usdFromCents(b.unpaid_cents)}</p>
          <p class="muted">
            {b.pending_charge_count === 0 ? 'No invoice awaits payment' : `${counted(b.pending_charge_count, 'invoice awaits', 'invoices await')} payment`} ·{' '}
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
