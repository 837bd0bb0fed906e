import type { Campaign, CampaignCreateInput, CampaignSummary } from 'advertiser-campaign-sdk/client'
import type { Command } from 'commander'
import { Context, type Io } from '../context.js'
import { badFlags, usage } from '../exit.js'
import { count, instant, usdFromMicros, usdPrice } from '../format.js'
import { BLOCK, checkOrder, orderOptions, readOrder, sizeInWords, topicVocabulary, type Order, type OrderFlags } from '../order.js'
import { showQuote } from '../quote.js'
import { positiveInt, seconds } from '../parsers.js'

/** Statuses after which a campaign delivers nothing more. */
const DONE = new Set(['completed', 'cancelled_user'])

interface CreateFlags extends OrderFlags {
  idempotencyKey?: string
  yes?: boolean
  dryRun?: boolean
}

export function campaignCommands(program: Command, io: Io): void {
  const campaigns = program.command('campaigns').description('List, buy, change and watch campaigns')

  campaigns
    .command('list')
    .description('Every campaign (all pages), newest first')
    .option('--limit <n>', 'page size of each request', positiveInt)
    .action(async (options: { limit?: number }, command: Command) => {
      const ctx = await Context.of(command, io)
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
      const ctx = await Context.of(command, io)
      const c = await (await ctx.client()).campaigns.get(id)
      ctx.out.data(c)
      showCampaign(ctx, c)
    })

  orderOptions(campaigns.command('create').description('Show the auction quote for an order, then buy it (after a yes, or --yes)'), true)
    .option('--name <name>', 'private label')
    .option('--brand <brand>', 'shown before the line: Ad · {brand} · {line}')
    .option('--pace <minutes>', 'spread the order over this many minutes (1 to 10,080)')
    .option('--idempotency-key <key>', 'repeat a create safely (one is made when absent)')
    .option('-y, --yes', 'buy without asking')
    .option('--dry-run', 'show the order that would be sent and send nothing (no quote, no purchase)')
    .action(async (flags: CreateFlags, command: Command) => {
      const ctx = await Context.of(command, io)
      if (flags.dryRun) {
        const syntax = readOrder(flags, true, null, null)
        if (syntax.order === null) throw badFlags(syntax.problems)
        return ctx.dryRun('POST', '/campaigns', createBody(flags, syntax.order, flags.idempotencyKey ?? crypto.randomUUID()))
      }
      const client = await ctx.client().catch((e: unknown) => {
        const syntax = readOrder(flags, true, null, null)
        throw syntax.problems.length > 0 ? badFlags(syntax.problems) : e
      })
      // The live order limits and the topic names, so that every problem is reported at once, before anything is asked.
      const { order, config } = await checkOrder(flags, true, async () => {
        const [account, vocabulary] = await Promise.all([client.account(), flags.topics === undefined ? null : topicVocabulary(ctx.apiUrl)])
        return { config: account.config, vocabulary }
      })
      if (order.impressions === undefined) throw badFlags([{ flag: '--impressions', message: 'or --blocks is required' }])
      const impressions = order.impressions
      const quote = await client.quote({
        cpm_usd: order.cpm,
        impressions,
        ...(order.surface ? { target_surface: order.surface } : {}),
        ...(order.countries ? { target_countries: order.countries.join(',') } : {}),
        ...(order.topics ? { target_topics: order.topics.join(',') } : {}),
        ...(order.kind ? { kind: order.kind } : {}),
      })
      const size = sizeInWords(order, config?.block_impressions ?? BLOCK)
      ctx.out.line(`Auction quote for ${size} at ${usdPrice(order.cpm)} CPM:`)
      showQuote(ctx.out, quote, order.surface !== undefined)
      ctx.out.line()
      const total = Math.round(order.cpm * 1_000_000) * (impressions / 1000)
      if (!(await ctx.confirm(`Buy ${size} at ${usdPrice(order.cpm)} CPM (at most ${usdFromMicros(total)}, billed on delivery)?`, flags.yes))) {
        ctx.out.note('Nothing bought.')
        return
      }
      const created = await client.campaigns.create(createBody(flags, order, flags.idempotencyKey))
      ctx.out.data({ quote, campaign: created })
      ctx.out.line(`${created.replayed ? 'Already bought (a repeat of the same order)' : 'Bought'}: ${created.campaign_id} · ${created.status}`)
      ctx.out.line(`Follow it with \`adctl campaigns watch ${created.campaign_id}\`, or \`adctl open ${created.campaign_id}\` in the portal.`)
    })

  /** A write on one campaign; `request` is what it sends (shown by --dry-run instead of sending it). */
  const change = (
    name: string,
    description: string,
    request: (id: string, arg: string | undefined) => { method: string; body?: unknown },
    act: (ctx: Context, id: string, arg: string | undefined, yes: boolean) => Promise<Campaign>,
    argument?: string,
  ) => {
    const cmd = campaigns.command(name).description(description).argument('<campaign_id>')
    if (argument) cmd.argument(argument)
    cmd.option('--dry-run', 'show the request that would be sent and send nothing')
    cmd.action(async (id: string, second: unknown) => {
      const ctx = await Context.of(cmd, io)
      const arg = argument ? String(second) : undefined
      const opts = cmd.opts<{ yes?: boolean; dryRun?: boolean }>()
      if (opts.dryRun) {
        const r = request(id, arg)
        return ctx.dryRun(r.method, `/campaigns/${encodeURIComponent(id)}${r.method === 'POST' ? `/${name}` : ''}`, r.body)
      }
      const c = await act(ctx, id, arg, Boolean(opts.yes))
      ctx.out.data(c)
      ctx.out.line(`${c.campaign_id} · ${c.name} · ${c.status}${c.ad_line ? ` · “${c.ad_line}”` : ''}`)
    })
    return cmd
  }
  const post = () => ({ method: 'POST' })
  change('pause', 'Stop serving; the auction place is kept', post, async (ctx, id) => (await ctx.client()).campaigns.pause(id))
  change('resume', 'Serve again', post, async (ctx, id) => (await ctx.client()).campaigns.resume(id))
  change('rename', 'Change the private label', (_id, name) => ({ method: 'PATCH', body: { name } }), async (ctx, id, name) => (await ctx.client()).campaigns.update(id, { name: name ?? '' }), '<name>')
  change(
    'rewrite',
    'Replace the ad line (the new line is reviewed before it serves)',
    (_id, line) => ({ method: 'PATCH', body: { ad_line: line } }),
    async (ctx, id, line) => (await ctx.client()).campaigns.update(id, { ad_line: line ?? '' }),
    '<ad_line>',
  )
  change('cancel', 'Stop for good: delivered impressions stay billed, the rest is released', () => ({ method: 'DELETE' }), async (ctx, id, _arg, yes) => {
    const client = await ctx.client()
    if (!(await ctx.confirm(`Cancel ${id}? This cannot be undone.`, yes))) throw usage('Not cancelled.')
    return client.campaigns.cancel(id)
  }).option('-y, --yes', 'cancel without asking')

  campaigns
    .command('preview')
    .description('A link showing how the campaign looks in the editor and the terminal (valid 24 hours)')
    .argument('<campaign_id>')
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = await Context.of(command, io)
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
      const ctx = await Context.of(command, io)
      await watch(ctx, id, options)
    })
}

/** POST /campaigns's body from checked flags. */
function createBody(flags: CreateFlags, order: Order, idempotencyKey: string | undefined): CampaignCreateInput {
  return {
    ad_line: flags.line ?? '',
    destination_url: flags.destination ?? '',
    cpm_usd: order.cpm,
    impressions: order.impressions ?? BLOCK,
    ...(flags.name !== undefined ? { name: flags.name } : {}),
    ...(flags.brand !== undefined ? { brand: flags.brand } : {}),
    ...(order.surface ? { target_surface: order.surface } : {}),
    ...(order.countries ? { target_countries: order.countries } : {}),
    ...(order.topics ? { target_topics: order.topics } : {}),
    ...(order.pace !== undefined ? { pace_minutes: order.pace } : {}),
    ...(order.kind ? { kind: order.kind } : {}),
    ...(idempotencyKey ? { idempotency_key: idempotencyKey } : {}),
  }
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
