import { Page } from '../layout.tsx'
import { Field, PostForm } from '../forms.tsx'
import { count, usdFromCents, usdSpend, utc } from '../format.ts'
import type { ActionError } from './campaign-messages.ts'
import {
  BlocksTable,
  CreativesTable,
  DeliverySection,
  OrderFacts,
  PreviewPanel,
  SharePanel,
  TrafficCredits,
  unitOf,
  type Campaign,
  type DeliveryView,
  type PreviewShown,
  type TrafficCredit,
} from './campaign-sections.tsx'
import { REWRITE_ANCHOR, shownStateOf, StateBadge, StateBanner } from './campaign-state.tsx'
import { adLineRewriteConflict, cancelTransition, pauseTransition, resumeTransition, type Transition } from '../../../domain/campaign-state.ts'

export type { DeliveryView } from './campaign-sections.tsx'

export interface CampaignPageProps {
  csrf: string
  email: string
  campaign: Campaign
  delivery: DeliveryView
  /** The base of public addresses (PUBLIC_URL). */
  publicUrl: string
  notice?: string | null
  /** Where the notice goes: above the content, or in the public report's panel (after "Share report", the page opens there). */
  noticeAt?: 'top' | 'share'
  /** A preview just made: shown in place, under the button that made it. */
  preview?: PreviewShown | null
  /** A refused action: beside its field, or above the forms. */
  error?: ActionError | null
  /** What was typed into the field of a refused action, shown again. */
  values?: { name?: string; ad_line?: string }
  /** What the daily traffic review voided and credited back, per UTC day, newest first (docs/invalid-traffic.md). */
  trafficCredits: TrafficCredit[]
}

const changes = (t: Transition) => 'changed' in t && t.changed

/** Clicks as a share of billable impressions, like the API's `ctr`, in percent with two decimals. */
function ctrText(clicks: number, billable: number): string {
  return billable === 0 ? '—' : `${((clicks / billable) * 100).toFixed(2)} %`
}

/** The error about the whole page's forms, with the way to fix it; announced on load. */
function ActionProblem(props: { error: ActionError | null | undefined }) {
  const e = props.error
  if (!e) return null
  if (e.field) {
    // GOV.UK pattern: a summary at the top that links to the field, and the same message beside it.
    return (
      <div class="form-error" role="alert">
        <p>
          <strong>There is a problem</strong>
        </p>
        <p>
          <a href={`#f-${e.field}`}>{e.message}</a>
        </p>
      </div>
    )
  }
  return (
    <p class="form-error" role="alert">
      {e.message}
      {e.next ? (
        <>
          {' '}
          <a href={e.next.href}>{e.next.text}</a>.
        </>
      ) : null}
    </p>
  )
}

export function CampaignPage(props: CampaignPageProps) {
  const c = props.campaign
  const id = encodeURIComponent(c.campaign_id)
  const base = `/portal/campaigns/${id}`
  const error = props.error ?? null
  const fieldError = (field: 'name' | 'ad_line') => (error?.field === field ? error.message : undefined)
  // The buttons a status offers are those whose transition (domain/campaign-state.ts) would change it.
  const canPause = changes(pauseTransition(c.status))
  const canResume = changes(resumeTransition(c.status))
  const canCancel = changes(cancelTransition(c.status))
  const canRewrite = adLineRewriteConflict(c.status) === null
  const creative = c.creatives[0]
  const shown = shownStateOf(c)
  const totals = props.delivery.ok ? props.delivery.delivery.totals : null
  const shareNotice = props.noticeAt === 'share' ? (props.notice ?? null) : null
  return (
    <Page
      title={c.name}
      heading={c.name}
      area="portal"
      path={base}
      session={{ csrf: props.csrf, who: props.email }}
      flash={shareNotice ? null : (props.notice ?? null)}
      stylesheets={props.preview ? ['/assets/ad-surfaces.css'] : []}
    >
      <p class="muted">
        <a href="/portal/campaigns">All campaigns</a> · Campaign <code>{c.campaign_id}</code>
      </p>
      <StateBanner shown={shown} />
      <ActionProblem error={error} />

      <div class="grid campaign-figures">
        <div class="card">
          <div class="stat-label">Status</div>
          <p class="stat">
            <StateBadge shown={shown} />
          </p>
          <p class="muted">Created {utc(c.created_at)}</p>
        </div>
        <div class="card">
          <div class="stat-label">Served / bought</div>
          <p class="stat">
            {count(c.impressions_served)} / {count(c.impressions)}
          </p>
          <p class="muted">{c.kind === 'click' ? 'Billable clicks (the unit this campaign buys)' : 'Billable impressions'}</p>
        </div>
        <div class="card">
          <div class="stat-label">Clicks / CTR</div>
          <p class="stat">{totals ? `${count(totals.clicks)} / ${ctrText(totals.clicks, totals.billable_impressions)}` : '—'}</p>
          <p class="muted">
            {totals ? `Clicks over ${count(totals.billable_impressions)} billable impressions, as in the chart below` : 'Not available right now'}
          </p>
        </div>
        <div class="card">
          <div class="stat-label">Spend</div>
          <p class="stat">{usdSpend(c.lifetime_spent_micros)}</p>
          <p class="muted">
            Delivered value so far, of at most {usdFromCents(c.amount_cents)}
            {props.trafficCredits.length > 0 ? `; ${usdSpend(props.trafficCredits.reduce((n, t) => n + t.micros, 0))} credited back for invalid traffic` : ''}
          </p>
        </div>
      </div>

      <h2 id="actions-h">Actions</h2>
      <div class="actions" role="group" aria-labelledby="actions-h">
        {canPause ? (
          <PostForm action={`${base}/pause`} csrf={props.csrf}>
            <button type="submit">Pause</button>
          </PostForm>
        ) : null}
        {canResume ? (
          <PostForm action={`${base}/resume`} csrf={props.csrf}>
            <button type="submit">Resume</button>
          </PostForm>
        ) : null}
        {/* The answer is this page again, opened at the preview (the fragment of the form's address). */}
        <PostForm action={`${base}/preview#preview`} csrf={props.csrf}>
          <button type="submit" class="secondary">
            Preview
          </button>
        </PostForm>
        {canCancel ? (
          <form method="get" action={`${base}/cancel`}>
            <button type="submit" class="danger">
              Cancel campaign
            </button>
          </form>
        ) : null}
      </div>
      {props.preview ? <PreviewPanel preview={props.preview} /> : null}

      <PostForm action={`${base}/rename`} csrf={props.csrf} class="inline-form edit-line" label="Rename">
        <Field name="name" label="Name" type="text" value={props.values?.name ?? c.name} error={fieldError('name')} autocomplete="off" />
        <button type="submit">Rename</button>
      </PostForm>
      {canRewrite ? (
        <div id={REWRITE_ANCHOR}>
          <PostForm action={`${base}/ad-line`} csrf={props.csrf} class="inline-form edit-line" label="Rewrite ad line">
            <Field
              name="ad_line"
              label="Ad line"
              type="text"
              value={props.values?.ad_line ?? creative?.ad_line ?? c.ad_line ?? ''}
              error={fieldError('ad_line')}
              hint="3 to 60 characters; screened again, and a borderline line waits for review before it serves."
              autocomplete="off"
            />
            <button type="submit">Rewrite ad line</button>
          </PostForm>
        </div>
      ) : null}

      <h2>Delivery</h2>
      <DeliverySection campaign={c} delivery={props.delivery} />
      <TrafficCredits credits={props.trafficCredits} unit={c.kind === 'click' ? 'clicks and views' : 'impressions'} />
      <BlocksTable campaign={c} />
      <CreativesTable campaign={c} />
      <OrderFacts campaign={c} />
      <SharePanel campaign={c} base={base} csrf={props.csrf} publicUrl={props.publicUrl} notice={shareNotice} />

    </Page>
  )
}

/** `GET /portal/campaigns/{id}/cancel`: what cancelling means, and the one button that does it. */
export function CancelCampaignPage(props: { csrf: string; email: string; campaign: Campaign }) {
  const c = props.campaign
  const base = `/portal/campaigns/${encodeURIComponent(c.campaign_id)}`
  const cancellable = changes(cancelTransition(c.status))
  return (
    <Page title={`Cancel ${c.name}?`} heading="Cancel this campaign?" area="portal" path={base} session={{ csrf: props.csrf, who: props.email }}>
      <p>
        <strong>{c.name}</strong> (<code>{c.campaign_id}</code>)
      </p>
      {cancellable ? (
        <>
          <p>
            Delivery stops for good; a cancelled campaign cannot be resumed. The {count(c.impressions_served)} {unitOf(c)} delivered so far (
            {usdSpend(c.lifetime_spent_micros)}) are billed; the other {count(c.impressions - c.impressions_served)} never are.
          </p>
          <div class="actions">
            <PostForm action={`${base}/cancel`} csrf={props.csrf}>
              <button type="submit" class="danger">
                Yes, cancel campaign
              </button>
            </PostForm>
            <a class="button secondary" href={base}>
              No, keep it
            </a>
          </div>
        </>
      ) : (
        <p>
          This campaign is {c.status === 'completed' ? 'completed' : 'already cancelled'}: there is nothing to cancel. <a href={base}>Back to the campaign</a>.
        </p>
      )}
    </Page>
  )
}
