import { readFile } from 'node:fs/promises'
import { fetchTokenKeys, publishedTokenKeys, type PublishedTokenKeys, type TokenVerifyResult, type VerifyResult } from 'advertiser-campaign-sdk/client'
import { InvalidArgumentError, type Command } from 'commander'
import { Context, type Io } from '../context.js'
import { CliError, EXIT, usage, verificationFailed } from '../exit.js'
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
      const ctx = await Context.of(command, io)
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
    .description(
      "Recompute each closed day's root from the exports, the chain, the inclusion proofs against /transparency.json, and what the invoices took per day; or, with --tokens, check every attestation token of a ledger-export-v4 file against the published issuer keys (exit 4 on a discrepancy)",
    )
    .option('--from <day>', 'first UTC day, YYYY-MM-DD', day)
    .option('--to <day>', 'last UTC day (inclusive), YYYY-MM-DD', day)
    .option('--tokens <file>', 'a ledger-export-v4 CSV (- for stdin): check its attestation tokens instead of a range')
    .option('--keys <file>', "with --tokens: a saved /transparency.json to check against (default: the service's, fetched)")
    .option('--allow-empty', 'exit 0 when there was nothing to verify (no closed day with rows; no attestation token)')
    .action(async (o: { from?: string; to?: string; tokens?: string; keys?: string; allowEmpty?: boolean }, command: Command) => {
      const ctx = await Context.of(command, io)
      if (o.tokens !== undefined) {
        if (o.from !== undefined || o.to !== undefined) throw usage('--tokens checks one file and takes no --from/--to: run the range check separately.')
        return verifyTokens(ctx, o.tokens, o.keys, Boolean(o.allowEmpty))
      }
      if (o.keys !== undefined) throw usage('--keys goes with --tokens.')
      if (o.from === undefined || o.to === undefined) throw usage('Give --from and --to (a range of closed days), or --tokens FILE (an export\'s attestation tokens).')
      const range = { from: o.from, to: o.to }
      if (range.to < range.from) throw usage('--to is before --from.')
      const client = await ctx.client()
      const result = await client.ledger.verify({
        ...range,
        onProgress: (step) => {
          if (ctx.out.showsProgress) ctx.io.stderr.write(`\r\x1b[2Kfetching ${step}…`)
        },
      })
      if (ctx.out.showsProgress) ctx.io.stderr.write('\r\x1b[2K')
      ctx.out.data(result)
      if (!result.verified) throw verificationFailed(describeDiscrepancy(result))
      if (result.figures.days_closed === 0) {
        const open = result.figures.days_open ? ` (${count(result.figures.days_open)} not closed yet: a day is closed and published after 00:15 UTC the next day)` : ''
        const message = `Nothing verified: no closed day with ledger rows from ${range.from} to ${range.to}${open}.`
        if (!o.allowEmpty) throw new CliError(EXIT.api, `${message} Pass --allow-empty to accept an empty range.`, [], 'nothing_verified')
        ctx.out.line(message)
        return
      }
      showVerified(ctx, range, result.figures)
    })
}

/** `ledger verify --tokens`: the file's tokens against the keys of --keys or of the service's /transparency.json. */
async function verifyTokens(ctx: Context, file: string, keysFile: string | undefined, allowEmpty: boolean): Promise<void> {
  const name = file === '-' ? 'stdin' : file
  const csv = await readInput(file)
  const keys = keysFile === undefined ? await fetchTokenKeys(ctx.apiUrl) : await readKeys(keysFile)
  const { verifyExportTokens } = await import('advertiser-campaign-sdk')
  const result = await verifyExportTokens(csv, { issuerKeys: keys.issuer_keys, tokenChallenge: keys.token_challenge })
  ctx.out.data(result)
  if (!result.verified) throw verificationFailed(describeTokenDiscrepancy(result))
  const f = result.figures
  if (f.tokens_checked === 0) {
    const message = `Nothing verified: no attestation tokens in ${name} (${count(f.rows)} rows): no attested rows, nothing to check.`
    if (!allowEmpty) throw new CliError(EXIT.api, `${message} Pass --allow-empty to accept a file without them.`, [], 'nothing_verified')
    ctx.out.line(message)
    return
  }
  const used = f.keys_used.map((k) => `${short(k.token_key_id)} (${count(k.tokens)})`).join(', ')
  ctx.out.line(
    `Verified ${count(f.tokens_checked)} attestation tokens of ${count(f.rows)} rows in ${name}: each signed by a published issuer key for this service's challenge, no nonce twice; keys used: ${used}.`,
  )
}

async function readInput(file: string): Promise<string> {
  try {
    if (file !== '-') return await readFile(file, 'utf8')
    const chunks: Buffer[] = []
    for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)))
    return Buffer.concat(chunks).toString('utf8')
  } catch (e) {
    throw usage(`Cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`)
  }
}

async function readKeys(file: string): Promise<PublishedTokenKeys> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (e) {
    throw usage(`Cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`)
  }
  try {
    return publishedTokenKeys(JSON.parse(text))
  } catch (e) {
    throw usage(`${file} is not a /transparency.json with issuer_keys and token_challenge: ${e instanceof Error ? e.message : String(e)}`)
  }
}

function describeTokenDiscrepancy(result: Extract<TokenVerifyResult, { verified: false }>): string {
  const d = result.discrepancy
  const kind = d.kind.replace(/_/g, ' ')
  if (!d.row) return `NOT verified: ${kind}: ${d.message}`
  const r = d.row
  const who = [r.impression_id === null ? null : `impression ${r.impression_id}`, r.timestamp, r.campaign_id === null ? null : `campaign ${r.campaign_id}`].filter((x) => x !== null).join(', ')
  return `NOT verified: row ${r.line - 1} (line ${r.line}${who ? `: ${who}` : ''}): ${kind}: ${d.message}`
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
