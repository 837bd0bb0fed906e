import type { Static } from 'typebox'
import { PostForm } from '../forms.tsx'
import { DataTable } from '../data-table.tsx'
import { count, usdSpend, utc } from '../format.ts'
import type { ScoredSourceSchema, ScoredViewerSchema, TrafficDaySchema } from '../../schemas/admin/traffic.ts'
import {
  DWELL_WINDOW_FROM_MS,
  DWELL_WINDOW_TO_MS,
  HEAVY_VIEWER_ABOVE,
  MANY_VIEWERS_MIN,
  NO_CLICKS_MIN_IMPRESSIONS,
  type Signal,
} from '../../../domain/traffic-quality.ts'

/**
 * The ranked sections of the traffic page (traffic.tsx lays them out): one UTC day's sources and
 * viewers by the review's score, each with its signals, figures and a "Block" button, and the
 * credits the daily review issued.
 */

type TrafficDay = Static<typeof TrafficDaySchema>
type Source = Static<typeof ScoredSourceSchema>
type Viewer = Static<typeof ScoredViewerSchema>

/** Each signal in a few words (docs/invalid-traffic.md has the rule). */
const SIGNAL_WORDS: Record<Signal, string> = {
  blocked: 'on the block list',
  many_viewers: `${MANY_VIEWERS_MIN}+ viewers`,
  heavy_viewer: `a viewer with over ${count(HEAVY_VIEWER_ABOVE)} impressions`,
  dwell_at_threshold: `dwell just past the bar (${DWELL_WINDOW_FROM_MS / 1000}-${DWELL_WINDOW_TO_MS / 1000} s)`,
  regular_intervals: 'reports at regular intervals',
  no_clicks: `no click in ${NO_CLICKS_MIN_IMPRESSIONS}+ impressions`,
  few_topics: 'few decisions with topics',
  no_pauses: 'never pauses between decisions',
  no_short_views: 'never a short view',
  click_rate: 'clicks far more than the day',
}

const signalWords = (signals: readonly Signal[]) => (signals.length === 0 ? '—' : signals.map((s) => SIGNAL_WORDS[s]).join('; '))

const plural = (n: number, one: string, many: string) => `${count(n)} ${n === 1 ? one : many}`

function Score(props: { score: number; invalid: boolean }) {
  return (
    <>
      {props.score}
      {props.invalid ? (
        <>
          {' '}
          <span class="badge bad">invalid</span>
        </>
      ) : null}
    </>
  )
}

/** The row's "Block" button: a range for a source, a key for a viewer; "blocked" once listed. */
function BlockButton(props: { csrf: string; day: string; kind: 'cidr' | 'viewer'; value: string; score: number; blocked: boolean }) {
  if (props.blocked) return <span class="muted">blocked</span>
  return (
    <PostForm action="/ops/traffic/blocks" csrf={props.csrf} label={`Block ${props.kind === 'cidr' ? 'source' : 'viewer'} ${props.value}`}>
      <input type="hidden" name="kind" value={props.kind} />
      <input type="hidden" name="value" value={props.value} />
      <input type="hidden" name="note" value={`Score ${props.score} on ${props.day}`} />
      <input type="hidden" name="day" value={props.day} />
      <button type="submit" class="secondary">
        Block
      </button>
    </PostForm>
  )
}

/** The verdict, right after the row's name: the ranking reads left to right even when the table scrolls on a phone. */
function VerdictCells(props: { f: Source | Viewer }) {
  return (
    <>
      <td class="num">
        <Score score={props.f.score} invalid={props.f.invalid} />
      </td>
      <td>{signalWords(props.f.signals)}</td>
    </>
  )
}

/** The day's figures of a row. */
function FigureCells(props: { f: Source | Viewer }) {
  const { f } = props
  return (
    <>
      <td class="num">{count(f.views)}</td>
      <td class="num">{count(f.billable)}</td>
      <td class="num">{count(f.invalid_views)}</td>
      <td class="num">{count(f.clicks)}</td>
      <td class="num">{usdSpend(f.debit_micros)}</td>
    </>
  )
}

const VERDICT_COLUMNS = [{ label: 'Score', num: true }, 'Signals'] as const
const FIGURE_COLUMNS = [
  { label: 'Views', num: true },
  { label: 'Billable', num: true },
  { label: 'Invalid', num: true },
  { label: 'Clicks', num: true },
  { label: 'Money moved', num: true },
] as const

/** The day's sources, then its viewers, highest scores first; then the credits the review issued. */
export function TrafficRanking(props: { csrf: string; traffic: TrafficDay }) {
  const { traffic: t, csrf } = props
  const invalidSources = t.sources.filter((s) => s.invalid).length
  const invalidViewers = t.viewers.filter((v) => v.invalid).length
  return (
    <>
      <h2 id="sources-h">Sources</h2>
      <p class="muted">
        {plural(t.totals.sources, 'source', 'sources')} (IPv4 addresses and IPv6 /64s) had views or clicks on {t.day}; {count(invalidSources)} invalid.
        {t.sources.length < t.totals.sources ? ` The ${count(t.sources.length)} highest scores are shown.` : ''}
      </p>
      {t.sources.length === 0 ? (
        <p>No views or clicks with a source on this day.</p>
      ) : (
        <DataTable labelledBy="sources-h" columns={['Source', ...VERDICT_COLUMNS, ...FIGURE_COLUMNS, { label: 'Viewers', num: true }, 'Action']}>
          {t.sources.map((s) => (
            <tr>
              <td class="ident">
                <code>{s.source}</code>
              </td>
              <VerdictCells f={s} />
              <FigureCells f={s} />
              <td class="num">{count(s.viewers)}</td>
              <td>
                <BlockButton csrf={csrf} day={t.day} kind="cidr" value={s.source} score={s.score} blocked={s.signals.includes('blocked')} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}

      <h2 id="viewers-h">Viewers</h2>
      <p class="muted">
        {plural(t.totals.viewers, 'viewer key', 'viewer keys')} (keyed hashes of the viewer ids) had views or clicks; {count(invalidViewers)} invalid.
        {t.viewers.length < t.totals.viewers ? ` The ${count(t.viewers.length)} highest scores are shown.` : ''}
      </p>
      {t.viewers.length === 0 ? (
        <p>No viewers on this day.</p>
      ) : (
        <DataTable labelledBy="viewers-h" columns={['Viewer key', ...VERDICT_COLUMNS, ...FIGURE_COLUMNS, { label: 'Sources', num: true }, 'Action']}>
          {t.viewers.map((v) => (
            <tr>
              <td class="ident">
                <code>{v.viewer_key}</code>
              </td>
              <VerdictCells f={v} />
              <FigureCells f={v} />
              <td class="num">{count(v.sources)}</td>
              <td>
                <BlockButton csrf={csrf} day={t.day} kind="viewer" value={v.viewer_key} score={v.score} blocked={v.signals.includes('blocked')} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}

      <h2 id="credits-h">Credits issued</h2>
      {t.review === null ? (
        <p>The daily review has not run for {t.day}: no credits yet.</p>
      ) : (
        <p>
          Reviewed {utc(t.review.reviewed_at)}: {plural(t.review.sources_flagged, 'source', 'sources')} and{' '}
          {plural(t.review.viewers_flagged, 'viewer', 'viewers')} flagged, {plural(t.review.units_voided, 'unit', 'units')} voided,{' '}
          {usdSpend(t.review.credited_micros)} credited back.
        </p>
      )}
      {t.credits.length > 0 ? (
        <DataTable labelledBy="credits-h" columns={['Account', 'Campaign', { label: 'Units voided', num: true }, { label: 'Credited', num: true }]}>
          {t.credits.map((c) => (
            <tr>
              <td class="wrap">
                <a href={`/ops/accounts/${c.user_id}`}>{c.email}</a>
              </td>
              <td class="wrap">
                {c.campaign_name ?? ''} <code>{c.campaign_id}</code>
              </td>
              <td class="num">{count(c.units)}</td>
              <td class="num">{usdSpend(c.micros)}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </>
  )
}
