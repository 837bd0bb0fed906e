/**
 * The ledger verifier's core (issue 39; the byte formats: docs/ledger-verification.md). Pure TypeScript on
 * plain data: the account's closed days (GET /v1/ledger/days), the text of its `ledger-export-v3` exports
 * covering those days, the inclusion proofs (GET /v1/ledger/days/{date}/proof), the published tree heads
 * (/transparency.json) and the invoices (GET /v1/invoices). It recomputes each day's root from the rows,
 * the chain between days, each root's inclusion in the published tree, and what the invoices took from each
 * day, and answers `{ verified: true, figures }` or the first discrepancy, naming the day and, where the
 * data can tell, the row.
 *
 * No I/O and no platform API but TextEncoder: the caller passes a synchronous SHA-256 (`@noble/hashes`'
 * `sha256` in the SDK, which runs in Node 20 and browsers; node:crypto in scripts), so the same code runs
 * anywhere.
 */

export type Sha256 = (data: Uint8Array) => Uint8Array

export interface LedgerDay {
  date: string
  rows: number
  billable_impressions: number
  clicks: number
  debit_micros: number
  invoiced_micros: number
  root: string
  previous_root: string
}

export interface InclusionProof {
  date: string
  root: string
  leaf_hash: string
  leaf_index: number
  tree_size: number
  audit_path: string[]
}

export interface TreeHead {
  date: string
  tree_size: number
  root_hash: string
}

export interface InvoiceDay {
  date: string
  root: string | null
  micros: number
}

export interface Invoice {
  invoice_id: string
  period: { start: string; end: string }
  delivered_micros: number
  amount_cents: number
  credits_applied_cents: number
  total_cents: number
  status: string
  days: InvoiceDay[]
}

export interface VerifyInput {
  userId: string
  /** First and last UTC day to verify (inclusive), YYYY-MM-DD. */
  from: string
  to: string
  /** Every closed day of the account in [from, to] (all pages). */
  days: LedgerDay[]
  /** GET /v1/ledger/days' `closed_through`: the last day closed (null before the first close). */
  closedThrough: string | null
  /** `ledger-export-v3` CSV texts whose windows together cover [from 00:00, to+1 00:00) exactly once, in time order. */
  exports: string[]
  /** The proof of each listed day, by date. */
  proofs: Record<string, InclusionProof>
  /** The published heads (/transparency.json `heads`) of at least the days in [from, to]. */
  heads: TreeHead[]
  /** Every invoice of the account (all pages), for the days they took and the cumulative cents. */
  invoices: Invoice[]
}

export interface DayFigures {
  date: string
  rows: number
  billable_impressions: number
  clicks: number
  debit_micros: number
  invoiced_micros: number
  uninvoiced_micros: number
  root: string
}

export interface VerifiedFigures {
  /** Closed days in the range with rows of the account; `days_open` the days of the range not closed yet. */
  days_closed: number
  days_open: number
  rows: number
  billable_impressions: number
  clicks: number
  debit_micros: number
  invoiced_micros: number
  uninvoiced_micros: number
  invoices_checked: number
  /** The root the range's chain starts from (the day before `from` with rows, or zeros) and the last root. */
  chain_from: string | null
  chain_to: string | null
  days: DayFigures[]
}

/** Where a discrepancy was found: the export's row (1-based line of the CSV text, header = line 1), when one is to blame. */
export interface RowRef {
  export_index: number
  line: number
  text: string
}

export type DiscrepancyKind =
  | 'bad_export'
  | 'rows_without_root'
  | 'figures_mismatch'
  | 'root_mismatch'
  | 'chain_broken'
  | 'proof_missing'
  | 'proof_invalid'
  | 'head_missing'
  | 'head_mismatch'
  | 'invoice_mismatch'

export interface Discrepancy {
  kind: DiscrepancyKind
  date: string | null
  message: string
  row: RowRef | null
}

export type VerifyResult = { verified: true; figures: VerifiedFigures } | { verified: false; discrepancy: Discrepancy }

export const CHAIN_DOMAIN = 'ad-ledger-day-v1'
export const ZERO_ROOT = '0'.repeat(64)
export const V3_COLUMNS = [
  'timestamp',
  'event_type',
  'campaign_id',
  'creative_id',
  'surface',
  'country',
  'billable',
  'debit_micros',
  'processor_billing_country',
  'non_billable_reason',
] as const
/** The row's fields the chain hashes, in order: the v3 columns but the processor's billing country. */
export const CHAIN_FIELDS = ['timestamp', 'event_type', 'campaign_id', 'creative_id', 'surface', 'country', 'billable', 'debit_micros', 'non_billable_reason'] as const

const utf8 = new TextEncoder()

export function hexToBytes(hex: string): Uint8Array {
  if (!/^(?:[0-9a-f]{2})*$/.test(hex)) throw new Error(`not lowercase hex: ${hex}`)
  const out = new Uint8Array(hex.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return out
}

export function bytesToHex(bytes: Uint8Array): string {
  let s = ''
  for (const b of bytes) s += b.toString(16).padStart(2, '0')
  return s
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/** A field: its UTF-8 length as 4 bytes big-endian, then the bytes. */
export function enc(text: string): Uint8Array {
  const bytes = utf8.encode(text)
  const out = new Uint8Array(4 + bytes.length)
  new DataView(out.buffer).setUint32(0, bytes.length)
  out.set(bytes, 4)
  return out
}

/** seed = SHA-256(enc("ad-ledger-day-v1") ‖ enc(user_id) ‖ enc(date) ‖ previous_root). */
export function chainSeed(sha256: Sha256, userId: string, date: string, previousRoot: string): Uint8Array {
  return sha256(concat(enc(CHAIN_DOMAIN), enc(userId), enc(date), hexToBytes(previousRoot)))
}

/** h' = SHA-256(h ‖ enc(field 1) ‖ … ‖ enc(field 9)). */
export function chainStep(sha256: Sha256, h: Uint8Array, fields: readonly string[]): Uint8Array {
  return sha256(concat(h, ...fields.map(enc)))
}

/** The leaf hash of an account's day: SHA-256(0x00 ‖ enc(user_id) ‖ root). */
export function leafHash(sha256: Sha256, userId: string, root: string): Uint8Array {
  return sha256(concat(Uint8Array.of(0), enc(userId), hexToBytes(root)))
}

/**
 * RFC 9162 section 2.1.3.2: the root an inclusion proof leads to from `leaf` (null when the path has the
 * wrong length for the index and size).
 */
export function rootFromProof(sha256: Sha256, leafIndex: number, treeSize: number, leaf: Uint8Array, path: readonly Uint8Array[]): Uint8Array | null {
  if (leafIndex < 0 || leafIndex >= treeSize) return null
  let fn = leafIndex
  let sn = treeSize - 1
  let r = leaf
  for (const p of path) {
    if (sn === 0) return null
    if (fn % 2 === 1 || fn === sn) {
      r = sha256(concat(Uint8Array.of(1), p, r))
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2)
          sn = Math.floor(sn / 2)
        }
      }
    } else {
      r = sha256(concat(Uint8Array.of(1), r, p))
    }
    fn = Math.floor(fn / 2)
    sn = Math.floor(sn / 2)
  }
  return sn === 0 ? r : null
}

/** RFC 4180 fields of one line (no line break inside: the export's fields never hold one). */
export function parseCsvLine(line: string): string[] {
  const fields: string[] = []
  let i = 0
  for (;;) {
    if (line[i] === '"') {
      let value = ''
      i++
      for (;;) {
        const q = line.indexOf('"', i)
        if (q < 0) throw new Error('unterminated quoted field')
        value += line.slice(i, q)
        if (line[q + 1] === '"') {
          value += '"'
          i = q + 2
        } else {
          i = q + 1
          break
        }
      }
      fields.push(value)
    } else {
      const comma = line.indexOf(',', i)
      fields.push(comma < 0 ? line.slice(i) : line.slice(i, comma))
      i = comma < 0 ? line.length : comma
    }
    if (i >= line.length) return fields
    if (line[i] !== ',') throw new Error('text after a quoted field')
    i++
  }
}

interface ExportRow {
  fields: Record<(typeof V3_COLUMNS)[number], string>
  ref: RowRef
}

/** The rows of the exports, grouped by UTC day in file order; or the problem with a file. */
function readExports(texts: readonly string[]): Map<string, ExportRow[]> | Discrepancy {
  const byDay = new Map<string, ExportRow[]>()
  for (const [exportIndex, text] of texts.entries()) {
    if (text.length > 0 && !text.endsWith('\r\n')) return { kind: 'bad_export', date: null, message: `export ${exportIndex}: the last line does not end in CRLF`, row: null }
    const lines = text.split('\r\n').slice(0, -1)
    if (lines[0] !== V3_COLUMNS.join(',')) {
      return { kind: 'bad_export', date: null, message: `export ${exportIndex}: not a ledger-export-v3 file (header ${JSON.stringify(lines[0] ?? '')})`, row: null }
    }
    for (let i = 1; i < lines.length; i++) {
      const ref = { export_index: exportIndex, line: i + 1, text: lines[i]! }
      let values: string[]
      try {
        values = parseCsvLine(lines[i]!)
      } catch (e) {
        return { kind: 'bad_export', date: null, message: `export ${exportIndex} line ${i + 1}: ${(e as Error).message}`, row: ref }
      }
      if (values.length !== V3_COLUMNS.length) return { kind: 'bad_export', date: null, message: `export ${exportIndex} line ${i + 1}: ${values.length} fields`, row: ref }
      const fields = Object.fromEntries(V3_COLUMNS.map((c, k) => [c, values[k]!])) as ExportRow['fields']
      const date = fields.timestamp.slice(0, 10)
      const rows = byDay.get(date) ?? []
      rows.push({ fields, ref })
      byDay.set(date, rows)
    }
  }
  return byDay
}

const nextDate = (date: string): string => new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)

function countOpenDays(input: VerifyInput): number {
  let n = 0
  for (let date = input.from; date <= input.to; date = nextDate(date)) if (input.closedThrough === null || date > input.closedThrough) n++
  return n
}

/** Verifies [from, to] of one account. See the module comment. */
export function verifyLedger(input: VerifyInput, sha256: Sha256): VerifyResult {
  const fail = (kind: DiscrepancyKind, date: string | null, message: string, row: RowRef | null = null): VerifyResult => ({
    verified: false,
    discrepancy: { kind, date, message, row },
  })
  const rowsByDay = readExports(input.exports)
  if (!(rowsByDay instanceof Map)) return { verified: false, discrepancy: rowsByDay }
  const listed = new Map(input.days.map((d) => [d.date, d]))
  const heads = new Map(input.heads.map((h) => [h.date, h]))
  const taken = new Map<string, number>()
  for (const inv of input.invoices) for (const d of inv.days) taken.set(d.date, (taken.get(d.date) ?? 0) + d.micros)
  const invoicesByEnd = [...input.invoices].sort((a, b) => Date.parse(a.period.end) - Date.parse(b.period.end))
  const lastPeriodEnd = invoicesByEnd.at(-1)?.period.end ?? null

  const days: DayFigures[] = []
  let previousRoot: string | null = null
  let chainFrom: string | null = null
  for (let date = input.from; date <= input.to; date = nextDate(date)) {
    const rows = rowsByDay.get(date) ?? []
    const day = listed.get(date)
    const head = heads.get(date)
    const closed = input.closedThrough !== null && date <= input.closedThrough
    if (!day) {
      // A closed day without a root had no rows when it closed; an open day is not verified yet.
      if (closed && rows.length > 0) return fail('rows_without_root', date, `the export has ${rows.length} rows on a closed day that has no root`, rows[0]!.ref)
      continue
    }
    if (!closed) return fail('chain_broken', date, `a root is listed for ${date}, after the last closed day ${input.closedThrough ?? '(none)'}`)
    if (previousRoot !== null && day.previous_root !== previousRoot) {
      return fail('chain_broken', date, `previous_root ${day.previous_root} is not the root of the account's previous day (${previousRoot})`)
    }
    chainFrom ??= day.previous_root
    // The chain, and the figures, over the exported rows.
    let h = chainSeed(sha256, input.userId, date, day.previous_root)
    const f = { rows: 0, billable_impressions: 0, clicks: 0, debit_micros: 0 }
    let debitsBeforeLastInvoice = 0
    let crossing: RowRef | null = null
    const takenFromDay = taken.get(date) ?? 0
    for (const row of rows) {
      h = chainStep(sha256, h, CHAIN_FIELDS.map((c) => row.fields[c]))
      f.rows++
      if (row.fields.event_type === 'impression' && row.fields.billable === 'true') f.billable_impressions++
      if (row.fields.event_type === 'click') f.clicks++
      if (!/^\d+$/.test(row.fields.debit_micros)) return fail('bad_export', date, `debit_micros ${JSON.stringify(row.fields.debit_micros)} is not an integer`, row.ref)
      const debit = Number(row.fields.debit_micros)
      f.debit_micros += debit
      if (lastPeriodEnd !== null && Date.parse(row.fields.timestamp) < Date.parse(lastPeriodEnd) && row.fields.billable === 'true') {
        debitsBeforeLastInvoice += debit
        if (crossing === null && debitsBeforeLastInvoice > takenFromDay) crossing = row.ref
      }
    }
    const root = bytesToHex(h)
    if (f.rows !== day.rows) {
      return fail('figures_mismatch', date, `the export has ${f.rows} rows, the closed day ${day.rows}: a row was ${f.rows < day.rows ? 'removed' : 'added'}`)
    }
    for (const k of ['billable_impressions', 'clicks', 'debit_micros'] as const) {
      if (f[k] !== day[k]) return fail('figures_mismatch', date, `${k}: the export sums to ${f[k]}, the closed day says ${day[k]}`, null)
    }
    if (root !== day.root) return fail('root_mismatch', date, `the rows hash to ${root}, the closed day's root is ${day.root}: a row was changed or rows were reordered`, null)
    // The root is in the day's published tree.
    const proof = input.proofs[date]
    if (!proof) return fail('proof_missing', date, 'no inclusion proof for this day')
    if (!head) return fail('head_missing', date, 'no published tree head for this day')
    if (proof.root !== day.root) return fail('proof_invalid', date, `the proof is for root ${proof.root}, not ${day.root}`)
    const leaf = leafHash(sha256, input.userId, day.root)
    if (bytesToHex(leaf) !== proof.leaf_hash) return fail('proof_invalid', date, 'the proof\'s leaf hash is not SHA-256(0x00 ‖ enc(user_id) ‖ root)')
    if (proof.tree_size !== head.tree_size) return fail('head_mismatch', date, `the proof is for a tree of ${proof.tree_size} leaves, the published head has ${head.tree_size}`)
    const computed = rootFromProof(sha256, proof.leaf_index, proof.tree_size, leaf, proof.audit_path.map(hexToBytes))
    if (computed === null || bytesToHex(computed) !== head.root_hash) {
      return fail('head_mismatch', date, `the inclusion proof does not lead to the published root ${head.root_hash}`)
    }
    // What invoices took from the day: never more than its debits, all of its debits before the last period end.
    if (takenFromDay !== day.invoiced_micros) return fail('invoice_mismatch', date, `invoices list ${takenFromDay} micros from this day, the closed day says ${day.invoiced_micros}`)
    if (takenFromDay > f.debit_micros) return fail('invoice_mismatch', date, `invoices took ${takenFromDay} micros from a day whose debits are ${f.debit_micros}`)
    if (lastPeriodEnd !== null && debitsBeforeLastInvoice !== takenFromDay) {
      return fail(
        'invoice_mismatch',
        date,
        `the day's debits before the last period end (${lastPeriodEnd}) are ${debitsBeforeLastInvoice} micros, invoices took ${takenFromDay}`,
        crossing,
      )
    }
    for (const inv of input.invoices) {
      const listedDay = inv.days.find((d) => d.date === date)
      if (listedDay && listedDay.root !== null && listedDay.root !== day.root) {
        return fail('invoice_mismatch', date, `invoice ${inv.invoice_id} names root ${listedDay.root} for this day, not ${day.root}`)
      }
    }
    days.push({ date, ...f, invoiced_micros: takenFromDay, uninvoiced_micros: f.debit_micros - takenFromDay, root })
    previousRoot = day.root
  }
  for (const [date, rows] of rowsByDay) {
    if (date < input.from || date > input.to) return fail('bad_export', date, 'the exports hold rows outside [from, to]', rows[0]!.ref)
  }

  // Each invoice: its days add up to its micros; its cents follow the cumulative rounding.
  let cumMicros = 0
  let cumCents = 0
  for (const inv of invoicesByEnd) {
    if (inv.days.length > 0) {
      const sum = inv.days.reduce((n, d) => n + d.micros, 0)
      if (sum !== inv.delivered_micros) return fail('invoice_mismatch', inv.days[0]!.date, `invoice ${inv.invoice_id}: its days add up to ${sum} micros, it bills ${inv.delivered_micros}`)
    }
    cumMicros += inv.delivered_micros
    const cents = Math.floor((cumMicros + 5_000) / 10_000) - cumCents
    if (cents !== inv.amount_cents) return fail('invoice_mismatch', null, `invoice ${inv.invoice_id}: ${inv.amount_cents} cents, the cumulative rounding gives ${cents}`)
    if (inv.total_cents !== inv.amount_cents - inv.credits_applied_cents) {
      return fail('invoice_mismatch', null, `invoice ${inv.invoice_id}: total ${inv.total_cents} is not amount ${inv.amount_cents} − credits ${inv.credits_applied_cents}`)
    }
    cumCents += inv.amount_cents
  }

  const sum = (k: 'rows' | 'billable_impressions' | 'clicks' | 'debit_micros' | 'invoiced_micros' | 'uninvoiced_micros') => days.reduce((n, d) => n + d[k], 0)
  return {
    verified: true,
    figures: {
      days_closed: days.length,
      days_open: countOpenDays(input),
      rows: sum('rows'),
      billable_impressions: sum('billable_impressions'),
      clicks: sum('clicks'),
      debit_micros: sum('debit_micros'),
      invoiced_micros: sum('invoiced_micros'),
      uninvoiced_micros: sum('uninvoiced_micros'),
      invoices_checked: input.invoices.length,
      chain_from: chainFrom,
      chain_to: previousRoot,
      days,
    },
  }
}
