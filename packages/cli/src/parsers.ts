import { InvalidArgumentError } from 'commander'

/** Flag value parsers: a bad value is commander's usage error (exit 2), before any request. */
export function positiveInt(value: string): number {
  const n = Number(value)
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('a whole number of at least 1')
  return n
}

export function impressions(value: string): number {
  const n = Number(value.replace(/[,_]/g, ''))
  if (!Number.isSafeInteger(n) || n < 1000 || n % 1000 !== 0) throw new InvalidArgumentError('a multiple of 1,000 (1,000 to 100,000)')
  return n
}

export function cpm(value: string): number {
  const n = Number(value.replace(/^\$/, ''))
  if (!/^\$?\d+(\.\d+)?$/.test(value) || !(n > 0)) throw new InvalidArgumentError('a price in USD above 0, such as 2.50')
  return n
}

export function seconds(value: string): number {
  const n = Number(value)
  if (!Number.isFinite(n) || n < 1) throw new InvalidArgumentError('seconds, at least 1')
  return n
}

export function list(value: string): string[] {
  const items = value.split(',').map((s) => s.trim()).filter((s) => s !== '')
  if (items.length === 0) throw new InvalidArgumentError('a comma-separated list')
  return items
}

/** A date (`2026-11-02`, midnight UTC) or an instant (`2026-11-02T09:00:00Z`), as ISO 8601. */
export function when(value: string): string {
  const iso = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00.000Z` : value
  const ms = Date.parse(iso)
  if (!Number.isFinite(ms)) throw new InvalidArgumentError('a date (2026-11-02) or an ISO 8601 instant')
  return new Date(ms).toISOString()
}

const SURFACES = ['extension', 'terminal'] as const
type Surface = (typeof SURFACES)[number]
const isSurface = (s: string): s is Surface => SURFACES.some((x) => x === s)

/** Comma-separated surfaces, each `extension` or `terminal`. */
export function surfaces(value: string): Surface[] {
  const items = list(value)
  const bad = items.find((s) => !isSurface(s))
  if (bad !== undefined) throw new InvalidArgumentError(`${bad} is not a surface (extension, terminal)`)
  return items.filter(isSurface)
}
