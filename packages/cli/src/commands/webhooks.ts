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
    .command('show')
    .description('An endpoint with its 50 most recent deliveries')
    .argument('<endpoint_id>')
    .action(async (id: string, _o: unknown, command: Command) => {
      const ctx = Context.of(command, io)
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
    .action(async (endpointId: string, deliveryId: string, _o: unknown, command: Command) => {
      const ctx = Context.of(command, io)
      const answer = await (await ctx.client()).webhooks.resend(endpointId, deliveryId)
      ctx.out.data(answer)
      ctx.out.line(`Resending ${deliveryId} to ${endpointId}.`)
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
