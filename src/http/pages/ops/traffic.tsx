import type { Static } from 'typebox'
import { Field, FormError, PostForm } from '../forms.tsx'
import { SelectField } from '../choice-fields.tsx'
import { DataTable } from '../data-table.tsx'
import { count, usdFromMicros, utc } from '../format.ts'
import type { ScoredSourceSchema, ScoredViewerSchema, TrafficDaySchema } from '../../schemas/admin/traffic.ts'
import {
  DWELL_WINDOW_FROM_MS,
  DWELL_WINDOW_TO_MS,
  HEAVY_VIEWER_ABOVE,
  INVALID_SCORE,
  MANY_VIEWERS_MIN,
  NO_CLICKS_MIN_IMPRESSIONS,
  type Signal,
} from '../../../domain/traffic-quality.ts'
import { OpsPage, type OpsFrame } from './frame.tsx'
import type { FieldErrors } from './messages.ts'

type TrafficDay = Static<typeof TrafficDaySchema>
type Source = Static<typeof ScoredSourceSchema>
type Viewer = Static<typeof ScoredViewerSchema>

/** An entry of the block list as the page shows it: who added it in words. */
export interface BlockShown {
  block_id: string
  kind: 'cidr' | 'viewer'
  value: string
  note: string
  created_at: string
  by: string
}

/** Each signal in a few words (docs/invalid-traffic.md has the rule). */
const SIGNAL_WORDS: Record<Signal, string> = {
  blocked: 'on the block list',
  many_viewers: `${MANY_VIEWERS_MIN}+ viewers`,
  heavy_viewer: `a viewer with over ${count(HEAVY_VIEWER_ABOVE)} impressions`,
  dwell_at_threshold: `dwell just past the bar (${DWELL_WINDOW_FROM_MS / 1000}-${DWELL_WINDOW_TO_MS / 1000} s)`,
  regular_intervals: 'reports at regular intervals',
  no_clicks: `no click in ${NO_CLICKS_MIN_IMPRESSIONS}+ impressions`,
}

const signalWords = (signals: readonly Signal[]) => (signals.length === 0 ? '—' : signals.map((s) => SIGNAL_WORDS[s]).join('; '))

const plural = (n: number, one: string, many: string) => `${count(n)} ${n === 1 ? one : many}`

const KIND_WORDS = { cidr: 'Address range', viewer: 'Viewer key' } as const

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
      <td class="num">{usdFromMicros(f.debit_micros)}</td>
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

function Ranked(props: { csrf: string; traffic: TrafficDay }) {
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
          {usdFromMicros(t.review.credited_micros)} credited back.
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
              <td class="num">{usdFromMicros(c.micros)}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </>
  )
}

/** The block list, each entry with "Remove", and the form that adds one. */
function BlockList(props: { csrf: string; day: string; blocks: BlockShown[]; errors: FieldErrors; values: Partial<Record<string, string>> }) {
  const { csrf, day, errors, values } = props
  return (
    <>
      <h2 id="blocks-h">Block list</h2>
      <p class="muted">Views and clicks from these ranges, or of these viewers, never bill (reason invalid_traffic); decisions are still answered.</p>
      {props.blocks.length === 0 ? (
        <p>Nothing is blocked.</p>
      ) : (
        <DataTable labelledBy="blocks-h" columns={['Kind', 'Value', 'Note', 'Added', 'Action']}>
          {props.blocks.map((b) => (
            <tr>
              <td>{KIND_WORDS[b.kind]}</td>
              <td class="ident">
                <code>{b.value}</code>
              </td>
              <td class="wrap">{b.note === '' ? '—' : b.note}</td>
              <td>
                {utc(b.created_at)} by {b.by}
              </td>
              <td>
                <PostForm action={`/ops/traffic/blocks/${b.block_id}/remove`} csrf={csrf} label={`Remove the block of ${b.value}`}>
                  <input type="hidden" name="day" value={day} />
                  <button type="submit" class="secondary">
                    Remove
                  </button>
                </PostForm>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <div class="card narrow">
        <h3 id="add-block-h">Add a block</h3>
        <PostForm action="/ops/traffic/blocks" csrf={csrf} label="Add a block">
          <input type="hidden" name="day" value={day} />
          <SelectField
            name="kind"
            label="Kind"
            value={values.kind ?? 'cidr'}
            choices={[
              { value: 'cidr', label: 'Address range (CIDR)' },
              { value: 'viewer', label: 'Viewer key' },
            ]}
            error={errors.kind}
          />
          <Field
            type="text"
            name="value"
            label="Value"
            required
            autocomplete="off"
            spellcheck={false}
            value={values.value ?? ''}
            hint="A range like 203.0.113.0/24 or 2001:db8::/48 (IPv6 at most /64), a bare address, or a viewer key from the tables above."
            error={errors.value}
          />
          <Field type="text" name="note" label="Note" value={values.note ?? ''} hint="Why it is blocked (optional)." error={errors.note} />
          <button type="submit">Add block</button>
        </PostForm>
      </div>
    </>
  )
}

/**
 * `/ops/traffic`: one UTC day's sources and viewers ranked by the review's score, a "Block" button
 * on each, the block list with "Remove" and an add form, and the credits the review issued.
 */
export function TrafficPage(props: {
  frame: OpsFrame
  /** The day as asked (shown in the picker), and its figures; null when the day was refused. */
  day: string
  traffic: TrafficDay | null
  blocks: BlockShown[]
  errors?: FieldErrors
  values?: Partial<Record<string, string>>
}) {
  const errors = props.errors ?? {}
  const csrf = props.frame.csrf
  // An error about no field of the page's forms (say, an entry removed meanwhile) is shown above them.
  const elsewhere = Object.entries(errors).find(([field]) => !['form', 'day', 'kind', 'value', 'note'].includes(field))
  return (
    <OpsPage frame={props.frame} title="Traffic quality" path="/ops/traffic">
      <p class="muted">
        Each source and viewer of a UTC day is scored by the review signals; {INVALID_SCORE} or more is invalid, and the daily review voids its
        billable units and credits the advertisers.
      </p>
      <FormError message={errors.form ?? (elsewhere ? `${elsewhere[0]}: ${elsewhere[1]}` : undefined)} />
      <form method="get" action="/ops/traffic" class="inline-form" aria-label="Choose a day">
        <Field type="date" name="day" label="Day" value={props.day} hint="A UTC day; yesterday when empty." error={errors.day} />
        <button type="submit">Show day</button>
      </form>
      <nav class="on-page" aria-label="On this page">
        <ul>
          {props.traffic ? (
            <>
              <li>
                <a href="#sources-h">Sources</a>
              </li>
              <li>
                <a href="#viewers-h">Viewers</a>
              </li>
              <li>
                <a href="#credits-h">Credits issued</a>
              </li>
            </>
          ) : null}
          <li>
            <a href="#blocks-h">Block list</a>
          </li>
        </ul>
      </nav>
      {props.traffic ? <Ranked csrf={csrf} traffic={props.traffic} /> : null}
      <BlockList csrf={csrf} day={props.traffic?.day ?? ''} blocks={props.blocks} errors={errors} values={props.values ?? {}} />
    </OpsPage>
  )
}
