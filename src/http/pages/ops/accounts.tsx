import type { Static } from 'typebox'
import { Field, FormError, PostForm } from '../forms.tsx'
import { count, usdFromCents, utc } from '../format.ts'
import type { AccountListItemSchema, OperatorAccountSchema } from '../../schemas/admin/accounts.ts'
import { NextPage, OpsPage, type OpsFrame } from './frame.tsx'
import type { FieldErrors } from './messages.ts'
import { DataTable } from '../data-table.tsx'
import { SecretCard } from '../secret-card.tsx'

type ListItem = Static<typeof AccountListItemSchema>
type Account = Static<typeof OperatorAccountSchema>

const yesNo = (v: boolean) => (v ? 'yes' : 'no')

function Badge(props: { ok: boolean; children: string }) {
  return <span class={props.ok ? 'badge ok' : 'badge warn'}>{props.children}</span>
}

/** `/ops/accounts`: search by email or user id, newest first; and a form to create an account, with what it was refused for. */
export function AccountsPage(props: {
  frame: OpsFrame
  query: string
  /** Only the accounts still waiting for write approval. */
  pending: boolean
  accounts: ListItem[]
  next: string | null
  create?: { values: FormValues; errors: FieldErrors }
}) {
  const errors = props.create?.errors ?? {}
  const values = props.create?.values ?? {}
  const formError = errors.form ?? Object.entries(errors).find(([field]) => field !== 'email' && field !== 'billing_email')?.[1]
  return (
    <OpsPage frame={props.frame} title="Accounts" path="/ops/accounts">
      <form method="get" action="/ops/accounts" class="inline-form" role="search" aria-label="Find accounts">
        <Field name="query" label="Email or user id" type="search" value={props.query} hint="Part of an email, or a whole user id." />
        <label class="check">
          <input type="checkbox" name="pending" value="on" checked={props.pending} /> Pending approval only
        </label>
        <button type="submit">Search</button>
      </form>
      <p>
        {props.pending ? <a href="/ops/accounts">Show every account</a> : <a href="/ops/accounts?pending=on">Show the accounts pending approval</a>}
      </p>
      {props.accounts.length === 0 ? (
        <p>{props.pending ? 'No account is waiting for approval.' : props.query ? 'No account matches.' : 'No accounts yet.'}</p>
      ) : (
        <DataTable
          label="Accounts"
          columns={['Email', 'User id', 'Created', 'Approved', 'Terms', 'Collection']}
          captionClass="muted"
          caption={`${props.pending ? 'Accounts pending approval' : props.query ? 'Accounts' : 'Every account'}${props.query ? ` matching “${props.query}”` : ''}, newest first`}
        >
          {props.accounts.map((a) => (
            <tr>
              <td>
                <a href={`/ops/accounts/${a.user_id}`}>{a.email}</a>
              </td>
              <td>
                <code>{a.user_id}</code>
              </td>
              <td>{utc(a.created_at)}</td>
              <td>{a.write_approved ? 'yes' : <Badge ok={false}>pending</Badge>}</td>
              <td>{yesNo(a.terms_accepted)}</td>
              <td>{a.collection_status.replaceAll('_', ' ')}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <NextPage href={props.next} label="Older accounts" />

      <h2 id="create-h">Create an account</h2>
      <p>
        Like <code>POST /admin/v1/accounts</code>: the account gets a live API key, and its email a link to set the password of its portal
        sign-in. One account per email, whatever the letter case.
      </p>
      <FormError message={formError} />
      <PostForm action="/ops/accounts" csrf={props.frame.csrf} class="card narrow" label="Create an account">
        <Field name="email" label="Email" type="email" autocomplete="off" required value={values.email ?? ''} error={errors.email} />
        <Field
          name="billing_email"
          label="Billing email"
          type="email"
          autocomplete="off"
          value={values.billing_email ?? ''}
          hint="Optional: where invoices go, if not to the email above."
          error={errors.billing_email}
        />
        <button type="submit">Create account</button>
      </PostForm>
    </OpsPage>
  )
}

/** What the forms of the account page had typed in, shown again next to their errors. */
export type FormValues = Partial<Record<string, string>>

/** `/ops/accounts/{id}`: the operator view and every switch an operator has on an account. */
/** The fields of the account page's forms; an error about any other field is shown above the forms. */
const PAGE_FIELDS = ['card_number', 'credit_limit_cents', 'amount_cents', 'memo', 'address']

export function AccountPage(props: { frame: OpsFrame; account: Account; errors?: FieldErrors; values?: FormValues }) {
  const a = props.account
  const errors = props.errors ?? {}
  const elsewhere = Object.entries(errors).find(([field]) => field !== 'form' && !PAGE_FIELDS.includes(field))
  const formError = errors.form ?? (elsewhere ? `${elsewhere[0]}: ${elsewhere[1]}` : undefined)
  const values = props.values ?? {}
  const action = (name: string) => `/ops/accounts/${a.user_id}/${name}`
  const csrf = props.frame.csrf
  const hold = a.collection.hold
  return (
    <OpsPage frame={props.frame} title={a.email} heading={`Account ${a.email}`} path="/ops/accounts">
      <FormError message={formError} />
      <div class="card">
        <dl class="facts">
          <dt>User id</dt>
          <dd>
            <code>{a.user_id}</code>
          </dd>
          <dt>Created</dt>
          <dd>{utc(a.created_at)}</dd>
          <dt>Billing email</dt>
          <dd>{a.billing_email ?? '—'}</dd>
          <dt>Portal sign-in</dt>
          <dd>{a.portal_login ? 'set up' : 'not yet (no password set)'}</dd>
          <dt>Campaign writes</dt>
          <dd>
            <Badge ok={a.access.campaign_writes === 'operational'}>{a.access.campaign_writes.replaceAll('_', ' ')}</Badge>
            {a.access.billing_reason ? <> ({a.access.billing_reason.replaceAll('_', ' ')})</> : null}
          </dd>
          <dt>Billing status</dt>
          <dd>{a.collection.status.replaceAll('_', ' ')}</dd>
          <dt>Owed</dt>
          <dd>{usdFromCents(a.balance.owed_cents)}</dd>
          <dt>Not yet invoiced</dt>
          <dd>{usdFromCents(a.balance.pending_cents)}</dd>
          <dt>Credits available</dt>
          <dd>{usdFromCents(a.balance.credits_cents)}</dd>
          <dt>Invoices</dt>
          <dd>
            {count(a.invoices.length)} · <a href={`/ops/invoices?user_id=${a.user_id}`}>Invoices of this account</a>
          </dd>
        </dl>
      </div>

      <h2 id="access-h">Access</h2>
      <div class="actions" role="group" aria-labelledby="access-h">
        <PostForm action={action('write-approval')} csrf={csrf} label="Write approval">
          <input type="hidden" name="value" value={a.access.write_approved ? 'false' : 'true'} />
          <button type="submit" class={a.access.write_approved ? 'secondary' : undefined}>
            {a.access.write_approved ? 'Withdraw write approval' : 'Approve writes'}
          </button>
        </PostForm>
        <PostForm action={action('terms')} csrf={csrf} label="API terms">
          <input type="hidden" name="value" value={a.access.terms_accepted ? 'false' : 'true'} />
          <button type="submit" class="secondary">
            {a.access.terms_accepted ? 'Withdraw terms acceptance' : 'Record terms acceptance'}
          </button>
        </PostForm>
        <PostForm action={action('writes')} csrf={csrf} label="Writes switch" confirm={a.access.writes_enabled ? 'Switch this account’s writes off?' : undefined}>
          <input type="hidden" name="value" value={a.access.writes_enabled ? 'false' : 'true'} />
          <button type="submit" class={a.access.writes_enabled ? 'danger' : undefined}>
            {a.access.writes_enabled ? 'Switch writes off' : 'Switch writes on'}
          </button>
        </PostForm>
      </div>
      <p class="muted">
        Write approval: {yesNo(a.access.write_approved)} · API terms accepted: {yesNo(a.access.terms_accepted)} · Writes switched on:{' '}
        {yesNo(a.access.writes_enabled)}
      </p>

      <h2>Billing</h2>
      <p>
        Billing mode: {a.billing_profile.effective_billing_mode.replaceAll('_', ' ')}
        {a.billing_profile.payment_method ? (
          <>
            {' '}
            · card {a.billing_profile.payment_method.brand ?? ''} ending {a.billing_profile.payment_method.last4}
          </>
        ) : null}
        {a.billing_profile.effective_billing_mode === 'net30_invoice' ? <> · credit limit {usdFromCents(a.billing_profile.credit_limit_cents)}</> : null}
      </p>
      <div class="grid">
        <PostForm action={action('billing/card')} csrf={csrf} class="card" label="Enroll weekly auto-pay">
          <Field
            type="text"
            name="card_number"
            label="Card number"
            inputMode="numeric"
            autocomplete="off"
            required
            value={values.card_number ?? ''}
            hint="Test cards: 4242424242424242 (charges succeed), 4000000000000341 (charges fail), 4000002500003155 (needs authentication)."
            error={errors.card_number}
          />
          <button type="submit">Enroll weekly auto-pay</button>
        </PostForm>
        <PostForm action={action('billing/net30')} csrf={csrf} class="card" label="Approve Net 30">
          <Field
            type="text"
            name="credit_limit_cents"
            label="Credit limit (cents)"
            inputMode="numeric"
            required
            value={values.credit_limit_cents ?? ''}
            hint="Net 30 invoicing up to this much owed; 100000 is $1,000.00."
            error={errors.credit_limit_cents}
          />
          <button type="submit">Approve Net 30</button>
        </PostForm>
      </div>
      <h3 id="hold-h">Collection hold</h3>
      <p>{hold === null ? 'No hold: collection follows the account’s standing.' : `Held: ${hold === 'paused' ? 'charges paused, delivery continues' : 'billing disabled, delivery stopped'}.`}</p>
      <div class="actions" role="group" aria-labelledby="hold-h">
        {hold !== 'paused' ? (
          <PostForm action={action('hold')} csrf={csrf} label="Pause collection">
            <input type="hidden" name="hold" value="paused" />
            <button type="submit" class="secondary">
              Pause collection
            </button>
          </PostForm>
        ) : null}
        {hold !== 'disabled' ? (
          <PostForm action={action('hold')} csrf={csrf} label="Disable billing" confirm="Disable billing? The account's campaigns stop serving.">
            <input type="hidden" name="hold" value="disabled" />
            <button type="submit" class="danger">
              Disable billing
            </button>
          </PostForm>
        ) : null}
        {hold !== null ? (
          <PostForm action={action('hold')} csrf={csrf} label="Lift hold">
            <input type="hidden" name="hold" value="none" />
            <button type="submit">Lift hold</button>
          </PostForm>
        ) : null}
      </div>

      <h2>Credits</h2>
      <PostForm action={action('credits')} csrf={csrf} class="card narrow" label="Post a credit">
        <Field type="text" name="amount_cents" label="Amount (cents)" inputMode="numeric" required value={values.amount_cents ?? ''} hint="500 is $5.00." error={errors.amount_cents} />
        <Field type="text" name="memo" label="Memo" required value={values.memo ?? ''} hint="Why the credit is given (kept with it)." error={errors.memo} />
        <button type="submit">Post credit</button>
      </PostForm>

      <h2>API key</h2>
      <p>
        Current key <code>{a.key_prefix}…</code>, issued {utc(a.key_created_at)}, last used {utc(a.key_last_used_at, 'never')}.
      </p>
      <PostForm action={action('rotate-key')} csrf={csrf} label="Rotate key" confirm="Rotate the key? The current key stops working at once.">
        <button type="submit" class="danger">
          Rotate key
        </button>
      </PostForm>

      <h2>Unlock an address</h2>
      <p>Lifts every authentication lockout of a source address (API keys, portal and console sign-in, console setup, the operator token) and forgets its failed attempts.</p>
      <PostForm action={action('unlock')} csrf={csrf} class="inline-form" label="Unlock an address">
        <Field type="text" name="address" label="Address" required value={values.address ?? ''} hint="IPv4 or IPv6, as the advertiser’s requests come from." error={errors.address} />
        <button type="submit">Unlock</button>
      </PostForm>
    </OpsPage>
  )
}

/** After "Rotate key": the new key, once (only its digest is kept). */
export function KeyRotatedPage(props: { frame: OpsFrame; userId: string; email: string; apiKey: string }) {
  return (
    <OpsPage frame={props.frame} title="New API key" heading={`New API key for ${props.email}`} path="/ops/accounts">
      <SecretCard id="api-key" secret={props.apiKey} copyLabel="Copy key" actions={<a href={`/ops/accounts/${props.userId}`}>Back to the account</a>}>
        The old key stopped working. This is the only time the new key is shown: copy it now and hand it to the advertiser safely.
      </SecretCard>
    </OpsPage>
  )
}
