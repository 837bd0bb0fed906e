import { Option, type Command } from 'commander'
import type { Stats, StatsQuery } from 'advertiser-campaign-sdk/client'
import { Context, type Io } from '../context.js'
import { badFlags, usage } from '../exit.js'
import { count, instant, sparkline, usdFromMicros, usdPrice } from '../format.js'
import { checkOrder, orderOptions, readOrder, sizeInWords, topicVocabulary, type OrderFlags } from '../order.js'
import { showQuote } from '../quote.js'
import { list, positiveInt, when } from '../parsers.js'

export function reportCommands(program: Command, io: Io): void {
  orderOptions(program.command('quote').description('Where a bid would rank in the live auction now, and when it would start and finish'), false).action(
    async (o: OrderFlags, command: Command) => {
      const ctx = await Context.of(command, io)
      const client = await ctx.client().catch((e: unknown) => {
        const syntax = readOrder(o, false, null, null)
        throw syntax.problems.length > 0 ? badFlags(syntax.problems) : e
      })
      const { order } = await checkOrder(o, false, async () => {
        const [account, vocabulary] = await Promise.all([client.account(), o.topics === undefined ? null : topicVocabulary(ctx.apiUrl)])
        return { config: account.config, vocabulary }
      })
      const q = await client.quote({
        cpm_usd: order.cpm,
        ...(order.impressions ? { impressions: order.impressions } : {}),
        ...(order.surface ? { target_surface: order.surface } : {}),
        ...(order.countries ? { target_countries: order.countries.join(',') } : {}),
        ...(order.topics ? { target_topics: order.topics.join(',') } : {}),
        ...(order.kind ? { kind: order.kind } : {}),
      })
      ctx.out.data(q)
      ctx.out.line(`Auction quote for ${sizeInWords(order)} at ${usdPrice(order.cpm)} CPM:`)
      showQuote(ctx.out, q, order.surface !== undefined)
    },
  )

  program
    .command('stats')
    .description('Delivery metrics as a table, with a sparkline per metric')
    .option('--from <date>', 'inclusive start (a date or an ISO instant)', when)
    .option('--to <date>', 'exclusive end (a date or an ISO instant)', when)
    .option('--last-days <n>', 'the last N complete UTC days, without today (the default: the last 7 days through today)', positiveInt)
    .addOption(new Option('--granularity <g>', 'bucket size').choices(['hour', 'day', 'month']))
    .option('--campaign <ids>', 'comma-separated campaign ids', list)
    .option('--creative <ids>', 'comma-separated creative ids', list)
    .addOption(new Option('--group-by <g>', 'creative (with --creative) or topic (with one --campaign)').choices(['account', 'creative', 'topic']))
    .option('--surface <surfaces>', 'comma-separated surfaces', list)
    .option('--country <codes>', 'comma-separated country codes', list)
    .action(async (o: StatsFlags, command: Command) => {
      const ctx = await Context.of(command, io)
      if (o.lastDays !== undefined && (o.from || o.to)) throw usage('--last-days cannot be combined with --from or --to.')
      // No window: the last 7 UTC days through today (as the portal's "Last 7 days"), not the API's 7 complete days.
      const window = o.from || o.to || o.lastDays ? { from: o.from, to: o.to } : lastDaysThroughToday(7)
      const query: StatsQuery = {
        ...(window.from ? { from: window.from } : {}),
        ...(window.to ? { to: window.to } : {}),
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

const DAY_MS = 86_400_000

/** [midnight UTC `days - 1` days ago, the midnight after today): whole days, today the last of them. */
function lastDaysThroughToday(days: number): { from: string; to: string } {
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS
  return { from: new Date(today - (days - 1) * DAY_MS).toISOString(), to: new Date(today + DAY_MS).toISOString() }
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
