import type { ComponentChildren } from 'preact'
import { DataTable } from './data-table.tsx'
import { fractionOf, placeTimeLabels, timeMarks, type TimeMark } from '../../domain/chart-geometry.ts'

/**
 * A server-rendered SVG chart of one time series on a true time axis: no
 * inline style (colours, fonts and strokes come from classes in site.css; the
 * SVG carries geometry only). Horizontal positions are percentages, so the
 * chart takes the page's width while its text keeps its size; a bucket is as
 * wide as its period (domain/chart-geometry.ts). The bucket in progress is
 * drawn lighter and dashed, and nothing is drawn after now. Each bucket with a
 * value is a focusable mark named by its time and value (site.js shows that as
 * a tooltip on hover and focus); screen readers get a summary in the SVG's
 * `aria-label`, and everyone gets the numbers in a table under "Data".
 */

export interface ChartPoint {
  /** The bucket's start (UTC). */
  t: Date
  /** Its end (exclusive): the next bucket's start, or the window's end for a clipped last bucket. */
  end: Date
  value: number
}

export interface ChartProps {
  /** Used for element ids; unique on the page. */
  id: string
  /** What the chart shows ("Billable impressions by day"): the start of the summary and of the table's caption. */
  title: string
  /** The points in time order, every bucket of the period included (zero buckets too). */
  points: ChartPoint[]
  /** The time axis; defaults to the points' span. A wider one leaves room, e.g. the rest of today. */
  axis?: { startMs: number; endMs: number }
  /** The clock's now: the bucket holding it is in progress, later ones are not drawn or listed. */
  nowMs?: number
  /** The y axis's title, with the unit ("Impressions", "Spend (USD)"). */
  axisLabel: string
  /** The table's value column heading. */
  valueLabel: string
  /** A value as the table and the summary write it. */
  formatValue: (value: number) => string
  /** A y-axis tick; defaults to formatValue. Gets the tick step to pick its precision. */
  formatTick?: (value: number, step: number) => string
  /** A short time for the x axis ("Nov 2", "09:00"). */
  formatAxisTime: (t: Date) => string
  /** A full time for the table and the summary ("2026-11-02 09:00 UTC"). */
  formatTime: (t: Date) => string
  /** Values are counts: ticks are whole numbers. */
  integer?: boolean
  /** Bars, or a level per bucket (a step line) for amounts such as spend. */
  kind?: 'bar' | 'line'
  /** Colour: the primary (first) or secondary series colour of site.css. */
  tone?: 'primary' | 'secondary'
  /** Added to the summary, e.g. "3,000 in total" (only the caller knows whether the values add up). */
  total?: string
  /** Said of the bucket in progress ("so far, this hour is not over"). */
  partialText?: string
  caption: ComponentChildren
  /** Drawn in the chart area when there is nothing to show. */
  emptyText?: string
}

/** Vertical geometry in CSS pixels (the SVG is `HEIGHT` tall); horizontal in percent of its width. */
export const GEOMETRY = { height: 280, top: 50, bottom: 38, leftPct: 2, rightPct: 98 } as const
const Y0 = GEOMETRY.top
const Y1 = GEOMETRY.height - GEOMETRY.bottom

/** Axis labels are placed for a narrow plot and for a wide one (classes `narrow` and `wide`: site.css shows one set per screen width). */
export const LABEL_WIDTHS = { narrow: 300, wide: 640 } as const
/** About how wide a character of a 12 px tick label is (the y-axis gutter is sized by its longest label). */
const TICK_CHAR_PX = 7.2
/** Up to this many marks each take the Tab key; more are reached with the arrow keys (site.js) from the first. */
export const TABBABLE_MARKS = 62

export interface Scale {
  /** The top of the axis (the highest tick). */
  max: number
  step: number
  ticks: number[]
}

const tidy = (n: number) => Number(n.toPrecision(12))

/**
 * A "nice" value axis from 0 to at least `max`: about `target` intervals of
 * 1, 2 or 5 times a power of ten (whole numbers when `integer`). An empty or
 * all-zero series gets the axis 0..1.
 */
export function niceScale(max: number, options: { target?: number; integer?: boolean } = {}): Scale {
  const target = options.target ?? 4
  if (!(max > 0) || !Number.isFinite(max)) return { max: 1, step: 1, ticks: [0, 1] }
  const rough = max / target
  const magnitude = 10 ** Math.floor(Math.log10(rough))
  const normalized = rough / magnitude
  let step = tidy((normalized <= 1 ? 1 : normalized <= 2 ? 2 : normalized <= 5 ? 5 : 10) * magnitude)
  if (options.integer) step = Math.max(1, Math.round(step))
  const intervals = Math.max(1, Math.ceil(tidy(max / step)))
  const ticks = Array.from({ length: intervals + 1 }, (_, i) => tidy(i * step))
  return { max: ticks[ticks.length - 1]!, step, ticks }
}

/** The points that have happened (started at or before now). */
const pastPoints = (points: ChartPoint[], nowMs: number) => points.filter((p) => p.t.getTime() <= nowMs)
const isEmpty = (points: ChartPoint[]) => points.every((p) => p.value === 0)

/** The words a screen reader hears for the chart. */
export function chartSummary(props: Pick<ChartProps, 'title' | 'points' | 'nowMs' | 'formatValue' | 'formatTime' | 'total' | 'emptyText' | 'partialText'>): string {
  const nowMs = props.nowMs ?? Number.POSITIVE_INFINITY
  const points = pastPoints(props.points, nowMs)
  if (points.length === 0) return `${props.title}: ${(props.emptyText ?? 'No delivery in this period').toLowerCase()}.`
  const first = props.formatTime(points[0]!.t)
  const last = points[points.length - 1]!
  const span = points.length === 1 ? first : `${first} to ${props.formatTime(last.t)}`
  const inProgress = last.end.getTime() > nowMs ? ` The last is in progress (${props.partialText ?? 'so far'}).` : ''
  if (isEmpty(points)) return `${props.title}, ${span}: ${(props.emptyText ?? 'No delivery in this period').toLowerCase()}.${inProgress}`
  let peak = points[0]!
  for (const p of points) if (p.value > peak.value) peak = p
  const total = props.total ? `${props.total}; ` : ''
  return `${props.title}, ${span}, ${points.length} ${points.length === 1 ? 'point' : 'points'}: ${total}highest ${props.formatValue(peak.value)} at ${props.formatTime(peak.t)}.${inProgress}`
}

const round = (n: number) => Math.round(n * 100) / 100
/** A position on the axis (0..1) as a percentage of the SVG's width. */
const pct = (f: number) => `${Math.round((GEOMETRY.leftPct + f * (GEOMETRY.rightPct - GEOMETRY.leftPct)) * 1000) / 1000}%`
/** A width on the axis (0..1) as a percentage of the SVG's width. */
const pctWidth = (f: number) => `${Math.round(f * (GEOMETRY.rightPct - GEOMETRY.leftPct) * 1000) / 1000}%`

export function Chart(props: ChartProps) {
  const nowMs = props.nowMs ?? Number.POSITIVE_INFINITY
  const points = pastPoints(props.points, nowMs)
  const axis = props.axis ?? {
    startMs: props.points[0]?.t.getTime() ?? 0,
    endMs: props.points[props.points.length - 1]?.end.getTime() ?? 1,
  }
  const marks = timeMarks(
    points.map((p) => ({ startMs: p.t.getTime(), endMs: p.end.getTime(), value: p.value })),
    axis,
    nowMs,
  )
  const empty = isEmpty(points)
  const scale = niceScale(Math.max(0, ...points.map((p) => p.value)), { integer: props.integer })
  const formatTick = props.formatTick ?? ((v: number) => props.formatValue(v))
  const y = (v: number) => Y1 - (v / scale.max) * (Y1 - Y0)
  const tone = props.tone ?? 'primary'
  const kind = props.kind ?? 'bar'
  const partialText = props.partialText ?? 'so far'

  // Time labels: one set that fits a narrow plot, and the extra ones a wide plot has room for.
  // The axis's buckets: the points', and as many again of the first one's length back to the axis's start
  // and on to its end (a widened axis: the time before the window, or the rest of the period still to come).
  const first = props.points[0]
  const last = props.points[props.points.length - 1]
  const step = first ? first.end.getTime() - first.t.getTime() : 0
  const before: { t: Date; end: Date }[] = []
  const after: { t: Date; end: Date }[] = []
  if (first && last && step > 0) {
    for (let t = first.t.getTime() - step; t >= axis.startMs; t -= step) before.unshift({ t: new Date(t), end: new Date(t + step) })
    for (let t = last.t.getTime() + step; t + step <= axis.endMs; t += step) after.push({ t: new Date(t), end: new Date(t + step) })
  }
  const axisBuckets = [...before, ...props.points, ...after]
  const candidates = axisBuckets.map((p, index) => {
    const x0 = fractionOf(p.t.getTime(), axis)
    const x1 = fractionOf(p.end.getTime(), axis)
    return { index, centre: (x0 + x1) / 2, text: props.formatAxisTime(p.t) }
  })
  const narrow = placeTimeLabels(candidates, LABEL_WIDTHS.narrow, { bucketMs: step })
  const wide = placeTimeLabels(candidates, LABEL_WIDTHS.wide, { bucketMs: step })
  // One set when both widths fit the same labels; else each set for its own screens (site.css).
  const same = narrow.length === wide.length
  const labels = same
    ? narrow.map((l) => ({ ...l, only: undefined }))
    : [...narrow.map((l) => ({ ...l, only: 'narrow' })), ...wide.map((l) => ({ ...l, only: 'wide' }))]

  const shown = marks.filter((m) => m.value > 0 || m.partial)
  const tabbable = shown.length <= TABBABLE_MARKS
  const markText = (m: TimeMark) => {
    const p = points[m.index]!
    return `${props.formatTime(p.t)}: ${props.valueLabel} ${props.formatValue(p.value)}${m.partial ? ` (${partialText})` : ''}`
  }
  const nowInside = nowMs > axis.startMs && nowMs < axis.endMs

  // The value labels stand in a gutter of their own, left of the plot: never behind a bar or the line (issue 51).
  const ticks = empty ? [] : scale.ticks.map((v) => ({ v, text: formatTick(v, scale.step) }))
  const gutter = Math.ceil(Math.max(0, ...ticks.map((t) => t.text.length)) * TICK_CHAR_PX) + 10

  return (
    <figure class="chart" id={props.id}>
      <div class="chart-frame">
        {empty ? null : (
          <svg class="y-axis" width={gutter} height={GEOMETRY.height} aria-hidden="true">
            {ticks.map((t) => (
              <text class="tick" x={gutter - 4} y={round(y(t.v) + 4)} text-anchor="end">
                {t.text}
              </text>
            ))}
          </svg>
        )}
        <svg class="timeline" width="100%" height={GEOMETRY.height} role="group" aria-label={chartSummary(props)}>
          <g aria-hidden="true">
            <text class="axis-title" x={pct(0)} y={22}>
              {props.axisLabel}
            </text>
            {(empty ? [0] : scale.ticks).map((v) => (
              <line class={v === 0 ? 'axis' : 'grid'} x1={pct(0)} x2={pct(1)} y1={round(y(v))} y2={round(y(v))} />
            ))}
            {labels.map((l) => {
              const p = axisBuckets[l.index]!
              const tickAt = (fractionOf(p.t.getTime(), axis) + fractionOf(p.end.getTime(), axis)) / 2
              return (
                <g class={l.only}>
                  <line class="axis" x1={pct(tickAt)} x2={pct(tickAt)} y1={Y1} y2={Y1 + 5} />
                  <text class="tick" x={pct(l.at)} y={Y1 + 24} text-anchor={l.anchor}>
                    {props.formatAxisTime(p.t)}
                  </text>
                </g>
              )
            })}
            {kind === 'line' && !empty ? <Levels marks={marks} y={y} tone={tone} /> : null}
            {nowInside ? (
              <g class="now">
                <line x1={pct(fractionOf(nowMs, axis))} x2={pct(fractionOf(nowMs, axis))} y1={Y0 - 8} y2={Y1} />
                <text x={pct(fractionOf(nowMs, axis))} dx={fractionOf(nowMs, axis) > 0.85 ? -4 : 4} y={Y0 - 10} text-anchor={fractionOf(nowMs, axis) > 0.85 ? 'end' : 'start'}>
                  now
                </text>
              </g>
            ) : null}
            {empty ? (
              <text class="empty" x="50%" y={round((Y0 + Y1) / 2)} text-anchor="middle">
                {props.emptyText ?? 'No delivery in this period'}
              </text>
            ) : null}
          </g>
          {empty
            ? null
            : shown.map((m, n) => {
                const text = markText(m)
                const width = m.x1 - m.x0
                // A sliver of the bucket's own width apart from its neighbours.
                const inset = width * 0.08
                const cls = m.partial ? ' partial' : ''
                return (
                  <g class="mark" tabindex={tabbable || n === 0 ? 0 : -1} role="img" aria-label={text} data-tip={text}>
                    <rect class="hit" x={pct(m.x0)} width={pctWidth(width)} y={Y0} height={Y1 - Y0} />
                    {kind === 'bar' ? (
                      <rect
                        class={`bar ${tone}${cls} shape`}
                        x={pct(m.x0 + inset)}
                        width={pctWidth(width - 2 * inset)}
                        y={round(y(m.value))}
                        height={round(Math.max(Y1 - y(m.value), 1))}
                      />
                    ) : (
                      <circle class={`dot ${tone}${cls} shape`} cx={pct((m.x0 + m.x1) / 2)} cy={round(y(m.value))} r={4} />
                    )}
                  </g>
                )
              })}
        </svg>
      </div>
      <figcaption>{props.caption}</figcaption>
      <details class="chart-data">
        <summary>Data</summary>
        {/* Scrolls when long or narrow, so it takes the focus (keyboard users can scroll it). */}
        <DataTable label={`${props.title}: data`} columns={['Time (UTC)', { label: props.valueLabel, num: true }]} caption={props.title}>
          {points.length === 0 ? (
            <tr>
              <td colSpan={2}>{props.emptyText ?? 'No delivery in this period'}</td>
            </tr>
          ) : (
            points.map((p) => (
              <tr>
                <td>
                  {props.formatTime(p.t)}
                  {p.end.getTime() > nowMs ? <span class="muted"> ({partialText})</span> : null}
                </td>
                <td class="num">{props.formatValue(p.value)}</td>
              </tr>
            ))
          )}
        </DataTable>
      </details>
    </figure>
  )
}

/** A step line: each bucket's level across its width, joined at the bucket edges; the level in progress dashed. */
function Levels(props: { marks: TimeMark[]; y: (v: number) => number; tone: string }) {
  const { marks, y, tone } = props
  return (
    <g>
      {marks.map((m, i) => {
        const previous = marks[i - 1]
        const joined = previous !== undefined && Math.abs(previous.x1 - m.x0) < 1e-9
        return (
          <>
            {joined && previous.value !== m.value ? <line class={`line ${tone}${m.partial ? ' partial' : ''}`} x1={pct(m.x0)} x2={pct(m.x0)} y1={round(y(previous.value))} y2={round(y(m.value))} /> : null}
            <line class={`line ${tone}${m.partial ? ' partial' : ''}`} x1={pct(m.x0)} x2={pct(m.x1)} y1={round(y(m.value))} y2={round(y(m.value))} />
          </>
        )
      })}
    </g>
  )
}
