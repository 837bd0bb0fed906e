import type { Static } from 'typebox'
import { Field, FormError, PostForm } from '../forms.tsx'
import { utc } from '../format.ts'
import type { QueuedCreativeSchema } from '../../schemas/admin/moderation.ts'
import { NextPage, OpsPage, type OpsFrame } from './frame.tsx'
import type { FieldErrors } from './messages.ts'

type Queued = Static<typeof QueuedCreativeSchema>

function Verdict(props: { safety: Queued['content_safety'] }) {
  const { verdict, category } = props.safety
  const words = verdict === 'allow' ? 'allowed' : verdict === 'review' ? 'needs review' : 'denied'
  return (
    <span class={verdict === 'allow' ? 'badge ok' : verdict === 'review' ? 'badge warn' : 'badge bad'}>
      {words}
      {category ? `: ${category.replaceAll('_', ' ')}` : ''}
    </span>
  )
}

/**
 * Where the queued campaign really is (issue 51): a line waiting for review serves nothing, whatever
 * the lifecycle `status` says (domain/campaign-shown-state.ts, as the advertiser reads it).
 */
export function queuedCampaignState(c: Pick<Queued, 'moderation_status' | 'campaign_status'>): string {
  const line = c.moderation_status === 'pending' ? 'waiting for review, not serving' : c.moderation_status === 'rejected' ? 'line rejected, not serving' : 'line approved'
  return c.campaign_status === 'paused' ? `${line}; paused by the advertiser` : line
}

/**
 * `/ops/moderation`: pending creatives oldest first, each with the
 * content-safety verdict, an Approve button and a Reject form with a reason
 * the advertiser will see.
 */
export function ModerationPage(props: {
  frame: OpsFrame
  creatives: Queued[]
  next: string | null
  /** A refused decision: the campaign it was about, its errors and the reason typed. */
  refused?: { campaignId: string; errors: FieldErrors; reason: string }
}) {
  const csrf = props.frame.csrf
  const refusal = props.refused
  // An error about anything but the reason (an unknown campaign, a bad decision) is shown on the card, or above the queue when there is none.
  const otherError = refusal ? (refusal.errors.form ?? Object.entries(refusal.errors).find(([field]) => field !== 'reason')?.[1]) : undefined
  const orphan = refusal !== undefined && !props.creatives.some((c) => c.campaign_id === refusal.campaignId)
  return (
    <OpsPage frame={props.frame} title="Moderation" heading="Moderation queue" path="/ops/moderation">
      <p class="muted">Pending creatives, oldest first. Only approved creatives serve; the advertiser sees a rejection’s reason.</p>
      {orphan ? <FormError message={otherError} /> : null}
      {props.creatives.length === 0 ? <p>Nothing waits for a decision.</p> : null}
      {props.creatives.map((c) => {
        const refused = props.refused?.campaignId === c.campaign_id ? props.refused : undefined
        return (
          <article class="card" aria-labelledby={`h-${c.campaign_id}`}>
            <h2 id={`h-${c.campaign_id}`}>{c.campaign_name}</h2>
            <dl class="facts">
              <dt>Ad line</dt>
              <dd>
                <strong>{c.ad_line}</strong>
              </dd>
              <dt>Content safety</dt>
              <dd>
                <Verdict safety={c.content_safety} />
              </dd>
              <dt>Brand</dt>
              <dd>{c.brand ?? '—'}</dd>
              <dt>Destination URL</dt>
              <dd>{c.destination_url}</dd>
              <dt>Account</dt>
              <dd>
                <a href={`/ops/accounts/${c.user_id}`}>{c.email}</a>
              </dd>
              <dt>Waiting since</dt>
              <dd>{utc(c.status_since)}</dd>
              <dt>Campaign</dt>
              <dd>
                <code>{c.campaign_id}</code>, {queuedCampaignState(c)}
              </dd>
            </dl>
            {refused ? <FormError message={otherError} /> : null}
            <div class="actions">
              <PostForm action={`/ops/moderation/${c.campaign_id}`} csrf={csrf} label={`Approve ${c.campaign_name}`}>
                <input type="hidden" name="status" value="approved" />
                <button type="submit">Approve</button>
              </PostForm>
            </div>
            <PostForm action={`/ops/moderation/${c.campaign_id}`} csrf={csrf} class="inline-form" label={`Reject ${c.campaign_name}`}>
              <input type="hidden" name="status" value="rejected" />
              <Field
                type="text"
                name="reason"
                id={`f-reason-${c.campaign_id}`}
                label="Reason"
                value={refused?.reason ?? ''}
                hint="Optional; the advertiser sees it."
                error={refused?.errors.reason}
              />
              <button type="submit" class="danger">
                Reject
              </button>
            </PostForm>
          </article>
        )
      })}
      <NextPage href={props.next} label="Later creatives" />
    </OpsPage>
  )
}
