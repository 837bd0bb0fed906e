import type { Static } from 'typebox'
import { PostForm } from '../forms.tsx'
import { count, usdBid, usdFromCents, usdSpend, utc } from '../format.ts'
import { DataTable } from '../data-table.tsx'
import { CopyLink } from '../copy-link.tsx'
import { EditorSurface, IconNote, TerminalSurface, type AdSurfaceView } from '../ad-surfaces.tsx'
import { DeliveryCharts } from './delivery.tsx'
import { NonBillableTable } from './non-billable.tsx'
import { NON_BILLABLE_REASONS } from '../../../domain/delivery.ts'
import type { CampaignDetailSchema } from '../../schemas/creatives.ts'
import type { CampaignDelivery } from '../../../services/campaign-delivery.ts'
import { adLineRewriteConflict } from '../../../domain/campaign-state.ts'
import { NO_REASON_GIVEN } from '../../../domain/campaign-shown-state.ts'
import { REWRITE_ANCHOR } from '../../../domain/moderation.ts'
import { deliveryAxis } from '../../../domain/chart-geometry.ts'
import { NO_TOPIC, OTHER_TOPICS, TOPIC_REPORT_MIN_IMPRESSIONS, topicOf, type TopicReportRow } from '../../../domain/topics.ts'
import { TopicsFact } from './topic-picker.tsx'

/**
 * The sections of a campaign's portal page (campaign.tsx lays them out):
 * delivery, invalid traffic credited back, blocks, creatives, the order and
 * the public report, with the words for statuses they share (the campaign's
 * own state is campaign-state.tsx).
 */

export type Campaign = Static<typeof CampaignDetailSchema>

/** The delivery chart, or why it cannot be drawn now (the stats service's refusal). */
/** `topics`: billable impressions by topic (null: that part was refused; absent: not read, e.g. in tests' fixtures). */
export type DeliveryView = { ok: true; delivery: CampaignDelivery; topics?: TopicReportRow[] | null } | { ok: false; message: string }

/** What the daily traffic review voided and credited back on one UTC day. */
export interface TrafficCredit {
  day: string
  units: number
  micros: number
}

const MODERATION: Record<string, { text: string; tone: string }> = {
  approved: { text: 'Approved', tone: 'ok' },
  pending: { text: 'Pending review', tone: 'warn' },
  rejected: { text: 'Rejected', tone: 'bad' },
}

const SURFACE: Record<string, string> = { extension: 'Editor extension', terminal: 'Terminal status line', blended: 'Every surface (blended)' }

const BLOCK: Record<string, string> = { queued: 'Queued', serving: 'Serving', exhausted: 'Exhausted' }

export function Badge(props: { map: Record<string, { text: string; tone: string }>; value: string | null }) {
  if (props.value === null) return <span class="muted">—</span>
  const shown = props.map[props.value] ?? { text: props.value, tone: '' }
  return <span class={shown.tone ? `badge ${shown.tone}` : 'badge'}>{shown.text}</span>
}

/** The unit a campaign is bought, delivered and billed in (docs/decisions/0103-what-a-click-campaign-buys.md). */
export const unitOf = (c: Pick<Campaign, 'kind'>) => (c.kind === 'click' ? 'clicks' : 'impressions')

/** The public report's address. */
export function reportUrl(publicUrl: string, uuid: string): string {
  return `${publicUrl}/reports/${uuid}`
}

/** The invalid traffic found after the fact on this campaign: never silent, each day with what went back. */
export function TrafficCredits(props: { credits: TrafficCredit[]; unit: string }) {
  if (props.credits.length === 0) return null
  const total = props.credits.reduce((n, c) => n + c.micros, 0)
  return (
    <>
      <h3 id="ivt-h">Invalid traffic credited back</h3>
      <p>
        Our daily traffic review found {props.unit} from sources that did not look like people. They count as invalid traffic above, and their{' '}
        {usdSpend(total)} came back to you as a credit on your next invoice (see <a href="/portal/billing">Billing</a>).
      </p>
      <DataTable labelledBy="ivt-h" columns={['Day (UTC)', { label: 'Voided', num: true }, { label: 'Credited', num: true }]}>
        {props.credits.map((c) => (
          <tr>
            <td>{c.day}</td>
            <td class="num">{count(c.units)}</td>
            <td class="num">{usdSpend(c.micros)}</td>
          </tr>
        ))}
      </DataTable>
    </>
  )
}

/** The Delivery section: the chart and the views not billed, or why they cannot be drawn now. */
export function DeliverySection(props: { campaign: Campaign; delivery: DeliveryView }) {
  if (!props.delivery.ok) {
    return (
      <p class="form-error" role="status">
        The delivery chart cannot be drawn right now: {props.delivery.message}
      </p>
    )
  }
  const d = props.delivery.delivery
  const notBilled = NON_BILLABLE_REASONS.reduce((n, r) => n + d.totals.non_billable[r], 0)
  const period =
    d.granularity === 'hour'
      ? `hourly from ${utc(new Date(d.startMs))} through the current hour`
      : `daily from ${new Date(d.startMs).toISOString().slice(0, 10)} through today (UTC)`
  return (
    <>
      <DeliveryCharts
        id="delivery"
        granularity={d.granularity}
        points={d.buckets.map((b) => ({ t: new Date(b.bucketMs), end: new Date(b.endMs), billable_impressions: b.billable_impressions, spend_micros: b.spend_micros }))}
        axis={deliveryAxis({ startMs: d.startMs, endMs: d.endMs }, d.granularity)}
        nowMs={d.nowMs}
        period={period}
        what="this campaign"
      />
      <p class="muted">
        Attested: {count(d.totals.attested_billable_impressions)} of {count(d.totals.billable_impressions)} billable impressions carried a token from a
        signed-in account (ledger-export-v4 lists each token; <code>adctl ledger verify --tokens</code> checks them).
      </p>
      {/* Folded, with its sum in the summary: on a phone the table of reasons is a screen of its own. */}
      <details class="more">
        <summary>
          Views not billed: {count(notBilled)} of {count(notBilled + d.totals.billable_impressions)} recorded views
        </summary>
        <NonBillableTable id="delivery-views" billable={d.totals.billable_impressions} nonBillable={d.totals.non_billable} period={period} />
      </details>
      <p class="muted">
        Read like <code>GET /v1/stats</code> with this campaign as the filter. <a href={`/portal/stats?campaign_id=${encodeURIComponent(props.campaign.campaign_id)}`}>More in Stats</a>.
      </p>
      <DeliveryByTopic topics={props.delivery.topics} period={period} />
    </>
  )
}

/** How a row of the delivery-by-topic table is named. */
function topicRowLabel(topic: string): string {
  if (topic === OTHER_TOPICS) return `Other topics (each under ${TOPIC_REPORT_MIN_IMPRESSIONS})`
  if (topic === NO_TOPIC) return 'No topic sent'
  return topicOf(topic)?.label ?? topic
}

/**
 * Billable impressions by the topic each was attributed to (GET /v1/stats group_by=topic): a table
 * with a bar in each row, so the numbers and the picture are one. Small groups are summed as other.
 */
export function DeliveryByTopic(props: { topics: TopicReportRow[] | null | undefined; period: string }) {
  if (props.topics === undefined) return null
  const rows = props.topics
  const total = rows?.reduce((n, r) => n + r.billable_impressions, 0) ?? 0
  const most = rows?.reduce((n, r) => Math.max(n, r.billable_impressions), 0) ?? 0
  return (
    <>
      <h3 id="topics-h">Delivery by topic</h3>
      {rows === null ? (
        <p class="muted">Delivery by topic cannot be read for this window right now (it comes from the ledger, which keeps a limited time).</p>
      ) : rows.length === 0 ? (
        <p class="muted">No billable impressions yet, {props.period}.</p>
      ) : (
        <DataTable
          labelledBy="topics-h"
          columns={['Topic', { label: 'Billable impressions', num: true }, 'Share']}
          caption={
            <>
              Billable impressions {props.period}, by the topic of the project each was shown in. A topic with fewer than {TOPIC_REPORT_MIN_IMPRESSIONS} is
              counted under other topics, so no small group is shown.
            </>
          }
        >
          {rows.map((r) => {
            const share = total === 0 ? 0 : Math.round((r.billable_impressions * 100) / total)
            return (
              <tr>
                <td>{topicRowLabel(r.topic)}</td>
                <td class="num">{count(r.billable_impressions)}</td>
                <td class="topic-share">
                  <svg class="topic-bar" width="120" height="10" aria-hidden="true" focusable="false">
                    <rect width={Math.max(2, Math.round((r.billable_impressions * 120) / Math.max(1, most)))} height="10" rx="2" />
                  </svg>{' '}
                  {share} %
                </td>
              </tr>
            )
          })}
        </DataTable>
      )}
    </>
  )
}

/** The blocks a campaign is delivered in, in order. */
export function BlocksTable(props: { campaign: Campaign }) {
  const c = props.campaign
  const unit = unitOf(c)
  return (
    <>
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
    </>
  )
}

/** The campaign's creatives with their moderation (and a rejection's reason). */
export function CreativesTable(props: { campaign: Campaign }) {
  const c = props.campaign
  // The rewrite form is on the page while the line can still be rewritten (domain/campaign-state.ts).
  const rewritable = adLineRewriteConflict(c.status) === null
  return (
    <>
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
                <p class="moderation-reason">
                  Reason: {cr.moderation_reason ?? NO_REASON_GIVEN}
                  {rewritable ? (
                    <>
                      {' '}
                      <a href={`#${REWRITE_ANCHOR}`}>Rewrite the ad line</a>.
                    </>
                  ) : null}
                </p>
              ) : null}
            </td>
          </tr>
        ))}
      </DataTable>
    </>
  )
}

/** What was bought: kind, bid, blocks, targeting, pace and the channel it came through. */
export function OrderFacts(props: { campaign: Campaign }) {
  const c = props.campaign
  const unit = unitOf(c)
  return (
    <>
      <h2>Order</h2>
      <dl class="facts order-facts">
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
        <dt>Target topics</dt>
        <dd>
          <TopicsFact topics={c.target_topics} />
        </dd>
        <dt>Pace</dt>
        <dd>{c.pace_minutes === null ? 'As fast as the auction allows' : `Spread over ${count(c.pace_minutes)} minutes`}</dd>
        <dt>Destination URL</dt>
        <dd>{c.destination_url ?? '—'}</dd>
        <dt>Created through</dt>
        <dd>{c.creation_channel.replaceAll('_', ' ')}</dd>
      </dl>
    </>
  )
}

/** The public report: the button that shares it, or its link (whole, with "Copy link") and the button that stops sharing. */
export function SharePanel(props: { campaign: Campaign; base: string; csrf: string; publicUrl: string; notice?: string | null }) {
  const c = props.campaign
  const base = props.base
  return (
    <section id="share" aria-labelledby="share-h" class="share-panel">
      <h2 id="share-h">Public report</h2>
      {props.notice ? (
        <p class="flash" role="status">
          {props.notice}
        </p>
      ) : null}
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
            Anyone with this link can see the report: <a href={reportUrl(props.publicUrl, c.report_uuid)}>Public report</a>
          </p>
          <CopyLink id="report-url" label="Report link" url={reportUrl(props.publicUrl, c.report_uuid)} />
          <PostForm action={`${base}/unshare`} csrf={props.csrf}>
            <button type="submit" class="secondary">
              Stop sharing
            </button>
          </PostForm>
        </>
      )}
    </section>
  )
}

/** A preview just made (POST …/preview), where its button is: the line as the terminal and the editor show it, and its link to hand on. */
export interface PreviewShown {
  url: string
  expiresAt: string
  view: AdSurfaceView
  destinationUrl: string
  surface: 'extension' | 'terminal' | 'both'
}

export function PreviewPanel(props: { preview: PreviewShown }) {
  const p = props.preview
  return (
    <section id="preview" aria-labelledby="preview-h" class="card preview-panel">
      <h2 id="preview-h">Preview</h2>
      <p role="status">This is how the ad looks where it is shown, disclosed as an ad. A preview serves nothing and costs nothing.</p>
      {p.surface !== 'extension' ? (
        <>
          <h3>Terminal status line</h3>
          <TerminalSurface view={p.view} />
        </>
      ) : null}
      {p.surface !== 'terminal' ? (
        <>
          <h3>Editor status bar</h3>
          <EditorSurface view={p.view} />
        </>
      ) : null}
      <IconNote view={p.view} />
      <p class="preview-dest">
        Clicks go to: <code>{p.destinationUrl}</code>
      </p>
      <p>
        To show it to someone, send them the link: <a href={p.url}>open the preview page</a> (light and dark; it works until {utc(p.expiresAt)},
        and anyone with it can see the preview).
      </p>
      <CopyLink id="preview-url" label="Preview link" url={p.url} />
    </section>
  )
}
