import { microsToCents } from '../../domain/money.ts'

/** How pages write numbers, money and time. Money stays integer until here; micros become cents by the one rounding rule. */

const USD = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' })
const COUNT = new Intl.NumberFormat('en-US')

/** 123456 → "$1,234.56". */
export const usdFromCents = (cents: number): string => USD.format(cents / 100)

/** Micros → dollars, rounded to the cent exactly as invoices round (money.ts). */
export const usdFromMicros = (micros: number): string => usdFromCents(microsToCents(micros))

/** A CPM bid in dollars with up to six decimals, as the advertiser typed it: 2.5 → "$2.50", 1.234567 → "$1.234567". */
export function usdBid(usd: number): string {
  const [whole, fraction = ''] = usd.toFixed(6).replace(/0+$/, '').split('.')
  return `$${COUNT.format(Number(whole))}.${fraction.padEnd(2, '0')}`
}

export const count = (n: number): string => COUNT.format(n)

/** "2026-11-25 10:36 UTC": every time on a page is UTC, like the API. */
export function utc(date: Date | string | null, empty = '—'): string {
  if (date === null) return empty
  const d = typeof date === 'string' ? new Date(date) : date
  return Number.isNaN(d.getTime()) ? empty : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

export const utcDay = (date: Date | string): string => (typeof date === 'string' ? date : date.toISOString()).slice(0, 10)

/** Micros in dollars to the micro, for exact delivered value: 1234567 → "$1.234567". */
export function usdExactFromMicros(micros: number): string {
  const sign = micros < 0 ? '-' : ''
  const abs = Math.abs(micros)
  return `${sign}$${COUNT.format(Math.floor(abs / 1_000_000))}.${String(abs % 1_000_000).padStart(6, '0')}`
}
