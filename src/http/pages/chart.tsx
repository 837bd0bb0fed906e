import type { ComponentChildren } from 'preact'
import { DataTable } from './data-table.tsx'

/**
 * A server-rendered SVG chart of one time series: no JavaScript, no inline
 * style (colours, fonts and strokes come from classes in site.css; the SVG
 * carries geometry only). The SVG scales with its viewBox, so it fits a 375 px
 * screen; site.css enlarges the text on narrow screens to keep it readable.
 * Screen readers get a summary in `aria-label`, and everyone gets the numbers
 * in a table under "Data". Generic: a series of {t, value}, whatever it counts.
 */

export interface ChartPoint {
  /** The bucket's start (UTC). */
  t: Date
  value: number
}

export interface ChartProps {
  /** Used for element ids; unique on the page. */
  id: string
  /** What the chart shows ("Billable impressions by day"): the start of the summary and of the table's caption. */
  title: string
  /** The points in time order, every bucket of the period included (zero buckets too). */
  points: ChartPoint[]
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
  kind?: 'bar' | 'line'
  /** Colour: the primary (first) or secondary series colour of site.css. */
  tone?: 'primary' | 'secondary'
  /** Added to the summary, e.g. "3,000 in total" (only the caller knows whether the values add up). */
  total?: string
  caption: ComponentChildren
  /** Drawn in the chart area when there is nothing to show. */
  emptyText?: string
}

/** The drawing's coordinate system (the viewBox); everything scales with the SVG's width. */
export const GEOMETRY = { width: 640, height: 280, top: 50, bottom: 38, left: 12, right: 12 } as const
const PLOT = {
  x0: GEOMETRY.left,
  x1: GEOMETRY.width - GEOMETRY.right,
  y0: GEOMETRY.top,
  y1: GEOMETRY.height - GEOMETRY.bottom,
}

/**
 * Axis text is sized for the narrow-screen font of site.css (22 user units):
 * about 12.5 units per character, so labels never collide at 375 px.
 */
const CHAR_UNITS = 12.5
const LABEL_GAP = 14

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

/**
 * Which of `count` buckets get a time label: every k-th from the first, so
 * that labels of `labelChars` characters fit side by side in `width` units.
 */
export function labelIndices(count: number, labelChars: number, width: number = PLOT.x1 - PLOT.x0): number[] {
  if (count <= 0) return []
  const fit = Math.max(1, Math.floor(width / (labelChars * CHAR_UNITS + LABEL_GAP)))
  const every = Math.max(1, Math.ceil(count / fit))
  const out: number[] = []
  for (let i = 0; i < count; i += every) out.push(i)
  return out
}

export interface AxisLabel {
  index: number
  /** The label's centre, kept inside the drawing. */
  x: number
}

/**
 * Where the time labels go: the candidates of labelIndices, each centred on
 * its bucket but moved inside the drawing at the edges, keeping only those
 * that do not run into the previous one.
 */
export function placeLabels(indices: number[], texts: string[], centre: (i: number) => number): AxisLabel[] {
  const placed: AxisLabel[] = []
  let previousEnd = Number.NEGATIVE_INFINITY
  for (const index of indices) {
    const half = (texts[index]!.length * CHAR_UNITS) / 2
    const x = Math.min(Math.max(centre(index), half), GEOMETRY.width - half)
    if (x - half < previousEnd + LABEL_GAP) continue
    placed.push({ index, x })
    previousEnd = x + half
  }
  return placed
}

const isEmpty = (points: ChartPoint[]) => points.every((p) => p.value === 0)

/** The words a screen reader hears for the chart. */
export function chartSummary(props: Pick<ChartProps, 'title' | 'points' | 'formatValue' | 'formatTime' | 'total' | 'emptyText'>): string {
  const { points } = props
  if (points.length === 0) return `${props.title}: ${(props.emptyText ?? 'No delivery in this period').toLowerCase()}.`
  const first = props.formatTime(points[0]!.t)
  const span = points.length === 1 ? first : `${first} to ${props.formatTime(points[points.length - 1]!.t)}`
  if (isEmpty(points)) return `${props.title}, ${span}: ${(props.emptyText ?? 'No delivery in this period').toLowerCase()}.`
  let peak = points[0]!
  for (const p of points) if (p.value > peak.value) peak = p
  const total = props.total ? `${props.total}; ` : ''
  return `${props.title}, ${span}, ${points.length} ${points.length === 1 ? 'point' : 'points'}: ${total}highest ${props.formatValue(peak.value)} at ${props.formatTime(peak.t)}.`
}

export function Chart(props: ChartProps) {
  const { points } = props
  const empty = isEmpty(points)
  const scale = niceScale(Math.max(0, ...points.map((p) => p.value)), { integer: props.integer })
  const formatTick = props.formatTick ?? ((v: number) => props.formatValue(v))
  const plotWidth = PLOT.x1 - PLOT.x0
  const band = points.length > 0 ? plotWidth / points.length : plotWidth
  const y = (v: number) => PLOT.y1 - (v / scale.max) * (PLOT.y1 - PLOT.y0)
  const centre = (i: number) => PLOT.x0 + (i + 0.5) * band
  const axisTimes = points.map((p) => props.formatAxisTime(p.t))
  const labelChars = Math.max(1, ...axisTimes.map((s) => s.length))
  const tone = props.tone ?? 'primary'
  const kind = props.kind ?? 'bar'
  const round = (n: number) => Math.round(n * 100) / 100

  return (
    <figure class="chart" id={props.id}>
      <svg viewBox={`0 0 ${GEOMETRY.width} ${GEOMETRY.height}`} role="img" aria-label={chartSummary(props)} preserveAspectRatio="xMidYMid meet">
        <text class="axis-title" x={PLOT.x0} y={22}>
          {props.axisLabel}
        </text>
        {(empty ? [0] : scale.ticks).map((v) => (
          <g>
            <line class={v === 0 ? 'axis' : 'grid'} x1={PLOT.x0} x2={PLOT.x1} y1={round(y(v))} y2={round(y(v))} />
            {empty ? null : (
              <text class="tick" x={PLOT.x0 + 2} y={round(y(v) - 5)}>
                {formatTick(v, scale.step)}
              </text>
            )}
          </g>
        ))}
        {empty ? null : kind === 'bar' ? (
          points.map((p, i) =>
            p.value > 0 ? (
              <rect
                class={`bar ${tone}`}
                x={round(PLOT.x0 + i * band + band * 0.1)}
                width={round(Math.max(band * 0.8, 0.5))}
                y={round(y(p.value))}
                height={round(Math.max(PLOT.y1 - y(p.value), 0.5))}
              />
            ) : null,
          )
        ) : (
          <>
            <polyline class={`line ${tone}`} points={points.map((p, i) => `${round(centre(i))},${round(y(p.value))}`).join(' ')} />
            {points.length <= 60 ? points.map((p, i) => <circle class={`dot ${tone}`} cx={round(centre(i))} cy={round(y(p.value))} r={3} />) : null}
          </>
        )}
        {placeLabels(labelIndices(points.length, labelChars), axisTimes, centre).map(({ index, x }) => (
          <g>
            <line class="axis" x1={round(centre(index))} x2={round(centre(index))} y1={PLOT.y1} y2={PLOT.y1 + 5} />
            <text class="tick" x={round(x)} y={PLOT.y1 + 26} text-anchor="middle">
              {axisTimes[index]}
            </text>
          </g>
        ))}
        {empty ? (
          <text class="empty" x={GEOMETRY.width / 2} y={round((PLOT.y0 + PLOT.y1) / 2)} text-anchor="middle">
            {props.emptyText ?? 'No delivery in this period'}
          </text>
        ) : null}
      </svg>
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
                <td>{props.formatTime(p.t)}</td>
                <td class="num">{props.formatValue(p.value)}</td>
              </tr>
            ))
          )}
        </DataTable>
      </details>
    </figure>
  )
}
