import { Option, type Command } from 'commander'
import type { Stats, StatsQuery } from 'advertiser-campaign-sdk/client'
import { Context, type Io } from '../context.js'
import { usage } from '../exit.js'
import { count, instant, sparkline, usdFromMicros } from '../format.js'
import { showQuote } from '../quote.js'
import { cpm, impressions, list, positiveInt, when } from '../parsers.js'

export function reportCommands(program: Command, io: Io): void {
  program
    .command('quote')
    .description('Where a bid would rank in the live auction now, and when it would start and finish')
    .requiredOption('--cpm <usd>', 'bid in USD per 1,000 impressions', cpm)
    .option('--impressions <n>', 'order size, for the completion estimate', impressions)
    .addOption(new Option('--surface <surface>').choices(['extension', 'terminal']))
    .option('--countries <codes>', 'comma-separated ISO country codes', list)
    .option('--topics <names>', 'comma-separated topics (the share of recent decisions carrying one is estimated)', list)
    .addOption(new Option('--kind <kind>').choices(['impression', 'click']))
    .action(async (o: { cpm: number; impressions?: number; surface?: 'extension' | 'terminal'; countries?: string[]; topics?: string[]; kind?: 'impression' | 'click' }, command: Command) => {
      const ctx = Context.of(command, io)
      const q = await (await ctx.client()).quote({
        cpm_usd: o.cpm,
        ...(o.impressions ? { impressions: o.impressions } : {}),
        ...(o.surface ? { target_surface: o.surface } : {}),
        ...(o.countries ? { target_countries: o.countries.join(',') } : {}),
        ...(o.topics ? { target_topics: o.topics.join(',') } : {}),
        ...(o.kind ? { kind: o.kind } : {}),
      })
      ctx.out.data(q)
      showQuote(ctx.out, q)
    })

  program
    .command('stats')
    .description('Delivery metrics as a table, with a sparkline per metric')
    .option('--from <date>', 'inclusive start (a date or an ISO instant)', when)
    .option('--to <date>', 'exclusive end (a date or an ISO instant)', when)
    .option('--last-days <n>', 'the last N complete UTC days (the default is 7)', positiveInt)
    .addOption(new Option('--granularity <g>', 'bucket size').choices(['hour', 'day', 'month']))
    .option('--campaign <ids>', 'comma-separated campaign ids', list)
    .option('--creative <ids>', 'comma-separated creative ids', list)
    .addOption(new Option('--group-by <g>', 'creative (with --creative) or topic (with one --campaign)').choices(['account', 'creative', 'topic']))
    .option('--surface <surfaces>', 'comma-separated surfaces', list)
    .option('--country <codes>', 'comma-separated country codes', list)
    .action(async (o: StatsFlags, command: Command) => {
      const ctx = Context.of(command, io)
      if (o.lastDays !== undefined && (o.from || o.to)) throw usage('--last-days cannot be combined with --from or --to.')
      const query: StatsQuery = {
        ...(o.from ? { start: o.from } : {}),
        ...(o.to ? { end: o.to } : {}),
        ...(o.lastDays ? { last_days: o.lastDays } : {}),
        ...(o.granularity ? { granularity: o.granularity } : {}),
        ...(o.campaign ? { campaign_id: o.campaign.join(',') } : {}),
        ...(o.creative ? { creative_id: o.creative.join(',') } : {}),
        ...(o.groupBy ? { group_by: o.groupBy } : {}),
        ...(o.surface ? { surface: o.surface.join(',') } : {}),
        ...(o.country ? { country: o.country.join(',') } : {}),
      }
      const stats = await (await ctx.client()).stats(query)
      ctx.out.data(stats)
      showStats(ctx, stats)
    })
}

interface StatsFlags {
  from?: string
  to?: string
  lastDays?: number
  granularity?: 'hour' | 'day' | 'month'
  campaign?: string[]
  creative?: string[]
  groupBy?: 'account' | 'creative' | 'topic'
  surface?: string[]
  country?: string[]
}

/** What a bucket and the totals share. */
type Figures = Stats['totals']

const METRICS: { label: string; value: (p: Figures) => number; show: (n: number) => string }[] = [
  { label: 'Impressions', value: (p) => p.billable_impressions, show: count },
  { label: 'Clicks', value: (p) => p.clicks, show: count },
  { label: 'Viewers', value: (p) => p.unique_viewers, show: count },
  { label: 'Spend', value: (p) => p.spend_micros, show: usdFromMicros },
]

function showStats(ctx: Context, s: Stats): void {
  ctx.out.line(`${instant(s.start)} to ${instant(s.end)} by ${s.granularity} (from the ${s.served_from.replace('_', ' ')})`)
  ctx.out.line()
  if (s.points.length === 0) {
    ctx.out.line('No delivery in this window.')
    return
  }
  ctx.out.table(
    ['Bucket', ...METRICS.map((m) => m.label)],
    s.points.map((p) => [s.granularity === 'hour' ? instant(p.bucket) : p.bucket.slice(0, s.granularity === 'month' ? 7 : 10), ...METRICS.map((m) => m.show(m.value(p)))]),
    ['left', 'right', 'right', 'right', 'right'],
  )
  ctx.out.line()
  const width = Math.max(...METRICS.map((m) => m.label.length))
  if (s.topics) {
    ctx.out.table(['Topic', 'Impressions'], s.topics.map((t) => [t.topic, count(t.billable_impressions)]), ['left', 'right'])
    ctx.out.line('(a topic is listed from 10 billable impressions; smaller ones are summed as other, none is no topic sent)')
    ctx.out.line()
  }
  for (const m of METRICS) ctx.out.line(`${m.label.padEnd(width)}  ${sparkline(s.points.map(m.value))}  total ${m.show(m.value(s.totals))}`)
}
