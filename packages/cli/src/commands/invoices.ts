import type { InvoiceSummary } from 'advertiser-campaign-sdk/client'
import type { Command } from 'commander'
import { Context, type Io } from '../context.js'
import { instant, usdFromCents, usdFromMicros } from '../format.js'

/** Invoices and what each took from the ledger, as the portal's billing page shows them. */
export function invoiceCommands(program: Command, io: Io): void {
  const invoices = program.command('invoices').description('Invoices, and the micros each took from each UTC day of the ledger')

  invoices
    .command('list')
    .description('Every invoice, newest first')
    .action(async (_o: unknown, command: Command) => {
      const ctx = await Context.of(command, io)
      const all: InvoiceSummary[] = []
      for await (const i of (await ctx.client()).invoices.list()) all.push(i)
      ctx.out.data({ invoices: all, next_cursor: null })
      if (all.length === 0) return ctx.out.line('No invoices yet: delivered value is invoiced at the next cadence instant (06:00 UTC).')
      ctx.out.table(
        ['Invoice', 'Period', 'Delivered', 'Amount', 'Credits', 'Total', 'Status', 'Due'],
        all.map((i) => [i.invoice_id, `${i.period.start.slice(0, 10)} – ${i.period.end.slice(0, 10)}`, usdFromMicros(i.delivered_micros), usdFromCents(i.amount_cents), usdFromCents(i.credits_applied_cents), usdFromCents(i.total_cents), i.status, instant(i.due_at)]),
        ['left', 'left', 'right', 'right', 'right', 'right', 'left', 'left'],
      )
    })

  invoices
    .command('show')
    .description('One invoice with the days it took from the ledger and their roots')
    .argument('<invoice_id>')
    .action(async (id: string, _o: unknown, command: Command) => {
      const ctx = await Context.of(command, io)
      const i = await (await ctx.client()).invoices.get(id)
      ctx.out.data(i)
      ctx.out.pairs([
        ['Invoice', `${i.invoice_id} · ${i.billing_mode} · ${i.status}`],
        ['Period', `${instant(i.period.start)} to ${instant(i.period.end)}`],
        ['Delivered', usdFromMicros(i.delivered_micros)],
        ['Total', `${usdFromCents(i.amount_cents)} − ${usdFromCents(i.credits_applied_cents)} credits = ${usdFromCents(i.total_cents)}`],
        ['Due', instant(i.due_at)],
      ])
      ctx.out.line()
      ctx.out.table(
        ['Day (UTC)', 'Taken', 'Day root'],
        i.days.map((d) => [d.date, usdFromMicros(d.micros), d.root ?? 'day not closed yet']),
        ['left', 'right', 'left'],
      )
    })
}
