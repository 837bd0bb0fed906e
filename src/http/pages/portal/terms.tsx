import { Page } from '../layout.tsx'
import { PostForm } from '../forms.tsx'
import { utc } from '../format.ts'
import type { Static } from 'typebox'
import type { AccountSchema } from '../../schemas/account.ts'

type Access = Static<typeof AccountSchema>['access']

/** `/portal/terms` (pure rendering): the current terms, their version, what this account accepted, and "Accept". */

export interface TermsText {
  title: string
  version: string
  paragraphs: readonly string[]
}

/** What the account accepted: the version (null when recorded before versions were kept) and when. */
export interface Acceptance {
  version: string | null
  at: Date | null
}

export function TermsPage(props: { csrf: string; email: string; terms: TermsText; accepted: Acceptance | null; notice?: string | null; access: Access }) {
  const { terms, accepted } = props
  const current = accepted !== null && accepted.version === terms.version
  return (
    <Page title="API terms" area="portal" path="/portal/terms" session={{ csrf: props.csrf, who: props.email }} flash={props.notice}>
      <AcceptanceStatus accepted={accepted} version={terms.version} />
      {current ? <NextStep access={props.access} /> : null}
      <h2 id="terms-h">{terms.title}</h2>
      <p class="muted">Version {terms.version}</p>
      <article class="card" aria-labelledby="terms-h">
        {terms.paragraphs.map((p) => (
          <p>{p}</p>
        ))}
      </article>
      {current ? null : (
        <PostForm action="/portal/terms/accept" csrf={props.csrf}>
          <p>By choosing Accept you accept version {terms.version} of these terms for this account.</p>
          <button type="submit">Accept</button>
        </PostForm>
      )}
    </Page>
  )
}

function AcceptanceStatus(props: { accepted: Acceptance | null; version: string }) {
  const { accepted } = props
  if (accepted === null) return <p>You have not accepted the API terms yet. Campaign writes open once you do (and the other steps are done).</p>
  const when = utc(accepted.at, 'at an unrecorded time')
  if (accepted.version === props.version) {
    return (
      <p class="flash" role="status">
        You accepted version {accepted.version} on {when}.
      </p>
    )
  }
  return (
    <p class="form-error">
      {accepted.version === null
        ? `You accepted an earlier version of the terms on ${when}.`
        : `You accepted version ${accepted.version} on ${when}.`}{' '}
      The terms have changed since: please read and accept version {props.version}.
    </p>
  )
}

/** Once the terms are accepted: the next step of the overview's checklist, so nobody is left on this page wondering. */
function NextStep(props: { access: Access }) {
  const { access } = props
  if (access.campaign_writes === 'operational') {
    return (
      <p class="next-step">
        <strong>Next:</strong> <a href="/portal/campaigns/new">create a campaign</a>.
      </p>
    )
  }
  if (access.billing_reason !== null) {
    return (
      <p class="next-step">
        <strong>Next:</strong> <a href="/portal/billing">set up billing</a>.
      </p>
    )
  }
  if (!access.write_approved) {
    return (
      <p class="next-step">
        <strong>Next:</strong> wait for an operator to approve your account (usually within one business day; we email you when it is approved). <a href="/portal">Back to the overview</a>.
      </p>
    )
  }
  return (
    <p class="next-step">
      <a href="/portal">Back to the overview</a>.
    </p>
  )
}
