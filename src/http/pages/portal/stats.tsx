import type { Static } from 'typebox'
import { Page } from '../layout.tsx'
import { Field } from '../forms.tsx'
import { count, usdSpend, utc } from '../format.ts'
import { DeliveryCharts } from './delivery.tsx'
import { NonBillableTable } from './non-billable.tsx'
import type { StatsField, StatsProblem } from './stats-messages.ts'
import type { StatsSchema } from '../../schemas/stats.ts'
import { bucketsOf } from '../../../domain/chart-geometry.ts'
import { DAY_MS, GRANULARITIES, isMidnight, type Granularity } from '../../../domain/stats.ts'
import { PRESET_TEXT, presetWindow, STATS_PRESETS, type LiveBoundary, type StatsPreset } from '../../../domain/stats-presets.ts'

type Stats = Static<typeof StatsSchema>

/** The stats form as typed (all text; a GET form, so its URL can be shared). */
export interface StatsFormValues {
  granularity: string
  start: string
  end: string
  campaign_id: string
}

export interface StatsPageProps {
  csrf: string
  email: string
  values: StatsFormValues
  errors: Partial<Record<StatsField, string>>
  /** A refusal of the stats service that is about no one field (reporting unavailable). */
  formError?: string | null
  /** A window the service suggests instead. */
  retry?: StatsProblem['retry'] | null
  campaigns: { campaign_id: string; name: string }[]
  stats: Stats | null
  /** The clock's now: the presets are counted from it, and the bucket holding it is in progress. */
  nowMs: number
  /** The preset the shown window is, if any. */
  preset: StatsPreset | null
  /** Where the shown window's final figures end and its live ones begin. */
  boundary?: LiveBoundary | null
}

const GRANULARITY_TEXT: Record<Granularity, string> = { hour: 'By hour', day: 'By day', month: 'By month' }

/** A labelled select with its error under it, like Field. */
function SelectField(props: { name: string; label: string; value: string; error?: string | undefined; options: { value: string; text: string }[] }) {
  const id = `f-${props.name}`
  return (
    <div class={props.error ? 'field has-error' : 'field'}>
      <label for={id}>{props.label}</label>
      <select id={id} name={props.name} aria-invalid={props.error ? 'true' : undefined} aria-describedby={props.error ? `${id}-error` : undefined}>
        {props.options.map((o) => (
          <option value={o.value} selected={o.value === props.value}>
            {o.text}
          </option>
        ))}
      </select>
      {props.error ? (
        <p class="field-error" id={`${id}-error`}>
          {props.error}
        </p>
      ) : null}
    </div>
  )
}

/** The date a window's inclusive last day falls on (an exclusive end on midnight is the day before). */
export const lastDay = (endIso: string): string => new Date(Date.parse(endIso) - 1).toISOString().slice(0, 10)

/** "2026-10-03 through 2026-11-01 (UTC)" for whole days, else exact times with the end excluded. */
export function periodText(startIso: string, endIso: string): string {
  const s = Date.parse(startIso)
  const e = Date.parse(endIso)
  if (isMidnight(s) && isMidnight(e)) {
    return e - s === DAY_MS ? `on ${startIso.slice(0, 10)} (UTC)` : `${startIso.slice(0, 10)} through ${lastDay(endIso)} (UTC)`
  }
  return `from ${utc(startIso)} to ${utc(endIso)} (end excluded)`
}

function Totals(props: { stats: Stats }) {
  const t = props.stats.totals
  return (
    <div class="grid">
      <div class="card">
        <div class="stat-label">Billable impressions</div>
        <p class="stat">{count(t.billable_impressions)}</p>
        <p class="muted">{count(t.attested_billable_impressions)} attested: the view carried a token from a signed-in account</p>
      </div>
      <div class="card">
        <div class="stat-label">Spend</div>
        <p class="stat">{usdSpend(t.spend_micros)}</p>
      </div>
      <div class="card">
        <div class="stat-label">Clicks</div>
        <p class="stat">{count(t.clicks)}</p>
      </div>
      <div class="card">
        <div class="stat-label">Unique viewers</div>
        <p class="stat">{count(t.unique_viewers)}</p>
        <p class="muted">People with a recorded view or click, each counted once</p>
      </div>
    </div>
  )
}

/** Why unique viewers can exceed the recorded views (issue 36), said next to the totals. */
function ViewersNote(props: { stats: Stats }) {
  const t = props.stats.totals
  const recorded = t.billable_impressions + Object.values(t.non_billable).reduce((n, c) => n + c, 0)
  return (
    <p class="muted" id="viewers-note">
      {t.unique_viewers > recorded ? `Unique viewers (${count(t.unique_viewers)}) are more than the recorded views (${count(recorded)}) here: ` : 'Unique viewers can be more than the recorded views: '}
      a click counts its viewer even when the view behind it was never reported, for example a click before the ten seconds were up.
    </p>
  )
}

export function StatsPage(props: StatsPageProps) {
  const { values, errors, stats } = props
  const problems = (Object.entries(errors) as [StatsField, string][]).filter(([, m]) => m)
  const options = [{ value: '', text: 'All campaigns' }, ...props.campaigns.map((c) => ({ value: c.campaign_id, text: c.name }))]
  if (values.campaign_id !== '' && !options.some((o) => o.value === values.campaign_id)) options.push({ value: values.campaign_id, text: values.campaign_id })
  const chosen = props.campaigns.find((c) => c.campaign_id === values.campaign_id)
  const retryHref = props.retry
    ? `/portal/stats?${new URLSearchParams({ granularity: props.retry.granularity, start: props.retry.start.slice(0, 10), end: lastDay(props.retry.end), campaign_id: values.campaign_id })}`
    : null
  return (
    <Page title="Stats" area="portal" path="/portal/stats" session={{ csrf: props.csrf, who: props.email }}>
      <p class="muted">Delivery of your campaigns, read exactly like <code>GET /v1/stats</code>: the same windows, limits and errors. Times are UTC.</p>
      {problems.length > 0 ? (
        <div class="form-error" role="alert">
          <p>
            <strong>There is a problem</strong>
          </p>
          <ul>
            {problems.map(([field, message]) => (
              <li>
                <a href={`#f-${field}`}>{message}</a>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {props.formError ? (
        <p class="form-error" role="alert">
          {props.formError}
        </p>
      ) : null}
      <nav aria-label="Periods" class="presets">
        <ul>
          {STATS_PRESETS.map((p) => (
            <li>
              <a href={presetHref(p, props.nowMs, values.campaign_id)} aria-current={props.preset === p ? 'true' : undefined}>
                {PRESET_TEXT[p]}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <form method="get" action="/portal/stats" class="filters" aria-label="Stats period">
        <SelectField
          name="granularity"
          label="Granularity"
          value={values.granularity}
          error={errors.granularity}
          options={GRANULARITIES.map((g) => ({ value: g, text: GRANULARITY_TEXT[g] }))}
        />
        <Field name="start" label="Start" type="date" value={values.start} error={errors.start} hint="First day, UTC" />
        <Field name="end" label="End" type="date" value={values.end} error={errors.end} hint="Last day, included" />
        <SelectField name="campaign_id" label="Campaign" value={values.campaign_id} error={errors.campaign_id} options={options} />
        <div class="field">
          <button type="submit">Show</button>
        </div>
      </form>
      {retryHref ? (
        <p>
          <a href={retryHref}>Show the window that fits instead</a>
        </p>
      ) : null}
      {stats ? (
        <>
          <h2>
            {chosen ? chosen.name : values.campaign_id ? values.campaign_id : 'All campaigns'}, {periodText(stats.start, stats.end)}
          </h2>
          {props.boundary ? <BoundaryText boundary={props.boundary} granularity={stats.granularity} /> : null}
          <Totals stats={stats} />
          <ViewersNote stats={stats} />
          <DeliveryCharts
            id="stats"
            granularity={stats.granularity}
            points={pointsOf(stats)}
            axis={{ startMs: Date.parse(stats.start), endMs: Date.parse(stats.end) }}
            nowMs={props.nowMs}
            period={periodText(stats.start, stats.end)}
            what={chosen ? `“${chosen.name}”` : 'all your campaigns'}
          />
          <h3>Views not billed</h3>
          <NonBillableTable id="stats-views" billable={stats.totals.billable_impressions} nonBillable={stats.totals.non_billable} period={periodText(stats.start, stats.end)} />
          <p class="muted">
            Served from {stats.served_from === 'daily_rollup' ? 'the daily rollups' : 'the ledger'}. Unique viewers are counted within each period and do not add
            up across periods.
          </p>
        </>
      ) : null}
    </Page>
  )
}

/** A preset's link: its window as the form's values (so the URL can be shared), for the chosen campaign. */
export function presetHref(p: StatsPreset, nowMs: number, campaignId: string): string {
  const { granularity, window } = presetWindow(p, nowMs)
  const start = new Date(window.startMs).toISOString().slice(0, 10)
  const end = lastDay(new Date(window.endMs).toISOString())
  return `/portal/stats?${new URLSearchParams({ granularity, start, end, campaign_id: campaignId })}`
}

const IN_PROGRESS: Record<Granularity, string> = { hour: 'the current hour', day: 'today', month: 'this month' }

/** Where the last closed day ends and the live part begins, in words (domain/stats-presets.ts#liveBoundary). */
function BoundaryText(props: { boundary: LiveBoundary; granularity: Granularity }) {
  const b = props.boundary
  const liveFrom = utc(new Date(b.liveFromMs))
  const closed = b.closedThrough ? `The last closed day is ${b.closedThrough}; it ended at ${liveFrom}.` : `Days before ${liveFrom} are closed.`
  if (b.notBegun) {
    return (
      <p class="live-boundary" id="stats-boundary">
        This period has not begun yet: nothing is recorded in it.
      </p>
    )
  }
  if (!b.livePart) {
    return (
      <p class="live-boundary" id="stats-boundary">
        All of this period is closed: its figures are final. {closed}
      </p>
    )
  }
  return (
    <p class="live-boundary" id="stats-boundary">
      {b.closedPart ? `${closed} Figures up to then are final. ` : ''}From {liveFrom} on, figures are live: they are read as views are recorded (this page at{' '}
      {utc(new Date(b.nowMs))}) and still grow until the day closes, shortly after midnight UTC. In the charts, {IN_PROGRESS[props.granularity]} is drawn lighter:
      it is not over.
    </p>
  )
}

/** Every bucket of the window (the API omits empty ones), so the charts show the gaps. */
function pointsOf(stats: Stats) {
  const byBucket = new Map(stats.points.map((p) => [Date.parse(p.bucket), p]))
  return bucketsOf({ startMs: Date.parse(stats.start), endMs: Date.parse(stats.end) }, stats.granularity).map(({ startMs: b, endMs }) => ({
    t: new Date(b),
    end: new Date(endMs),
    billable_impressions: byBucket.get(b)?.billable_impressions ?? 0,
    spend_micros: byBucket.get(b)?.spend_micros ?? 0,
  }))
}
