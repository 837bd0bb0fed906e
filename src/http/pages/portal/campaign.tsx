import type { Static } from 'typebox'
import { Page } from '../layout.tsx'
import { Field, PostForm } from '../forms.tsx'
import { count, usdBid, usdFromCents, usdFromMicros, utc } from '../format.ts'
import { DeliveryCharts } from './delivery.tsx'
import { NonBillableTable } from './non-billable.tsx'
import type { ActionError } from './campaign-messages.ts'
import type { CampaignDetailSchema } from '../../schemas/creatives.ts'
import type { CampaignDelivery } from '../../../services/campaign-delivery.ts'
import { adLineRewriteConflict, cancelTransition, pauseTransition, resumeTransition, type Transition } from '../../../domain/campaign-state.ts'
import { DataTable } from '../data-table.tsx'

type Campaign = Static<typeof CampaignDetailSchema>

/** The delivery chart, or why it cannot be drawn now (the stats service's refusal). */
export type DeliveryView = { ok: true; delivery: CampaignDelivery } | { ok: false; message: string }

export interface CampaignPageProps {
  csrf: string
  email: string
  campaign: Campaign
  delivery: DeliveryView
  /** The base of public addresses (PUBLIC_URL). */
  publicUrl: string
  notice?: string | null
  /** A preview just made: its address and expiry. */
  preview?: { url: string; expiresAt: string } | null
  /** A refused action: beside its field, or above the forms. */
  error?: ActionError | null
  /** What was typed into the field of a refused action, shown again. */
  values?: { name?: string; ad_line?: string }
  /** What the daily traffic review voided and credited back, per UTC day, newest first (docs/invalid-traffic.md). */
  trafficCredits: { day: string; units: number; micros: number }[]
}

/** The invalid traffic found after the fact on this campaign: never silent, each day with what went back. */
function TrafficCredits(props: { credits: CampaignPageProps['trafficCredits']; unit: string }) {
  if (props.credits.length === 0) return null
  const total = props.credits.reduce((n, c) => n + c.micros, 0)
  return (
    <>
      <h3 id="ivt-h">Invalid traffic credited back</h3>
      <p>
        Our daily traffic review found {props.unit} from sources that did not look like people. They count as invalid traffic above, and their{' '}
        {usdFromMicros(total)} came back to you as a credit on your next invoice (see <a href="/portal/billing">Billing</a>).
      </p>
      <DataTable labelledBy="ivt-h" columns={['Day (UTC)', { label: 'Voided', num: true }, { label: 'Credited', num: true }]}>
        {props.credits.map((c) => (
          <tr>
            <td>{c.day}</td>
            <td class="num">{count(c.units)}</td>
            <td class="num">{usdFromMicros(c.micros)}</td>
          </tr>
        ))}
      </DataTable>
    </>
  )
}

const STATUS: Record<string, { text: string; tone: string }> = {
  active: { text: 'Active', tone: 'ok' },
  paused: { text: 'Paused', tone: 'warn' },
  cancelled_user: { text: 'Cancelled', tone: 'bad' },
  completed: { text: 'Completed', tone: '' },
}

const MODERATION: Record<string, { text: string; tone: string }> = {
  approved: { text: 'Approved', tone: 'ok' },
  pending: { text: 'Pending review', tone: 'warn' },
  rejected: { text: 'Rejected', tone: 'bad' },
}

const changes = (t: Transition) => 'changed' in t && t.changed

const SURFACE: Record<string, string> = { extension: 'Editor extension', terminal: 'Terminal status line', blended: 'Every surface (blended)' }

const BLOCK: Record<string, string> = { queued: 'Queued', serving: 'Serving', exhausted: 'Exhausted' }

function Badge(props: { map: Record<string, { text: string; tone: string }>; value: string | null }) {
  if (props.value === null) return <span class="muted">—</span>
  const shown = props.map[props.value] ?? { text: props.value, tone: '' }
  return <span class={shown.tone ? `badge ${shown.tone}` : 'badge'}>{shown.text}</span>
}

/** The unit a campaign is bought, delivered and billed in (docs/decisions/0103-what-a-click-campaign-buys.md). */
const unitOf = (c: Pick<Campaign, 'kind'>) => (c.kind === 'click' ? 'clicks' : 'impressions')

/** Clicks as a share of billable impressions, like the API's `ctr`, in percent with two decimals. */
function ctrText(clicks: number, billable: number): string {
  return billable === 0 ? '—' : `${((clicks / billable) * 100).toFixed(2)} %`
}

export function reportUrl(publicUrl: string, uuid: string): string {
  return `${publicUrl}/reports/${uuid}`
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

function Delivery(props: { campaign: Campaign; delivery: DeliveryView }) {
  if (!props.delivery.ok) {
    return (
      <p class="form-error" role="status">
        The delivery chart cannot be drawn right now: {props.delivery.message}
      </p>
    )
  }
  const d = props.delivery.delivery
  const period =
    d.granularity === 'hour'
      ? `hourly from ${utc(new Date(d.startMs))} through the current hour`
      : `daily from ${new Date(d.startMs).toISOString().slice(0, 10)} through today (UTC)`
  return (
    <>
      <DeliveryCharts
        id="delivery"
        granularity={d.granularity}
        points={d.buckets.map((b) => ({ t: new Date(b.bucketMs), billable_impressions: b.billable_impressions, spend_micros: b.spend_micros }))}
        period={period}
        what="this campaign"
      />
      <h3>Views not billed</h3>
      <NonBillableTable id="delivery-views" billable={d.totals.billable_impressions} nonBillable={d.totals.non_billable} period={period} />
      <p class="muted">
        Read like <code>GET /v1/stats</code> with this campaign as the filter. <a href={`/portal/stats?campaign_id=${encodeURIComponent(props.campaign.campaign_id)}`}>More in Stats</a>.
      </p>
    </>
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
  const unit = unitOf(c)
  const totals = props.delivery.ok ? props.delivery.delivery.totals : null
  return (
    <Page title={c.name} heading={c.name} area="portal" path={base} session={{ csrf: props.csrf, who: props.email }} flash={props.notice ?? null}>
      <p class="muted">
        <a href="/portal/campaigns">All campaigns</a> · Campaign <code>{c.campaign_id}</code>
      </p>
      <ActionProblem error={error} />

      <div class="grid">
        <div class="card">
          <div class="stat-label">Status</div>
          <p class="stat">
            <Badge map={STATUS} value={c.status} />
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
          <p class="stat">{usdFromMicros(c.lifetime_spent_micros)}</p>
          <p class="muted">
            Delivered value so far, of at most {usdFromCents(c.amount_cents)}
            {props.trafficCredits.length > 0 ? `; ${usdFromMicros(props.trafficCredits.reduce((n, t) => n + t.micros, 0))} credited back for invalid traffic` : ''}
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
        <PostForm action={`${base}/preview`} csrf={props.csrf}>
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
      {props.preview ? (
        <p class="flash" role="status">
          Preview ready: <a href={props.preview.url}>open the preview of this line on the terminal and in the editor</a> (the link works
          until {utc(props.preview.expiresAt)}; anyone with it can see the preview).
        </p>
      ) : null}

      <PostForm action={`${base}/rename`} csrf={props.csrf} class="inline-form edit-line" label="Rename">
        <Field name="name" label="Name" type="text" value={props.values?.name ?? c.name} error={fieldError('name')} autocomplete="off" />
        <button type="submit">Rename</button>
      </PostForm>
      {canRewrite ? (
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
      ) : null}

      <h2>Delivery</h2>
      <Delivery campaign={c} delivery={props.delivery} />
      <TrafficCredits credits={props.trafficCredits} unit={c.kind === 'click' ? 'clicks and views' : 'impressions'} />

      <h2 id="blocks-h">Blocks</h2>
      <DataTable
        labelledBy="blocks-h"
        columns={['Block', 'Status', { label: 'Served / target', num: true }, 'Started', 'Exhausted']}
        caption={
          <>
            Blocks of {count(c.blocks[0]?.impressions_target ?? 1000)} {unit}, delivered in order
          </>
        }
      >
        {c.blocks.map((b) => (
          <tr>
            <td>{b.block_index + 1}</td>
            <td>{BLOCK[b.status] ?? b.status}</td>
            <td class="num">
              {count(b.impressions_served)} / {count(b.impressions_target)}
            </td>
            <td>{utc(b.started_at)}</td>
            <td>{utc(b.exhausted_at)}</td>
          </tr>
        ))}
      </DataTable>

      <h2 id="creatives-h">Creatives</h2>
      <DataTable labelledBy="creatives-h" columns={['Ad line', 'Destination URL', 'Brand', 'Moderation']}>
        {c.creatives.map((cr) => (
          <tr>
            <td>{cr.ad_line}</td>
            <td class="mono-cell">{cr.destination_url}</td>
            <td>{cr.brand ?? '—'}</td>
            <td>
              <Badge map={MODERATION} value={cr.moderation_status} />
              {cr.moderation_status === 'rejected' ? (
                <p class="moderation-reason">Reason: {cr.moderation_reason ?? 'none given; contact support to ask.'}</p>
              ) : null}
            </td>
          </tr>
        ))}
      </DataTable>

      <h2>Order</h2>
      <dl class="facts">
        <dt>Kind</dt>
        <dd>{c.kind === 'click' ? 'Click' : 'Impression'}</dd>
        <dt>Bid (CPM, USD)</dt>
        <dd>
          {usdBid(c.cpm_usd)} per 1,000 {unit}
        </dd>
        <dt>Bought</dt>
        <dd>
          {count(c.impressions)} {unit} in {count(c.blocks.length)} {c.blocks.length === 1 ? 'block' : 'blocks'}, at most{' '}
          {usdFromCents(c.amount_cents)}
        </dd>
        <dt>Target surface</dt>
        <dd>{SURFACE[c.target_surface] ?? c.target_surface}</dd>
        <dt>Target countries</dt>
        <dd>{c.target_countries === null ? 'Everywhere' : c.target_countries.join(', ')}</dd>
        <dt>Pace</dt>
        <dd>{c.pace_minutes === null ? 'As fast as the auction allows' : `Spread over ${count(c.pace_minutes)} minutes`}</dd>
        <dt>Destination URL</dt>
        <dd>{c.destination_url ?? '—'}</dd>
        <dt>Created through</dt>
        <dd>{c.creation_channel.replaceAll('_', ' ')}</dd>
      </dl>

      <h2>Public report</h2>
      {c.report_uuid === null ? (
        <>
          <p>Share a read-only delivery report of this campaign: its name, brand, ad line and delivery, never your account or billing.</p>
          <PostForm action={`${base}/share`} csrf={props.csrf}>
            <button type="submit">Share report</button>
          </PostForm>
        </>
      ) : (
        <>
          <p>
            Anyone with this link can see the report: <a href={reportUrl(props.publicUrl, c.report_uuid)}>Public report</a>{' '}
            <code id="report-url">{reportUrl(props.publicUrl, c.report_uuid)}</code>
          </p>
          <PostForm action={`${base}/unshare`} csrf={props.csrf}>
            <button type="submit" class="secondary">
              Stop sharing
            </button>
          </PostForm>
        </>
      )}
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
            {usdFromMicros(c.lifetime_spent_micros)}) are billed; the other {count(c.impressions - c.impressions_served)} never are.
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
