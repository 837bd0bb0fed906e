/**
 * The one reading of client timestamps: RFC 3339 `date-time`, as every
 * request field declares it, narrowed to what the service can compute with.
 * Refused: a leap second (`23:59:60`: JavaScript dates and PostgreSQL
 * timestamps have none, so it would become an Invalid Date), instants outside
 * the years 0001–9999 in UTC (PostgreSQL has no year 0000, and other years
 * print differently), and impossible dates (`02-30`) or offsets (`+24:00`).
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-](\d{2}):(\d{2}))$/

const FIRST_MS = Date.parse('0001-01-01T00:00:00Z')
const END_MS = Date.parse('9999-12-31T23:59:59.999Z')

const isLeapYear = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)
const daysInMonth = (y: number, m: number) => (m === 2 ? (isLeapYear(y) ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31)

/** Epoch milliseconds of an RFC 3339 timestamp, or null when the service refuses it. */
export function parseTimestamp(text: string): number | null {
  const m = RFC3339.exec(text)
  if (!m) return null
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number]
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null
  if (hour > 23 || minute > 59 || second > 59) return null
  if (m[7] !== undefined && (Number(m[7]) > 23 || Number(m[8]) > 59)) return null
  const ms = Date.parse(text.toUpperCase())
  return Number.isFinite(ms) && ms >= FIRST_MS && ms <= END_MS ? ms : null
}

export const isTimestamp = (text: string): boolean => parseTimestamp(text) !== null
