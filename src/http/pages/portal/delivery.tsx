import { Chart } from '../chart.tsx'
import { count, usdSpend } from '../format.ts'
import type { Granularity } from '../../../domain/stats.ts'

/** Impressions and spend over time, as the campaign page and the stats page draw them. */

export interface DeliveryPoint {
  /** The bucket's start (UTC). */
  t: Date
  /** Its end (exclusive). */
  end: Date
  billable_impressions: number
  spend_micros: number
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const two = (n: number) => String(n).padStart(2, '0')

/** A bucket on the x axis: "Nov 2, 09:00" by the hour, "Nov 2" by the day, "Nov 2026" by the month (UTC). */
export function axisTime(t: Date, g: Granularity): string {
  const day = `${MONTHS[t.getUTCMonth()]} ${t.getUTCDate()}`
  if (g === 'hour') return `${day}, ${two(t.getUTCHours())}:00`
  if (g === 'day') return day
  return `${MONTHS[t.getUTCMonth()]} ${t.getUTCFullYear()}`
}

/** A bucket in a table: "2026-11-02 09:00 UTC", "2026-11-02", "2026-11". */
export function bucketText(t: Date, g: Granularity): string {
  const iso = t.toISOString()
  if (g === 'hour') return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`
  if (g === 'day') return iso.slice(0, 10)
  return iso.slice(0, 7)
}

/** A spend tick (micro-USD) with as many decimals as the tick step needs, from two to six. */
export function usdTick(micros: number, stepMicros: number): string {
  const decimals = Math.min(6, Math.max(2, Math.ceil(-Math.log10(stepMicros / 1_000_000) - 1e-9)))
  return `$${(micros / 1_000_000).toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals })}`
}

const PER: Record<Granularity, string> = { hour: 'hour', day: 'day', month: 'month' }
const SO_FAR: Record<Granularity, string> = { hour: 'so far: this hour is not over', day: 'so far: today is not over', month: 'so far: this month is not over' }

/** The two charts of a delivery period: billable impressions (bars) and spend (a line). */
export function DeliveryCharts(props: {
  id: string
  granularity: Granularity
  points: DeliveryPoint[]
  period: string
  what: string
  /** The time axis (default: the points' span) and the clock's now (the bucket in progress is marked, later ones left out). */
  axis?: { startMs: number; endMs: number }
  nowMs: number
}) {
  const g = props.granularity
  const impressions = props.points.reduce((n, p) => n + p.billable_impressions, 0)
  const spend = props.points.reduce((n, p) => n + p.spend_micros, 0)
  const common = {
    nowMs: props.nowMs,
    partialText: SO_FAR[g],
    ...(props.axis ? { axis: props.axis } : {}),
    formatAxisTime: (t: Date) => axisTime(t, g),
    formatTime: (t: Date) => bucketText(t, g),
  }
  return (
    <>
      <Chart
        id={`${props.id}-impressions`}
        title={`Billable impressions by ${PER[g]}`}
        axisLabel="Impressions"
        valueLabel="Billable impressions"
        points={props.points.map((p) => ({ t: p.t, end: p.end, value: p.billable_impressions }))}
        formatValue={count}
        integer
        kind="bar"
        tone="primary"
        total={`${count(impressions)} in total`}
        caption={
          <>
            Billable impressions of {props.what} by {PER[g]}, {props.period}. Total: {count(impressions)}.
          </>
        }
        {...common}
      />
      <Chart
        id={`${props.id}-spend`}
        title={`Spend by ${PER[g]}`}
        axisLabel="Spend (USD)"
        valueLabel="Spend (USD)"
        points={props.points.map((p) => ({ t: p.t, end: p.end, value: p.spend_micros }))}
        formatValue={usdSpend}
        formatTick={usdTick}
        kind="line"
        tone="secondary"
        total={`${usdSpend(spend)} in total`}
        caption={
          <>
            Spend of {props.what} by {PER[g]} in US dollars, {props.period}. Total: {usdSpend(spend)}.
          </>
        }
        {...common}
      />
    </>
  )
}
