import { createHash } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import type { AdvertiserClient, ExportCreate, ExportJob, ExportJobSummary } from 'advertiser-campaign-sdk/client'
import type { Command } from 'commander'
import { Context, type Io } from '../context.js'
import { usage, verificationFailed } from '../exit.js'
import { count, instant } from '../format.js'
import { list, surfaces, when } from '../parsers.js'

interface CreateFlags {
  from: string
  to: string
  campaign?: string[]
  creative?: string[]
  surface?: ('extension' | 'terminal')[]
  country?: string[]
  wait?: boolean
  out?: string
  dryRun?: boolean
}

export function exportCommands(program: Command, io: Io): void {
  const exports = program.command('exports').description('CSV exports of the raw ledger, checked against their SHA-256')

  exports
    .command('create')
    .description('Queue an export; with --wait, follow it, download it and verify its SHA-256')
    .requiredOption('--from <date>', 'inclusive start (a date or an ISO instant)', when)
    .requiredOption('--to <date>', 'exclusive end (a date or an ISO instant)', when)
    .option('--campaign <ids>', 'comma-separated campaign ids', list)
    .option('--creative <ids>', 'comma-separated creative ids', list)
    .option('--surface <surfaces>', 'comma-separated surfaces (extension, terminal)', surfaces)
    .option('--country <codes>', 'comma-separated country codes', list)
    .option('--wait', 'poll until ready (every 5 s), then download')
    .option('--out <file>', 'where --wait writes the CSV (default: stdout)')
    .option('--dry-run', 'show the request that would be sent and send nothing')
    .action(async (o: CreateFlags, command: Command) => {
      const ctx = await Context.of(command, io)
      if (o.out && !o.wait) throw usage('--out needs --wait (or use `adctl exports download <id> --out FILE` later).')
      const body: ExportCreate = {
        from: o.from,
        to: o.to,
        ...(o.campaign ? { campaign_ids: o.campaign } : {}),
        ...(o.creative ? { creative_ids: o.creative } : {}),
        ...(o.surface ? { surfaces: o.surface } : {}),
        ...(o.country ? { countries: o.country } : {}),
      }
      if (o.dryRun) return ctx.dryRun('POST', '/exports', { start: o.from, end: o.to, ...(o.campaign ? { campaign_ids: o.campaign } : {}), ...(o.creative ? { creative_ids: o.creative } : {}), ...(o.surface ? { surfaces: o.surface } : {}), ...(o.country ? { countries: o.country } : {}) })
      const client = await ctx.client()
      const job = await client.exports.create(body)
      if (!o.wait) {
        ctx.out.data(job)
        ctx.out.line(`Queued ${job.id}. Download it once ready: adctl exports download ${job.id} --out ledger.csv`)
        return
      }
      const ready = await follow(ctx, client, job.id)
      await downloadVerified(ctx, client, ready, o.out)
    })

  exports
    .command('list')
    .description('Export jobs, newest first')
    .action(async (_o: unknown, command: Command) => {
      const ctx = await Context.of(command, io)
      const jobs: ExportJobSummary[] = []
      for await (const j of (await ctx.client()).exports.list()) jobs.push(j)
      ctx.out.data({ exports: jobs, next_cursor: null })
      if (jobs.length === 0) return ctx.out.line('No exports yet.')
      ctx.out.table(
        ['ID', 'Status', 'Rows', 'Created', 'Expires'],
        jobs.map((j) => [j.id, j.status, j.row_count === null ? '-' : count(j.row_count), instant(j.created_at), instant(j.expires_at)]),
        ['left', 'left', 'right', 'left', 'left'],
      )
    })

  exports
    .command('download')
    .description('Download a ready export and verify its SHA-256 (exit 4 when it does not match)')
    .argument('<export_id>')
    .option('--out <file>', 'write the CSV here (default: stdout)')
    .action(async (id: string, o: { out?: string }, command: Command) => {
      const ctx = await Context.of(command, io)
      if (ctx.out.json && !o.out) throw usage('--json needs --out (stdout carries the JSON answer).')
      const client = await ctx.client()
      await downloadVerified(ctx, client, await client.exports.get(id), o.out)
    })
}

/** Polls the job (every 5 s, the API's guidance) with a spinner-like status line on a terminal. */
async function follow(ctx: Context, client: AdvertiserClient, id: string): Promise<ExportJob> {
  const started = Date.now()
  const job = await client.exports.wait(id, {
    onStatus: (j) => {
      if (ctx.out.showsProgress) ctx.io.stderr.write(`\r${id} ${j.status} · ${Math.round((Date.now() - started) / 1000)} s   `)
    },
  })
  if (ctx.out.showsProgress) ctx.io.stderr.write('\n')
  if (job.status === 'failed') throw verificationFailed(`${id} failed: ${job.error_code ?? 'no reason given'}`)
  return job
}

/** Downloads a ready job with a progress bar, checks the SHA-256 the job states, and writes the file. */
async function downloadVerified(ctx: Context, client: AdvertiserClient, job: ExportJob, out: string | undefined): Promise<void> {
  if (ctx.out.json && !out) throw usage('--json needs --out (stdout carries the JSON answer).')
  const bytes = await client.exports.download(job.id)
  const actual = createHash('sha256').update(bytes).digest('hex')
  if (job.sha256 === null || actual !== job.sha256) {
    throw verificationFailed(`SHA-256 mismatch for ${job.id}: the job says ${job.sha256 ?? '(none)'}, the download hashes to ${actual}. Nothing was written.`)
  }
  if (out) await writeFile(out, bytes)
  else ctx.io.stdout.write(bytes)
  ctx.out.data({ export: job, file: out ?? null, bytes: bytes.byteLength, sha256: actual, verified: true })
  const summary = `${job.id}: ${count(job.row_count ?? 0)} rows, ${count(bytes.byteLength)} bytes, SHA-256 verified (${actual.slice(0, 12)}…)${out ? `, written to ${out}` : ''}.`
  if (out && !ctx.out.json) ctx.out.line(summary)
  else ctx.out.note(summary)
}
