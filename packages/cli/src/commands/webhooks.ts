import type { Command } from 'commander'
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
    .action(async (o: { url: string; events?: string[] }, command: Command) => {
      const ctx = Context.of(command, io)
      const created = await (await ctx.client()).webhooks.create({ url: o.url, events: o.events ?? EVENTS })
      ctx.out.data(created)
      ctx.out.line(`Added ${created.id} → ${created.url} (${created.events.join(', ')}).`)
      ctx.out.line(`Signing secret (shown once; verify with the SDK's verifyWebhook): ${created.secret}`)
    })

  webhooks
    .command('list')
    .description('Endpoints and what they receive')
    .action(async (_o: unknown, command: Command) => {
      const ctx = Context.of(command, io)
      const endpoints = await (await ctx.client()).webhooks.list()
      ctx.out.data({ endpoints })
      if (endpoints.length === 0) return ctx.out.line('No webhook endpoints.')
      ctx.out.table(['ID', 'URL', 'Events', 'Created'], endpoints.map((e) => [e.id, e.url, e.events.join(', '), instant(e.created_at)]))
    })

  webhooks
    .command('remove')
    .description('Remove an endpoint, its undelivered messages and its log')
    .argument('<endpoint_id>')
    .action(async (id: string, _o: unknown, command: Command) => {
      const ctx = Context.of(command, io)
      const removed = await (await ctx.client()).webhooks.remove(id)
      ctx.out.data(removed)
      ctx.out.line(`Removed ${id}.`)
    })
}
