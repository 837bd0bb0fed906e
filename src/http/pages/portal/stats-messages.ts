import type { ApiError } from '../../../domain/errors.ts'

/**
 * The words a page shows for a refusal of the stats service (the use case of
 * GET /v1/stats): its windows, limits and errors stay there; this puts a
 * reason into a sentence and says which field of the stats form it is about.
 */

export type StatsField = 'granularity' | 'start' | 'end' | 'campaign_id'

export interface StatsProblem {
  field?: StatsField
  message: string
  /** A window the service says would work (`retry_with` of `window_too_costly`). */
  retry?: { start: string; end: string; granularity: string }
}

const count = (n: unknown) => (typeof n === 'number' ? n.toLocaleString('en-US') : String(n))
const words = (code: string) => code.replaceAll('_', ' ')
const sentence = (text: string) => {
  const s = text.charAt(0).toUpperCase() + text.slice(1)
  return /[.!?]$/.test(s) ? s : `${s}.`
}

const BY: Record<string, string> = { hour: 'Hourly', day: 'Daily', month: 'Monthly' }

const FIELD: Record<string, StatsField> = {
  granularity: 'granularity',
  start: 'start',
  end: 'end',
  last_days: 'end',
  campaign_id: 'campaign_id',
}

export function describeStatsError(err: ApiError): StatsProblem {
  const d = err.detail
  if (err.status === 404) return { field: 'campaign_id', message: 'No campaign of this account has that id.' }
  if (typeof d === 'string') return { message: sentence(d) }
  const field = FIELD[d.field]
  switch (d.reason) {
    case 'range_too_large':
      return {
        field: 'end',
        message: `${BY[String(d.granularity)] ?? 'These'} points cover at most ${count(d.max_days)} days: choose a later Start, an earlier End or a coarser Granularity.`,
      }
    case 'end_not_after_start':
      return { field: 'end', message: 'End must be on or after Start.' }
    case 'conflicting_window':
      return { field: 'start', message: 'Give Start and End, or neither (today).' }
    case 'window_too_costly': {
      const retry = d.retry_with as StatsProblem['retry'] | undefined
      return {
        field: 'start',
        message: `This window needs a live scan of about ${count(d.estimated_events)} events, more than the ${count(d.max_events)} allowed at once. Choose a shorter window.`,
        ...(retry ? { retry } : {}),
      }
    }
    case 'beyond_retention':
      return {
        field: 'start',
        message: `Raw delivery records are kept from ${String(d.oldest_available_day)} on: choose a later Start, or whole days without a country filter (served from the daily totals).`,
      }
    default:
      return { ...(field ? { field } : {}), message: sentence(`${words(d.field)}: ${words(d.reason)}`) }
  }
}
