import type { Quote } from 'advertiser-campaign-sdk/client'
import type { Output } from './output.js'
import { count, instant, usdPrice } from './format.js'

/** The auction quote as label/value pairs (shared by `quote` and `campaigns create`). */
export function showQuote(out: Output, q: Quote, surfaceGiven: boolean): void {
  const surfaces = q.based_on.surfaces.length > 1 ? `both (${q.based_on.surfaces.join(' and ')}, one bid)` : (q.based_on.surfaces[0] ?? '-')
  const estimate = (at: string | null) => (at === null ? `unknown (no billable impression on this traffic in the last hour to estimate from)` : instant(at))
  out.pairs([
    ['Surface', surfaceGiven ? surfaces : `${surfaces} (no --surface given: the service's default)`],
    ['Rank', `${q.rank} (${q.rank === 1 ? 'next to serve' : `${count(q.impressions_ahead)} impressions queued ahead`})`],
    ['Clearing CPM', q.clearing_cpm_usd === null ? 'none (nothing ranks ahead)' : usdPrice(q.clearing_cpm_usd)],
    ['Starts', estimate(q.estimated_start_at)],
    ['Completes', estimate(q.estimated_completion_at)],
    ...(q.based_on.topics ? [['Topic share', q.based_on.topic_share === null ? 'unknown (no decision counted in the last hour)' : `${(q.based_on.topic_share * 100).toFixed(1)}% of recent decisions carry ${q.based_on.topics.join(', ')}`] satisfies [string, string]] : []),
  ])
}
