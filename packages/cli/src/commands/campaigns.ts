import type { Campaign, CampaignCreateInput, CampaignSummary } from 'advertiser-campaign-sdk/client'
import { Option, type Command } from 'commander'
import { Context, type Io } from '../context.js'
import { usage } from '../exit.js'
import { count, instant, usdFromMicros, usdPrice } from '../format.js'
import { showQuote } from '../quote.js'
import { cpm, impressions, list, positiveInt, seconds } from '../parsers.js'

/** Statuses after which a campaign delivers nothing more. */
const DONE = new Set(['completed', 'cancelled_user'])

interface CreateFlags {
  line: string
  destination: string
  cpm: number
  impressions: number
  name?: string
  brand?: string
  surface?: 'extension' | 'terminal'
  countries?: string[]
  topics?: string[]
  pace?: number
  kind?: 'impression' | 'click'
  idempotencyKey?: string
  yes?: boolean
}

export function campaignCommands(program: Command, io: Io): void {
  const campaigns = program.command('campaigns').description('List, buy, change and watch campaigns')

  campaigns
    .command('list')
    .description('Every campaign (all pages), newest first')
    .option('--limit <n>', 'page size of each request', positiveInt)
    .action(async (options: { limit?: number }, command: Command) => {
      const ctx = Context.of(command, io)
      const all: CampaignSummary[] = []
      for await (const c of (await ctx.client()).campaigns.list(options)) all.push(c)
      ctx.out.data({ campaigns: all, next_cursor: null })
      if (all.length === 0) return ctx.out.line('No campaigns yet: `adctl campaigns create --help` shows how to buy one.')
      ctx.out.table(
        ['ID', 'Name', 'Status', 'Bid CPM', 'Delivered', 'Spend'],
        all.map((c) => [c.campaign_id, c.name, c.status, usdPrice(c.cpm_usd), `${count(c.impressions_served)} / ${count(c.impressions)}`, usdFromMicros(c.lifetime_spent_micros)]),
        ['left', 'left', 'left', 'right', 'right', 'right'],
      )
    })

  campaigns
    .command('show')
    .description('One campaign with its blocks and creatives')
    .argument('<campaign_id>')
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = Context.of(command, io)
      const c = await (await ctx.client()).campaigns.get(id)
      ctx.out.data(c)
      showCampaign(ctx, c)
    })

  campaigns
    .command('create')
    .description('Show the auction quote for an order, then buy it (after a yes, or --yes)')
    .requiredOption('--line <ad_line>', 'the ad line, 3-60 characters')
    .requiredOption('--destination <url>', 'https:// address a click opens')
    .requiredOption('--cpm <usd>', 'bid in USD per 1,000 impressions', cpm)
    .requiredOption('--impressions <n>', '1,000 to 100,000, a multiple of 1,000', impressions)
    .option('--name <name>', 'private label')
    .option('--brand <brand>', 'shown before the line')
    .addOption(new Option('--surface <surface>', 'where it serves (when the surface split is on)').choices(['extension', 'terminal']))
    .option('--countries <codes>', 'comma-separated ISO 3166-1 alpha-2 codes (when country targeting is on)', list)
    .option('--topics <names>', 'comma-separated topics from GET /serve/v1/topics (at most 10): serve only where the project shows one', list)
    .option('--pace <minutes>', 'spread the order over this many minutes', positiveInt)
    .addOption(new Option('--kind <kind>', 'impression (default) or click').choices(['impression', 'click']))
    .option('--idempotency-key <key>', 'repeat a create safely (one is made when absent)')
    .option('-y, --yes', 'buy without asking')
    .action(async (flags: CreateFlags, command: Command) => {
      const ctx = Context.of(command, io)
      const client = await ctx.client()
      const quote = await client.quote({
        cpm_usd: flags.cpm,
        impressions: flags.impressions,
        ...(flags.surface ? { target_surface: flags.surface } : {}),
        ...(flags.countries ? { target_countries: flags.countries.join(',') } : {}),
        ...(flags.topics ? { target_topics: flags.topics.join(',') } : {}),
        ...(flags.kind ? { kind: flags.kind } : {}),
      })
      ctx.out.line(`Auction quote for ${count(flags.impressions)} impressions at ${usdPrice(flags.cpm)} CPM:`)
      showQuote(ctx.out, quote)
      ctx.out.line()
      const total = Math.round(flags.cpm * 1_000_000) * (flags.impressions / 1000)
      if (!(await ctx.confirm(`Buy ${count(flags.impressions)} impressions at ${usdPrice(flags.cpm)} CPM (at most ${usdFromMicros(total)}, billed on delivery)?`, flags.yes))) {
        ctx.out.note('Nothing bought.')
        return
      }
      const body: CampaignCreateInput = {
        ad_line: flags.line,
        destination_url: flags.destination,
        cpm_usd: flags.cpm,
        impressions: flags.impressions,
        ...(flags.name !== undefined ? { name: flags.name } : {}),
        ...(flags.brand !== undefined ? { brand: flags.brand } : {}),
        ...(flags.surface ? { target_surface: flags.surface } : {}),
        ...(flags.countries ? { target_countries: flags.countries } : {}),
        ...(flags.topics ? { target_topics: flags.topics } : {}),
        ...(flags.pace !== undefined ? { pace_minutes: flags.pace } : {}),
        ...(flags.kind ? { kind: flags.kind } : {}),
        ...(flags.idempotencyKey ? { idempotency_key: flags.idempotencyKey } : {}),
      }
      const created = await client.campaigns.create(body)
      ctx.out.data({ quote, campaign: created })
      ctx.out.line(`${created.replayed ? 'Already bought (a repeat of the same order)' : 'Bought'}: ${created.campaign_id} · ${created.status}`)
      ctx.out.line(`Follow it with \`adctl campaigns watch ${created.campaign_id}\`.`)
    })

  const change = (name: string, description: string, act: (ctx: Context, id: string, arg: string | undefined, yes: boolean) => Promise<Campaign>, argument?: string) => {
    const cmd = campaigns.command(name).description(description).argument('<campaign_id>')
    if (argument) cmd.argument(argument)
    cmd.action(async (id: string, second: unknown) => {
      const ctx = Context.of(cmd, io)
      const c = await act(ctx, id, argument ? String(second) : undefined, Boolean(cmd.opts<{ yes?: boolean }>().yes))
      ctx.out.data(c)
      ctx.out.line(`${c.campaign_id} · ${c.name} · ${c.status}${c.ad_line ? ` · “${c.ad_line}”` : ''}`)
    })
    return cmd
  }
  change('pause', 'Stop serving; the auction place is kept', async (ctx, id) => (await ctx.client()).campaigns.pause(id))
  change('resume', 'Serve again', async (ctx, id) => (await ctx.client()).campaigns.resume(id))
  change('rename', 'Change the private label', async (ctx, id, name) => (await ctx.client()).campaigns.update(id, { name: name ?? '' }), '<name>')
  change('rewrite', 'Replace the ad line (the new line is reviewed before it serves)', async (ctx, id, line) => (await ctx.client()).campaigns.update(id, { ad_line: line ?? '' }), '<ad_line>')
  change('cancel', 'Stop for good: delivered impressions stay billed, the rest is released', async (ctx, id, _arg, yes) => {
    const client = await ctx.client()
    if (!(await ctx.confirm(`Cancel ${id}? This cannot be undone.`, yes))) throw usage('Not cancelled.')
    return client.campaigns.cancel(id)
  }).option('-y, --yes', 'cancel without asking')

  campaigns
    .command('preview')
    .description('A link showing how the campaign looks in the editor and the terminal (valid 24 hours)')
    .argument('<campaign_id>')
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = Context.of(command, io)
      const preview = await (await ctx.client()).campaigns.preview(id)
      ctx.out.data(preview)
      ctx.out.line(`${preview.preview_url}`)
      ctx.out.line(`Valid until ${instant(preview.expires_at)}; anyone with the link sees the ad, nothing else.`)
    })

  campaigns
    .command('watch')
    .description('Live delivery as a progress bar with spend, polled every --interval seconds')
    .argument('<campaign_id>')
    .option('--interval <seconds>', 'seconds between polls (the API asks for at most one a minute)', seconds, 60)
    .option('--until-done', 'exit once the campaign is completed or cancelled')
    .action(async (id: string, options: { interval: number; untilDone?: boolean }, command: Command) => {
      const ctx = Context.of(command, io)
      await watch(ctx, id, options)
    })
}

function showCampaign(ctx: Context, c: Campaign): void {
  ctx.out.pairs([
    ['Campaign', `${c.campaign_id} · ${c.name}`],
    ['Status', `${c.status}${c.moderation_status ? ` · review ${c.moderation_status}` : ''}`],
    ['Ad line', c.brand ? `${c.brand} · ${c.ad_line ?? '-'}` : (c.ad_line ?? '-')],
    ['Destination', c.destination_url ?? '-'],
    ['Bid', `${usdPrice(c.cpm_usd)} CPM · ${c.kind}`],
    ['Delivered', `${count(c.impressions_served)} of ${count(c.impressions)}`],
    ['Spend', usdFromMicros(c.lifetime_spent_micros)],
    ['Targeting', `${c.target_surface}${c.target_countries ? ` · ${c.target_countries.join(', ')}` : ' · all countries'}${c.pace_minutes ? ` · paced over ${c.pace_minutes} min` : ''}`],
    ['Topics', c.target_topics?.length ? c.target_topics.join(', ') : 'any project'],
    ['Created', instant(c.created_at)],
  ])
  ctx.out.line()
  ctx.out.table(
    ['Block', 'Status', 'Served', 'Started', 'Exhausted'],
    c.blocks.map((b) => [b.block_index + 1, b.status, `${count(b.impressions_served)} / ${count(b.impressions_target)}`, instant(b.started_at), instant(b.exhausted_at)]),
    ['right', 'left', 'right', 'left', 'left'],
  )
}

async function watch(ctx: Context, id: string, options: { interval: number; untilDone?: boolean }): Promise<void> {
  const client = await ctx.client()
  let c = await client.campaigns.get(id)
  const progress = ctx.out.showsProgress && !ctx.out.json
  const { default: cliProgress } = await import('cli-progress')
  const bar = progress
    ? new cliProgress.SingleBar(
        { format: `${c.campaign_id} [{bar}] {percentage}% · {value}/{total} impressions · spend {spend} · {status}`, stream: process.stderr, hideCursor: true, clearOnComplete: false },
        cliProgress.Presets.shades_classic,
      )
    : null
  bar?.start(c.impressions, c.impressions_served, { spend: usdFromMicros(c.lifetime_spent_micros), status: c.status })
  // Ctrl-C leaves the terminal as it was (the bar hides the cursor while it draws).
  process.once('SIGINT', () => {
    bar?.stop()
    process.exit(130)
  })
  let last = ''
  for (;;) {
    const seen = `${c.status}/${c.impressions_served}/${c.lifetime_spent_micros}`
    if (seen !== last) {
      last = seen
      ctx.out.dataLine(c)
      if (bar) bar.update(c.impressions_served, { spend: usdFromMicros(c.lifetime_spent_micros), status: c.status })
      else ctx.out.line(`${instant(new Date().toISOString())}  ${count(c.impressions_served)} / ${count(c.impressions)} impressions · spend ${usdFromMicros(c.lifetime_spent_micros)} · ${c.status}`)
    }
    if (DONE.has(c.status) && options.untilDone) break
    await new Promise((resolve) => setTimeout(resolve, options.interval * 1000))
    c = await client.campaigns.get(id)
  }
  bar?.stop()
  ctx.out.line(`${c.campaign_id} is ${c.status}: ${count(c.impressions_served)} impressions delivered, spend ${usdFromMicros(c.lifetime_spent_micros)}.`)
}
