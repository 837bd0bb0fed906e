import type { VerifyResult } from 'advertiser-campaign-sdk/client'
import { InvalidArgumentError, type Command } from 'commander'
import { Context, type Io } from '../context.js'
import { usage, verificationFailed } from '../exit.js'
import { count, usdFromMicros } from '../format.js'

/** A UTC day, YYYY-MM-DD. */
function day(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) throw new InvalidArgumentError('a UTC day, YYYY-MM-DD')
  return value
}

export function ledgerCommands(program: Command, io: Io): void {
  const ledger = program.command('ledger').description('Check the ledger from the outside (docs/ledger-verification.md)')

  ledger
    .command('days')
    .description("Closed UTC days with ledger rows: figures, root and the previous day's root")
    .requiredOption('--from <day>', 'first UTC day, YYYY-MM-DD', day)
    .requiredOption('--to <day>', 'last UTC day (inclusive), YYYY-MM-DD', day)
    .action(async (o: { from: string; to: string }, command: Command) => {
      const ctx = Context.of(command, io)
      if (o.to < o.from) throw usage('--to is before --from.')
      const { days, closed_through } = await (await ctx.client()).ledger.days({ from: o.from, to: o.to })
      ctx.out.data({ days, closed_through, next_cursor: null })
      ctx.out.line(`Closed through ${closed_through ?? '(no day closed yet)'}; a day without rows has no root and is not listed.`)
      if (days.length === 0) return
      ctx.out.line()
      ctx.out.table(
        ['Day', 'Rows', 'Impressions', 'Clicks', 'Debits', 'Root'],
        days.map((d) => [d.date, count(d.rows), count(d.billable_impressions), count(d.clicks), usdFromMicros(d.debit_micros), d.root]),
        ['left', 'right', 'right', 'right', 'right', 'left'],
      )
    })

  ledger
    .command('verify')
    .description("Recompute each closed day's root from the exports, the chain, the inclusion proofs against /transparency.json, and what the invoices took per day (exit 4 on a discrepancy)")
    .requiredOption('--from <day>', 'first UTC day, YYYY-MM-DD', day)
    .requiredOption('--to <day>', 'last UTC day (inclusive), YYYY-MM-DD', day)
    .action(async (o: { from: string; to: string }, command: Command) => {
      const ctx = Context.of(command, io)
      if (o.to < o.from) throw usage('--to is before --from.')
      const client = await ctx.client()
      const result = await client.ledger.verify({
        from: o.from,
        to: o.to,
        onProgress: (step) => {
          if (ctx.out.showsProgress) ctx.io.stderr.write(`\r\x1b[2Kfetching ${step}…`)
        },
      })
      if (ctx.out.showsProgress) ctx.io.stderr.write('\r\x1b[2K')
      ctx.out.data(result)
      if (!result.verified) throw verificationFailed(describeDiscrepancy(result))
      showVerified(ctx, o, result.figures)
    })
}

function describeDiscrepancy(result: Extract<VerifyResult, { verified: false }>): string {
  const d = result.discrepancy
  const row = d.row ? `\nthe row: export ${d.row.export_index + 1}, line ${d.row.line}: ${d.row.text}` : ''
  return `NOT verified: ${d.kind.replace(/_/g, ' ')} on ${d.date ?? 'no single day'}: ${d.message}${row}`
}

function showVerified(ctx: Context, o: { from: string; to: string }, f: Extract<VerifyResult, { verified: true }>['figures']): void {
  ctx.out.line(`Verified ${o.from} to ${o.to}: ${f.days_closed} closed days with rows${f.days_open ? `, ${f.days_open} not closed yet` : ''}.`)
  ctx.out.pairs([
    ['Rows', count(f.rows)],
    ['Billable impressions', count(f.billable_impressions)],
    ['Clicks', count(f.clicks)],
    ['Debits', `${usdFromMicros(f.debit_micros)} = ${usdFromMicros(f.invoiced_micros)} invoiced + ${usdFromMicros(f.uninvoiced_micros)} not yet invoiced`],
    ['Invoices checked', count(f.invoices_checked)],
    ['Chain', `${short(f.chain_from)} → ${short(f.chain_to)}`],
  ])
  if (f.days.length === 0) return
  ctx.out.line()
  ctx.out.table(
    ['Day', 'Rows', 'Impressions', 'Debits', 'Invoiced', 'Root'],
    f.days.map((d) => [d.date, count(d.rows), count(d.billable_impressions), usdFromMicros(d.debit_micros), usdFromMicros(d.invoiced_micros), short(d.root)]),
    ['left', 'right', 'right', 'right', 'right', 'left'],
  )
}

const short = (hex: string | null) => (hex === null ? '-' : `${hex.slice(0, 12)}…`)
