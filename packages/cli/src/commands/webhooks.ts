import { InvalidArgumentError, type Command } from 'commander'
import { Context, type Io } from '../context.js'
import { instant } from '../format.js'
import { list } from '../parsers.js'

const EVENTS = ['campaign.exhausted', 'campaign.moderation_decided', 'invoice.finalized', 'invoice.payment_failed', 'export.ready']

export function webhookCommands(program: Command, io: Io): void {
  const webhooks = program.command('webhooks').description('Endpoints the service POSTs signed events to')

  webhooks
    .command('add')
    .description('Add an endpoint; its signing secret is shown this once')
    .requiredOption('--url <https_url>', 'where deliveries are POSTed')
    .option('--events <types>', `comma-separated event types (default: all: ${EVENTS.join(', ')})`, list)
    .option('--dry-run', 'show the request that would be sent and send nothing')
    .action(async (o: { url: string; events?: string[]; dryRun?: boolean }, command: Command) => {
      const ctx = await Context.of(command, io)
      if (o.dryRun) return ctx.dryRun('POST', '/webhook-endpoints', { url: o.url, events: o.events ?? EVENTS })
      const created = await (await ctx.client()).webhooks.create({ url: o.url, events: o.events ?? EVENTS })
      ctx.out.data(created)
      ctx.out.line(`Added ${created.id} → ${created.url} (${created.events.join(', ')}).`)
      ctx.out.line(`Signing secret (shown once; verify with the SDK's verifyWebhook): ${created.secret}`)
    })

  webhooks
    .command('list')
    .description('Endpoints and what they receive')
    .action(async (_o: unknown, command: Command) => {
      const ctx = await Context.of(command, io)
      const endpoints = await (await ctx.client()).webhooks.list()
      ctx.out.data({ endpoints })
      if (endpoints.length === 0) return ctx.out.line('No webhook endpoints.')
      ctx.out.table(['ID', 'URL', 'Events', 'Created'], endpoints.map((e) => [e.id, e.url, e.events.join(', '), instant(e.created_at)]))
    })

  webhooks
    .command('show')
    .description('An endpoint with its 50 most recent deliveries')
    .argument('<endpoint_id>')
    .action(async (id: string, _o: unknown, command: Command) => {
      const ctx = await Context.of(command, io)
      const e = await (await ctx.client()).webhooks.get(id)
      ctx.out.data(e)
      ctx.out.pairs([
        ['Endpoint', `${e.id} → ${e.url}`],
        ['Events', e.events.join(', ')],
        ['Created', instant(e.created_at)],
      ])
      ctx.out.line()
      if (e.deliveries.length === 0) return ctx.out.line('No deliveries yet.')
      ctx.out.table(
        ['Delivery', 'Event', 'Status', 'Attempts', 'Created', 'Delivered', 'Next attempt'],
        e.deliveries.map((d) => [d.id, d.event_type, d.status, d.attempts, instant(d.created_at), instant(d.delivered_at), instant(d.next_attempt_at)]),
        ['left', 'left', 'left', 'right', 'left', 'left', 'left'],
      )
    })

  webhooks
    .command('resend')
    .description('Send a delivery again now (same webhook-id and body), retried for 24 hours from now')
    .argument('<endpoint_id>')
    .argument('<delivery_id>')
    .option('--dry-run', 'show the request that would be sent and send nothing')
    .action(async (endpointId: string, deliveryId: string, o: { dryRun?: boolean }, command: Command) => {
      const ctx = await Context.of(command, io)
      if (o.dryRun) return ctx.dryRun('POST', `/webhook-endpoints/${encodeURIComponent(endpointId)}/deliveries/${encodeURIComponent(deliveryId)}/resend`)
      const answer = await (await ctx.client()).webhooks.resend(endpointId, deliveryId)
      ctx.out.data(answer)
      ctx.out.line(`Resending ${deliveryId} to ${endpointId}.`)
    })

  webhooks
    .command('remove')
    .description('Remove an endpoint, its undelivered messages and its log')
    .argument('<endpoint_id>')
    .option('--dry-run', 'show the request that would be sent and send nothing')
    .action(async (id: string, o: { dryRun?: boolean }, command: Command) => {
      const ctx = await Context.of(command, io)
      if (o.dryRun) return ctx.dryRun('DELETE', `/webhook-endpoints/${encodeURIComponent(id)}`)
      const removed = await (await ctx.client()).webhooks.remove(id)
      ctx.out.data(removed)
      ctx.out.line(`Removed ${id}.`)
    })

  webhooks
    .command('listen')
    .description(
      "While developing: receive the account's signed webhook events here and forward each, body and signature headers as sent, to --forward-to; a temporary endpoint, removed on Ctrl-C",
    )
    .requiredOption('--forward-to <url>', 'the local receiver, such as http://localhost:3000/webhooks')
    .option('--events <types>', `comma-separated event types (default: all: ${EVENTS.join(', ')})`, list)
    .option('--port <n>', 'the port adctl listens on (default: any free one)', port)
    .option('--public-url <https_url>', "the address the service POSTs to, when it cannot reach this machine's loopback (an https tunnel to --port)")
    .action(async (o: ListenOptions, command: Command) => {
      const ctx = await Context.of(command, io)
      const { listen } = await import('../listen.js')
      await listen(ctx, { ...o, events: o.events ?? EVENTS })
    })
}

export interface ListenOptions {
  forwardTo: string
  events?: string[]
  port?: number
  publicUrl?: string
}

function port(value: string): number {
  const n = Number(value)
  if (!/^\d+$/.test(value) || n < 1 || n > 65_535) throw new InvalidArgumentError('a port, 1 to 65535')
  return n
}
