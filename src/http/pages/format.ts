/**
 * How pages write numbers, money and time. Money stays integer until here. The rounding rule, once:
 * spend and delivered value (micro-USD) are written exactly, never rounded (`usdSpend`); only an
 * invoice rounds, to the cent, when it is issued (domain/money.ts), and amounts kept in cents
 * (invoices, balances, order values, limits) are written with `usdFromCents`.
 */

const USD = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' })
const COUNT = new Intl.NumberFormat('en-US')

/** 123456 → "$1,234.56". */
export const usdFromCents = (cents: number): string => USD.format(cents / 100)

/** A CPM bid in dollars with up to six decimals, as the advertiser typed it: 2.5 → "$2.50", 1.234567 → "$1.234567". */
export function usdBid(usd: number): string {
  const [whole, fraction = ''] = usd.toFixed(6).replace(/0+$/, '').split('.')
  return `$${COUNT.format(Number(whole))}.${fraction.padEnd(2, '0')}`
}

export const count = (n: number): string => COUNT.format(n)

/** The word for `n` of a thing, agreeing with it: plural(1, 'day adds', 'days add') → "day adds". */
export const plural = (n: number, one: string, many: string): string => (n === 1 ? one : many)

/** `n` with its word: counted(1, 'day', 'days') → "1 day"; counted(1200, 'day', 'days') → "1,200 days". */
export const counted = (n: number, one: string, many: string): string => `${count(n)} ${plural(n, one, many)}`

/** "2026-11-25 10:36 UTC": every time on a page is UTC, like the API. */
export function utc(date: Date | string | null, empty = '—'): string {
  if (date === null) return empty
  const d = typeof date === 'string' ? new Date(date) : date
  return Number.isNaN(d.getTime()) ? empty : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

export const utcDay = (date: Date | string): string => (typeof date === 'string' ? date : date.toISOString()).slice(0, 10)

/**
 * Spend (micro-USD) as exact dollars, on every page that shows spend or delivered value: at least
 * cents, more decimals only when there are any ("$0.312", "$0.0025", "$12.50", "$1.234567"). Not
 * rounded to the cent: a campaign's spend, a chart's buckets and their total then always agree, and
 * a first day of $0.0025 does not read as $0.00.
 */
export function usdSpend(micros: number): string {
  const sign = micros < 0 ? '-' : ''
  const abs = Math.abs(micros)
  const fraction = String(abs % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '')
    .padEnd(2, '0')
  return `${sign}$${COUNT.format(Math.floor(abs / 1_000_000))}.${fraction}`
}
