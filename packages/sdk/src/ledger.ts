import { sha256 } from '@noble/hashes/sha2.js'
import type { AdvertiserClient, InclusionProof, Invoice } from './client.js'
import { ApiError } from './errors.js'
import { verifyLedger, type VerifyInput, type VerifyResult } from './ledger-verify.js'

export interface LedgerVerifyOptions {
  /** First and last UTC day (inclusive), YYYY-MM-DD. */
  from: string
  to: string
  /** Between two reads of an export's status (default 5 s, the API's guidance). */
  pollMs?: number
  /** Days per export (default 31, the API's longest window). */
  windowDays?: number
  /** Told what is being fetched, for a progress line. */
  onProgress?: (step: string) => void
}

const DAY_MS = 86_400_000
const DATE = /^\d{4}-\d{2}-\d{2}$/
const dayStart = (date: string) => Date.parse(`${date}T00:00:00Z`)

/**
 * Everything the verifier needs about [from, to] (docs/ledger-verification.md): the closed days and
 * `closed_through`, each day's inclusion proof, the published heads, every invoice, and
 * `ledger-export-v3` exports covering the range (31 days each; a window over the row cap is halved).
 */
export async function collectEvidence(client: AdvertiserClient, userId: string, o: LedgerVerifyOptions): Promise<VerifyInput> {
  if (!DATE.test(o.from) || !DATE.test(o.to) || o.to < o.from) throw new ApiError(0, 'from and to are UTC days (YYYY-MM-DD), to not before from', { reason: 'bad_range' })
  const say = o.onProgress ?? (() => {})
  say('closed days')
  const { days, closed_through: closedThrough } = await client.ledger.days({ from: o.from, to: o.to, limit: 400 })
  say('inclusion proofs')
  const proofs: Record<string, InclusionProof> = {}
  for (const d of days) proofs[d.date] = await client.ledger.proof(d.date)
  say('published tree heads')
  const heads = await client.transparency({ from: o.from, to: o.to })
  say('invoices')
  const invoices: Invoice[] = []
  for await (const i of client.invoices.list({ limit: 200 })) invoices.push(await client.invoices.get(i.invoice_id))
  const exports: string[] = []
  const windowMs = (o.windowDays ?? 31) * DAY_MS
  const end = dayStart(o.to) + DAY_MS
  for (let start = dayStart(o.from); start < end; start += windowMs) exports.push(...(await exportWindow(client, start, Math.min(start + windowMs, end), o, say)))
  return { userId, from: o.from, to: o.to, days, closedThrough, exports, proofs, heads, invoices }
}

async function exportWindow(client: AdvertiserClient, startMs: number, endMs: number, o: LedgerVerifyOptions, say: (step: string) => void): Promise<string[]> {
  const range = `${new Date(startMs).toISOString().slice(0, 10)} to ${new Date(endMs - DAY_MS).toISOString().slice(0, 10)}`
  say(`export of ${range}`)
  const job = await client.exports.create({ from: new Date(startMs).toISOString(), to: new Date(endMs).toISOString(), schema_version: 'ledger-export-v3' })
  const done = await client.exports.wait(job.id, { pollMs: o.pollMs })
  if (done.status === 'failed') {
    if (done.error_code === 'row_limit_exceeded' && endMs - startMs > DAY_MS) {
      const mid = startMs + Math.floor((endMs - startMs) / DAY_MS / 2) * DAY_MS
      return [...(await exportWindow(client, startMs, mid, o, say)), ...(await exportWindow(client, mid, endMs, o, say))]
    }
    throw new ApiError(0, `the export of ${range} failed: ${done.error_code ?? 'no reason given'}`, { reason: 'export_failed' })
  }
  return [new TextDecoder().decode(await client.exports.download(job.id))]
}

/** Collects the evidence and runs the verifier on it, hashing with @noble/hashes (Node 20 and browsers). */
export async function verifyLedgerRange(client: AdvertiserClient, userId: string, o: LedgerVerifyOptions): Promise<VerifyResult> {
  return verifyLedger(await collectEvidence(client, userId, o), sha256)
}
