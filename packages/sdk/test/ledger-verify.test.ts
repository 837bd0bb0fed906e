import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'
import {
  bytesToHex,
  leafHash,
  parseCsvLine,
  rootFromProof,
  V3_COLUMNS,
  verifyLedger,
  ZERO_ROOT,
  type Invoice,
  type LedgerDay,
  type VerifyInput,
} from '../src/ledger-verify.ts'
// The service's own implementation of the same bytes: the two must agree.
import { auditPath, DayChain, leafBytes, leafHash as serviceLeafHash, treeHash } from '../../../src/domain/ledger-chain.ts'

const sha256 = (data: Uint8Array): Uint8Array => createHash('sha256').update(data).digest()
const USER = 'usr_verifier'

test('inclusion proofs of every leaf of trees of 1 to 17 leaves lead to the service\'s tree hash (RFC 9162 2.1.3.2)', () => {
  for (let n = 1; n <= 17; n++) {
    const leaves = Array.from({ length: n }, (_, i) => serviceLeafHash(leafBytes(`usr_${i}`, createHash('sha256').update(String(i)).digest('hex'))))
    const root = treeHash(leaves)
    for (let m = 0; m < n; m++) {
      const path = auditPath(m, leaves)
      assert.equal(bytesToHex(rootFromProof(sha256, m, n, leaves[m]!, path)!), root.toString('hex'), `leaf ${m} of ${n}`)
      // A path for another index, or one hash short, leads nowhere.
      if (n > 1) assert.notEqual(bytesToHex(rootFromProof(sha256, (m + 1) % n, n, leaves[m]!, path) ?? new Uint8Array()), root.toString('hex'))
      if (path.length > 0) assert.notEqual(bytesToHex(rootFromProof(sha256, m, n, leaves[m]!, path.slice(1)) ?? new Uint8Array()), root.toString('hex'))
    }
  }
})

test('CSV lines: RFC 4180 quoting', () => {
  assert.deepEqual(parseCsvLine('a,,"b,c","d""e",'), ['a', '', 'b,c', 'd"e', ''])
  assert.throws(() => parseCsvLine('"open'))
})

type Row = [string, string, string, string, string, string, string, string, string]
const row = (ts: string, type: string, debit: number, reason = ''): Row => [
  ts,
  type,
  'cmp_a',
  'crv_a',
  'extension',
  'US',
  type === 'impression' || type === 'click' ? 'true' : 'false',
  String(debit),
  reason,
]
const csv = (rows: Row[]) =>
  [V3_COLUMNS.join(','), ...rows.map((r) => [...r.slice(0, 8), 'DE', r[8]].join(','))].map((l) => `${l}\r\n`).join('')

const DAY1: Row[] = [
  row('2026-11-02T09:00:00.000Z', 'impression', 3700),
  row('2026-11-02T09:00:00.000Z', 'view', 0, 'short_dwell'),
  row('2026-11-02T10:00:00.000Z', 'impression', 3700),
]
const DAY2: Row[] = [row('2026-11-03T05:00:00.000Z', 'impression', 3700), row('2026-11-03T07:00:00.000Z', 'impression', 3700)]

/** What the service would publish for these rows: days, proofs (another account beside this one), heads, one invoice cut at 2026-11-03 06:00. */
function scenario(): VerifyInput {
  const days: LedgerDay[] = []
  const proofs: VerifyInput['proofs'] = {}
  const heads: VerifyInput['heads'] = []
  let prev = ZERO_ROOT
  for (const [date, rows] of [
    ['2026-11-02', DAY1],
    ['2026-11-03', DAY2],
  ] as const) {
    const chain = new DayChain(USER, date, prev)
    for (const r of rows) chain.add({ timestamp: r[0], event_type: r[1], campaign_id: r[2], creative_id: r[3], surface: r[4], country: r[5], billable: r[6], debit_micros: r[7], non_billable_reason: r[8] })
    const debit = rows.reduce((n, r) => n + Number(r[7]), 0)
    const invoiced = date === '2026-11-02' ? debit : 3700
    days.push({ date, rows: rows.length, billable_impressions: rows.filter((r) => r[1] === 'impression').length, clicks: 0, debit_micros: debit, invoiced_micros: invoiced, root: chain.root, previous_root: prev })
    const leaves = [serviceLeafHash(leafBytes('usr_other', 'ab'.repeat(32))), serviceLeafHash(leafBytes(USER, chain.root))]
    proofs[date] = { date, root: chain.root, leaf_hash: leaves[1]!.toString('hex'), leaf_index: 1, tree_size: 2, audit_path: auditPath(1, leaves).map((h) => h.toString('hex')) }
    heads.push({ date, tree_size: 2, root_hash: treeHash(leaves).toString('hex') })
    prev = chain.root
  }
  const invoice: Invoice = {
    invoice_id: 'inv_1',
    period: { start: '2026-11-02T00:00:00.000Z', end: '2026-11-03T06:00:00.000Z' },
    delivered_micros: 11_100,
    amount_cents: 1,
    credits_applied_cents: 1,
    total_cents: 0,
    status: 'paid',
    days: [
      { date: '2026-11-02', root: days[0]!.root, micros: 7400 },
      { date: '2026-11-03', root: null, micros: 3700 },
    ],
  }
  return { userId: USER, from: '2026-11-02', to: '2026-11-03', days, closedThrough: '2026-11-03', exports: [csv([...DAY1, ...DAY2])], proofs, heads, invoices: [invoice] }
}

test('the published data verifies, with its figures', () => {
  const result = verifyLedger(scenario(), sha256)
  assert.ok(result.verified, JSON.stringify(result))
  assert.deepEqual(
    [result.figures.days_closed, result.figures.rows, result.figures.billable_impressions, result.figures.debit_micros, result.figures.invoiced_micros, result.figures.uninvoiced_micros],
    [2, 5, 4, 14_800, 11_100, 3_700],
  )
  assert.equal(result.figures.chain_from, ZERO_ROOT)
  assert.equal(bytesToHex(leafHash(sha256, USER, result.figures.chain_to!)), scenario().proofs['2026-11-03']!.leaf_hash)
})

const discrepancy = (input: VerifyInput) => {
  const result = verifyLedger(input, sha256)
  assert.equal(result.verified, false)
  return result.verified ? assert.fail() : result.discrepancy
}

test('each kind of tampering is the first discrepancy, naming the day (and the row where the data can tell)', () => {
  const changed = scenario()
  changed.exports = [csv([...DAY1.map((r, i) => (i === 2 ? row(r[0], 'impression', 3701) : r)), ...DAY2])]
  assert.deepEqual([discrepancy(changed).kind, discrepancy(changed).date], ['figures_mismatch', '2026-11-02'])

  const reordered = scenario()
  reordered.exports = [csv([DAY1[1]!, DAY1[0]!, DAY1[2]!, ...DAY2])]
  assert.deepEqual([discrepancy(reordered).kind, discrepancy(reordered).date], ['root_mismatch', '2026-11-02'])

  const deleted = scenario()
  deleted.exports = [csv([...DAY1, DAY2[1]!])]
  assert.match(discrepancy(deleted).message, /removed/)
  assert.equal(discrepancy(deleted).date, '2026-11-03')

  const rewrittenLog = scenario()
  rewrittenLog.heads[1] = { ...rewrittenLog.heads[1]!, root_hash: 'cd'.repeat(32) }
  assert.deepEqual([discrepancy(rewrittenLog).kind, discrepancy(rewrittenLog).date], ['head_mismatch', '2026-11-03'])

  const brokenChain = scenario()
  brokenChain.days[1] = { ...brokenChain.days[1]!, previous_root: 'ef'.repeat(32) }
  assert.equal(discrepancy(brokenChain).kind, 'chain_broken')

  // An invoice that took less than the day's debits before its period end: the row past what it took is named.
  const short = scenario()
  short.invoices[0]!.days[0]!.micros = 3700
  short.invoices[0]!.delivered_micros = 7400
  short.days[0]!.invoiced_micros = 3700
  const d = discrepancy(short)
  assert.deepEqual([d.kind, d.date, d.row?.line], ['invoice_mismatch', '2026-11-02', 4])

  const cents = scenario()
  cents.invoices[0]!.amount_cents = 2
  cents.invoices[0]!.total_cents = 1
  assert.match(discrepancy(cents).message, /cumulative rounding gives 1/)

  const unrooted = scenario()
  unrooted.days = unrooted.days.slice(1)
  unrooted.days[0]!.previous_root = ZERO_ROOT
  assert.equal(discrepancy(unrooted).kind, 'rows_without_root')
})
