import { Chart } from '../chart.tsx'
import { count } from '../format.ts'
import type { Granularity } from '../../../domain/stats.ts'

/** Impressions and spend over time, as the campaign page and the stats page draw them. */

export interface DeliveryPoint {
  /** The bucket's start (UTC). */
  t: Date
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

/**
 * Micro-USD as exact dollars: at least cents, more decimals only when there
 * are any ("$0.0075", "$12.50"). A chart's buckets are not invoices: rounding
 * each to the cent would make them disagree with their total.
 */
export function usdExactFromMicros(micros: number): string {
  const sign = micros < 0 ? '-' : ''
  const abs = Math.abs(micros)
  const fraction = String(abs % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '')
    .padEnd(2, '0')
  return `${sign}$${count(Math.floor(abs / 1_000_000))}.${fraction}`
}

/** A spend tick (micro-USD) with as many decimals as the tick step needs, from two to six. */
export function usdTick(micros: number, stepMicros: number): string {
  const decimals = Math.min(6, Math.max(2, Math.ceil(-Math.log10(stepMicros / 1_000_000) - 1e-9)))
  return `$${(micros / 1_000_000).toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals })}`
}

const PER: Record<Granularity, string> = { hour: 'hour', day: 'day', month: 'month' }

/** The two charts of a delivery period: billable impressions (bars) and spend (a line). */
export function DeliveryCharts(props: { id: string; granularity: Granularity; points: DeliveryPoint[]; period: string; what: string }) {
  const g = props.granularity
  const impressions = props.points.reduce((n, p) => n + p.billable_impressions, 0)
  const spend = props.points.reduce((n, p) => n + p.spend_micros, 0)
  const common = {
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
        points={props.points.map((p) => ({ t: p.t, value: p.billable_impressions }))}
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
        points={props.points.map((p) => ({ t: p.t, value: p.spend_micros }))}
        formatValue={usdExactFromMicros}
        formatTick={usdTick}
        kind="line"
        tone="secondary"
        total={`${usdExactFromMicros(spend)} in total`}
        caption={
          <>
            Spend of {props.what} by {PER[g]} in US dollars, {props.period}. Total: {usdExactFromMicros(spend)}.
          </>
        }
        {...common}
      />
    </>
  )
}
