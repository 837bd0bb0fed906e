/**
 * The API's `{field, reason, ...facts}` in the command line's words: the flag the user typed for
 * the field, and the rule as a sentence (docs/cli.md, "Errors").
 */

/** API field → flag, for every command; `<arg>` where a command takes the value as an argument. */
const FLAGS: Record<string, string> = {
  ad_line: '--line',
  destination_url: '--destination',
  cpm_usd: '--cpm',
  impressions: '--impressions',
  name: '--name',
  brand: '--brand',
  target_surface: '--surface',
  target_countries: '--countries',
  target_topics: '--topics',
  pace_minutes: '--pace',
  kind: '--kind',
  idempotency_key: '--idempotency-key',
  start: '--from',
  end: '--to',
  from: '--from',
  to: '--to',
  last_days: '--last-days',
  granularity: '--granularity',
  campaign_id: '--campaign',
  creative_id: '--creative',
  campaign_ids: '--campaign',
  creative_ids: '--creative',
  group_by: '--group-by',
  surface: '--surface',
  surfaces: '--surface',
  country: '--country',
  countries: '--country',
  url: '--url',
  events: '--events',
}

/** Where a command takes a field as an argument rather than a flag. */
const ARGUMENTS: Record<string, Record<string, string>> = {
  'campaigns rename': { name: '<name>' },
  'campaigns rewrite': { ad_line: '<ad_line>' },
}

/** The flag (or argument) of `field` in `command`, or null when the field is no input of the command line (`body`, `path`). */
export function flagOf(command: string, field: string): string | null {
  const top = field.split('.')[0] ?? field
  return ARGUMENTS[command]?.[top] ?? FLAGS[top] ?? null
}

const usd = (n: unknown) => (typeof n === 'number' ? `$${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 })}` : String(n))
const num = (n: unknown) => (typeof n === 'number' ? n.toLocaleString('en-US') : String(n))
const money = (flag: string | null, n: unknown) => (flag === '--cpm' ? usd(n) : num(n))

/** The rule a `{field, reason, ...facts}` broke, as a sentence about the flag. */
export function ruleInWords(d: { field: string; reason: string } & Record<string, unknown>, flag: string | null): string {
  switch (d.reason) {
    case 'required':
      return 'is required'
    case 'below_minimum':
      return d.minimum === undefined ? 'is below the minimum' : `must be at least ${money(flag, d.minimum)}${flag === '--cpm' ? ' CPM (the bid floor, `adctl account` shows it)' : ''}`
    case 'above_maximum':
      return d.maximum === undefined ? 'is above the maximum' : `must be at most ${money(flag, d.maximum)}`
    case 'too_precise':
      return `has more decimals than the ${num(d.max_decimals)} a bid may have`
    case 'too_short':
      return d.limit ?? d.min_length ? `must be at least ${num(d.limit ?? d.min_length)} characters` : 'is too short'
    case 'too_long':
      return d.limit ?? d.max_length ? `must be at most ${num(d.limit ?? d.max_length)} characters` : 'is too long'
    case 'https_required':
      return 'must be an https:// address'
    case 'invalid_url':
      return 'is not a URL'
    case 'too_few_items':
      return `needs at least ${num(d.limit)} items`
    case 'too_many_items':
      return `takes at most ${num(d.limit ?? d.max)} items`
    case 'invalid_format':
      return 'is not in the expected format (see --help)'
    case 'invalid_type':
      return `must be ${String(d.expected ?? 'another type')}`
    case 'invalid_value':
      return Array.isArray(d.allowed) ? `must be one of ${d.allowed.join(', ')}` : 'is not an accepted value'
    case 'not_a_multiple':
      return `must be a multiple of ${num(d.multiple_of)}`
    case 'not_a_multiple_of_block':
      return `must be whole blocks: a multiple of ${num(d.block_impressions)} impressions`
    case 'too_many_blocks':
      return `is more than the ${num(d.max_blocks)} blocks one order may have`
    case 'order_total_exceeded':
      return `makes an order of ${usd(d.order_total_usd)}, over the ${usd(d.max_total_usd)} one order may total: lower --cpm or the size`
    case 'surface_split_not_enabled':
      return 'this service sells both surfaces together (no surface split): leave --surface out'
    case 'country_targeting_not_enabled':
      return 'country targeting is not enabled on this service: leave --countries out'
    case 'unknown_topic':
      return `${JSON.stringify(d.topic)} is not a topic (the topics: GET /serve/v1/topics)`
    case 'too_many_topics':
      return `takes at most ${num(d.max)} topics`
    case 'required_with_group_by_topic':
      return '--group-by topic needs exactly one --campaign'
    case 'required_with_group_by_creative':
      return '--group-by creative needs --creative'
    case 'conflicting_window':
      return '--last-days cannot be combined with --from or --to'
    case 'end_not_after_start':
    case 'to_before_from':
      return 'must be after --from'
    case 'window_too_costly':
      return `this window would scan about ${num(d.estimated_events)} events, more than the ${num(d.max_events)} allowed at once${retryWith(d.retry_with)}`
    case 'unknown_field':
    case 'unknown_parameter':
      return 'is not accepted by this version of the service'
    default:
      return `refused (${d.reason})`
  }
}

function retryWith(r: unknown): string {
  if (typeof r !== 'object' || r === null) return ': narrow it'
  const start = 'start' in r ? r.start : undefined
  const end = 'end' in r ? r.end : undefined
  return typeof start === 'string' && typeof end === 'string' ? `: try --from ${start} --to ${end}` : ': narrow it'
}

/** The closest of `names` to `typed` (Levenshtein), when it is close enough to be a typo. */
export function nearest(typed: string, names: readonly string[]): string | null {
  let best: string | null = null
  let bestDistance = Infinity
  for (const name of names) {
    const d = distance(typed.toLowerCase(), name)
    if (d < bestDistance) {
      best = name
      bestDistance = d
    }
  }
  return best !== null && bestDistance <= Math.max(2, Math.floor(typed.length / 3)) ? best : null
}

function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)))
    previous = row
  }
  return previous[b.length]!
}
