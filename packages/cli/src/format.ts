/** Presentation helpers: money, counts, times, sparklines. Money arrives as integer micros or cents. */

/** USD from micros, exact: at least two decimals, more only when the micros need them ($0.312, $12.50). */
export function usdFromMicros(micros: number): string {
  const sign = micros < 0 ? '-' : ''
  const abs = Math.abs(micros)
  const dollars = Math.trunc(abs / 1_000_000)
  let fraction = String(abs % 1_000_000).padStart(6, '0').replace(/0+$/, '')
  if (fraction.length < 2) fraction = fraction.padEnd(2, '0')
  return `${sign}$${dollars.toLocaleString('en-US')}.${fraction}`
}

export const usdFromCents = (cents: number) => usdFromMicros(cents * 10_000)

export const count = (n: number) => n.toLocaleString('en-US')

/** An instant as `2026-11-02 09:00 UTC` (or `-` when absent). */
export function instant(iso: string | null | undefined): string {
  if (!iso) return '-'
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`
}

const TICKS = '▁▂▃▄▅▆▇█'

/** A one-line chart of the values, lowest tick for zero, highest for the maximum. */
export function sparkline(values: number[]): string {
  const max = Math.max(0, ...values)
  if (max === 0) return TICKS[0]!.repeat(values.length)
  return values.map((v) => TICKS[Math.min(TICKS.length - 1, Math.round((Math.max(0, v) / max) * (TICKS.length - 1)))]).join('')
}

/** A bid as people write it: $2.50, $0.125. */
export const usdPrice = (usd: number) => `$${usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 })}`
