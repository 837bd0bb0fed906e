/**
 * Verifies an account's ledger over a range of closed UTC days against the running service (issue 39),
 * before `adctl ledger verify` exists: it reads the closed days, their inclusion proofs, the published
 * tree heads and the invoices, downloads `ledger-export-v3` exports of the days, and hands it all to the
 * SDK's verifier core (packages/sdk/src/ledger-verify.ts).
 *
 *   npx tsx scripts/verify-ledger.ts --from 2026-11-01 --to 2026-11-30 [--json]
 *
 * Credentials: ADCTL_USER_ID and ADCTL_API_KEY; the service: ADCTL_API_URL (default http://127.0.0.1:8080).
 * Exit codes: 0 verified, 4 a discrepancy (on stdout), 1 the API refused or failed, 2 bad usage.
 */
import { createHash } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { verifyLedger, type Invoice, type InclusionProof, type LedgerDay, type TreeHead, type VerifyInput, type VerifyResult } from '../packages/sdk/src/ledger-verify.ts'

export const nodeSha256 = (data: Uint8Array): Uint8Array => createHash('sha256').update(data).digest()

export interface ApiAccess {
  baseUrl: string
  userId: string
  apiKey: string
  /** Extra headers on every call (tests: a client address). */
  headers?: Record<string, string>
  /** Between two reads of an export's status; the API asks for at most one every five seconds. */
  pollMs?: number
  /** Days per export window: the API's limit is 31 (config `export_max_days`). */
  windowDays?: number
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
  ) {
    super(`${status}: ${JSON.stringify(detail)}`)
  }
}

async function call<T>(api: ApiAccess, method: string, path: string, body?: unknown): Promise<{ status: number; body: T; text: string }> {
  const res = await fetch(api.baseUrl + path, {
    method,
    headers: {
      'x-service-user-id': api.userId,
      'x-service-api-key': api.apiKey,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...api.headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (res.status === 429) {
    await sleep(Number(res.headers.get('retry-after') ?? '1') * 1000)
    return call(api, method, path, body)
  }
  const json = (res.headers.get('content-type') ?? '').includes('json') && text !== '' ? JSON.parse(text) : text
  if (res.status >= 400) throw new ApiFailure(res.status, typeof json === 'object' && json !== null && 'detail' in json ? json.detail : text)
  return { status: res.status, body: json as T, text }
}

async function allPages<T>(api: ApiAccess, path: string, key: string): Promise<T[]> {
  const items: T[] = []
  let cursor: string | null = null
  do {
    const sep = path.includes('?') ? '&' : '?'
    const page: { body: Record<string, unknown> } = await call(api, 'GET', `${path}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`)
    items.push(...(page.body[key] as T[]))
    cursor = page.body.next_cursor as string | null
  } while (cursor)
  return items
}

const DAY_MS = 86_400_000
const dayStart = (date: string) => Date.parse(`${date}T00:00:00Z`)
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** One `ledger-export-v3` export of [start, end), split in halves when it has more rows than the API exports at once. */
async function exportWindow(api: ApiAccess, startMs: number, endMs: number): Promise<string[]> {
  const queued = await call<{ id: string }>(api, 'POST', '/v1/exports', {
    start: new Date(startMs).toISOString(),
    end: new Date(endMs).toISOString(),
    schema_version: 'ledger-export-v3',
  })
  for (;;) {
    const job = (await call<{ status: string; error_code: string | null }>(api, 'GET', `/v1/exports/${queued.body.id}`)).body
    if (job.status === 'ready') {
      const res = await call<string>(api, 'GET', `/v1/exports/${queued.body.id}/download`)
      return [res.text]
    }
    if (job.status === 'failed') {
      if (job.error_code === 'row_limit_exceeded' && endMs - startMs > DAY_MS) {
        const mid = startMs + Math.floor((endMs - startMs) / DAY_MS / 2) * DAY_MS
        return [...(await exportWindow(api, startMs, mid)), ...(await exportWindow(api, mid, endMs))]
      }
      throw new ApiFailure(409, { reason: 'export_failed', error_code: job.error_code })
    }
    await sleep(api.pollMs ?? 5_000)
  }
}

/** Everything the verifier needs about [from, to], read from the API and the public log. */
export async function collectEvidence(api: ApiAccess, from: string, to: string): Promise<VerifyInput> {
  const days: LedgerDay[] = []
  let closedThrough: string | null = null
  let cursor: string | null = null
  do {
    const page: { body: { days: LedgerDay[]; closed_through: string | null; next_cursor: string | null } } = await call(
      api,
      'GET',
      `/v1/ledger/days?from=${from}&to=${to}&limit=400${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    )
    days.push(...page.body.days)
    // The first page's watermark: a day closing while paging is verified next time.
    if (cursor === null) closedThrough = page.body.closed_through
    cursor = page.body.next_cursor
  } while (cursor)
  const proofs: Record<string, InclusionProof> = {}
  for (const d of days) proofs[d.date] = (await call<InclusionProof>(api, 'GET', `/v1/ledger/days/${d.date}/proof`)).body
  const heads = (await call<{ heads: TreeHead[] }>(api, 'GET', `/transparency.json?from=${from}&to=${to}`)).body.heads
  const invoices = await allPages<Invoice>(api, '/v1/invoices?limit=200', 'invoices')
  const exports: string[] = []
  const windowMs = (api.windowDays ?? 31) * DAY_MS
  for (let start = dayStart(from); start <= dayStart(to); start += windowMs) {
    exports.push(...(await exportWindow(api, start, Math.min(start + windowMs, dayStart(to) + DAY_MS))))
  }
  return { userId: api.userId, from, to, days, closedThrough, exports, proofs, heads, invoices }
}

export async function verifyRange(api: ApiAccess, from: string, to: string): Promise<VerifyResult> {
  return verifyLedger(await collectEvidence(api, from, to), nodeSha256)
}

function describe(result: VerifyResult): string {
  if (result.verified) {
    const f = result.figures
    return [
      `verified: ${f.days_closed} closed days with rows (${f.days_open} days not closed yet), ${f.rows} rows, ${f.billable_impressions} billable impressions, ${f.clicks} clicks`,
      `debits ${f.debit_micros} micros: ${f.invoiced_micros} invoiced, ${f.uninvoiced_micros} not yet invoiced (${f.invoices_checked} invoices checked)`,
      `chain ${f.chain_from ?? '-'} -> ${f.chain_to ?? '-'}`,
    ].join('\n')
  }
  const d = result.discrepancy
  return `NOT verified: ${d.kind} on ${d.date ?? '(no day)'}: ${d.message}${d.row ? `\n  export ${d.row.export_index}, line ${d.row.line}: ${d.row.text}` : ''}`
}

async function main(): Promise<number> {
  let values
  try {
    ;({ values } = parseArgs({ options: { from: { type: 'string' }, to: { type: 'string' }, json: { type: 'boolean' } } }))
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`)
    return 2
  }
  const userId = process.env.ADCTL_USER_ID
  const apiKey = process.env.ADCTL_API_KEY
  if (!values.from || !values.to || !/^\d{4}-\d{2}-\d{2}$/.test(values.from) || !/^\d{4}-\d{2}-\d{2}$/.test(values.to) || !userId || !apiKey) {
    process.stderr.write('usage: ADCTL_USER_ID=… ADCTL_API_KEY=… npx tsx scripts/verify-ledger.ts --from YYYY-MM-DD --to YYYY-MM-DD [--json]\n')
    return 2
  }
  try {
    const result = await verifyRange({ baseUrl: process.env.ADCTL_API_URL ?? 'http://127.0.0.1:8080', userId, apiKey }, values.from, isoDate(dayStart(values.to)))
    process.stdout.write(values.json ? `${JSON.stringify(result)}\n` : `${describe(result)}\n`)
    return result.verified ? 0 : 4
  } catch (e) {
    process.stderr.write(`${e instanceof ApiFailure ? `the API answered ${e.message}` : (e as Error).message}\n`)
    return 1
  }
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = await main()
