import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'
import {
  CSV_LINE_END,
  csvField,
  csvLine,
  eventTypesLeftOut,
  exportColumns,
  exportFileName,
  headerLine,
  rowLine,
  type ExportLedgerRow,
} from '../../src/domain/export-csv.ts'
import { ChunkWriter } from '../../src/services/exports/artifact.ts'
import { checkExportWindow } from '../../src/services/exports/requests.ts'
import { inflateRawSync } from 'node:zlib'
import { ApiError } from '../../src/domain/errors.ts'

const row: ExportLedgerRow = {
  occurred_at: new Date('2026-11-02T09:00:10Z'),
  event_type: 'impression',
  campaign_id: 'cmp_A',
  creative_id: 'crv_B',
  surface: 'extension',
  country: 'DE',
  billable: true,
  debit_micros: 2500,
  reason: null,
}

test('RFC 4180 fields: quoted only when they hold a comma, a quote, CR or LF; inner quotes doubled', () => {
  assert.equal(csvField('plain'), 'plain')
  assert.equal(csvField(''), '')
  assert.equal(csvField('a,b'), '"a,b"')
  assert.equal(csvField('say "hi"'), '"say ""hi"""')
  assert.equal(csvField('"'), '""""')
  assert.equal(csvField('line\nbreak'), '"line\nbreak"')
  assert.equal(csvField('cr\rhere'), '"cr\rhere"')
  assert.equal(csvField('crlf\r\n'), '"crlf\r\n"')
  assert.equal(csvField(' padded '), ' padded ', 'spaces are data, not quoted')
  assert.equal(csvField('=SUM(A1)'), '=SUM(A1)')
  assert.equal(csvLine(['a', 'b,c', '']), 'a,"b,c",\r\n')
})

test('lines end in CRLF', () => {
  assert.equal(CSV_LINE_END, '\r\n')
  assert.ok(headerLine('ledger-export-v1').endsWith('\r\n'))
  assert.ok(rowLine('ledger-export-v2', row, null).endsWith('\r\n'))
  assert.equal(rowLine('ledger-export-v1', row, null).split('\r\n').length, 2)
})

test('header rows, exactly', () => {
  assert.equal(headerLine('ledger-export-v1'), 'timestamp,event_type,campaign_id,creative_id,surface,country,billable,debit_micros\r\n')
  assert.equal(
    headerLine('ledger-export-v2'),
    'timestamp,event_type,campaign_id,creative_id,surface,country,billable,debit_micros,processor_billing_country\r\n',
  )
  assert.deepEqual(exportColumns('ledger-export-v2').slice(0, 8), exportColumns('ledger-export-v1'))
  assert.equal(
    headerLine('ledger-export-v3'),
    'timestamp,event_type,campaign_id,creative_id,surface,country,billable,debit_micros,processor_billing_country,non_billable_reason\r\n',
  )
  assert.deepEqual(exportColumns('ledger-export-v3').slice(0, 9), exportColumns('ledger-export-v2'))
  for (const version of ['ledger-export-v1', 'ledger-export-v2', 'ledger-export-v3'] as const) {
    for (const column of exportColumns(version)) assert.doesNotMatch(column, /viewer|client|ip|network|impression_id/)
  }
})

test('v1 rows: ISO-8601 UTC with milliseconds, true/false, integer micros, blank country when unknown', () => {
  assert.equal(rowLine('ledger-export-v1', row, 'FR'), '2026-11-02T09:00:10.000Z,impression,cmp_A,crv_B,extension,DE,true,2500\r\n')
  assert.equal(
    rowLine('ledger-export-v1', { ...row, occurred_at: new Date('2026-11-02T09:00:10.123Z'), event_type: 'view', country: null, billable: false, debit_micros: 0 }, null),
    '2026-11-02T09:00:10.123Z,view,cmp_A,crv_B,extension,,false,0\r\n',
  )
  assert.equal(rowLine('ledger-export-v1', { ...row, debit_micros: 123_456_789_012 }, null).split(',')[7], '123456789012\r\n')
  assert.throws(() => rowLine('ledger-export-v1', { ...row, debit_micros: 2.5 }, null), RangeError)
})

test('v2 rows append the processor billing country, blank when none is on file', () => {
  assert.equal(rowLine('ledger-export-v2', row, 'FR'), '2026-11-02T09:00:10.000Z,impression,cmp_A,crv_B,extension,DE,true,2500,FR\r\n')
  assert.equal(rowLine('ledger-export-v2', row, null), '2026-11-02T09:00:10.000Z,impression,cmp_A,crv_B,extension,DE,true,2500,\r\n')
  assert.equal(rowLine('ledger-export-v2', { ...row, country: null }, null).split(',').length, 9)
})

test('v3 rows append the non-billable reason under its current name, blank on billable and non-view rows', () => {
  const view = { ...row, event_type: 'view', billable: false, debit_micros: 0 }
  assert.equal(rowLine('ledger-export-v3', row, 'FR'), '2026-11-02T09:00:10.000Z,impression,cmp_A,crv_B,extension,DE,true,2500,FR,\r\n')
  assert.equal(rowLine('ledger-export-v3', { ...view, reason: 'short_dwell' }, null), '2026-11-02T09:00:10.000Z,view,cmp_A,crv_B,extension,DE,false,0,,short_dwell\r\n')
  // Reasons stored before issue 25 are written under the name of the one vocabulary.
  assert.equal(rowLine('ledger-export-v3', { ...view, reason: 'dwell_exceeds_elapsed' }, null).split(',')[9], 'too_fast\r\n')
  assert.equal(rowLine('ledger-export-v3', { ...view, reason: 'campaign_cancelled' }, null).split(',')[9], 'block_full\r\n')
  assert.equal(rowLine('ledger-export-v3', { ...view, event_type: 'repeat_view', reason: 'repeat' }, null).split(',')[9], 'repeat\r\n')
  assert.equal(rowLine('ledger-export-v3', { ...view, event_type: 'expired_view', reason: 'expired' }, null).split(',')[9], 'expired\r\n')
  assert.equal(rowLine('ledger-export-v3', { ...view, event_type: 'click', reason: null }, null).split(',')[9], '\r\n')
  // A unit the traffic review voided names its reason; the billable row it voids names none.
  assert.equal(rowLine('ledger-export-v3', { ...view, event_type: 'voided_impression', reason: 'invalid_traffic' }, null).split(',')[9], 'invalid_traffic\r\n')
  assert.equal(rowLine('ledger-export-v3', { ...view, event_type: 'voided_click', reason: 'invalid_traffic' }, null).split(',')[9], 'invalid_traffic\r\n')
  // v2 of the same row is v3 without the last column.
  assert.equal(rowLine('ledger-export-v2', { ...view, reason: 'short_dwell' }, 'FR') + '', rowLine('ledger-export-v3', { ...view, reason: 'short_dwell' }, 'FR').replace(',short_dwell', ''))
})

test('v1 and v2 leave out the repeat and late view reports and the voided rows; v3 lists every event', () => {
  assert.deepEqual(eventTypesLeftOut('ledger-export-v1'), ['repeat_view', 'expired_view', 'voided_impression', 'voided_click'])
  assert.deepEqual(eventTypesLeftOut('ledger-export-v2'), ['repeat_view', 'expired_view', 'voided_impression', 'voided_click'])
  assert.deepEqual(eventTypesLeftOut('ledger-export-v3'), [])
})

test('a field that needs it is escaped inside a row', () => {
  assert.equal(
    rowLine('ledger-export-v1', { ...row, campaign_id: 'cmp,"odd"' }, null),
    '2026-11-02T09:00:10.000Z,impression,"cmp,""odd""",crv_B,extension,DE,true,2500\r\n',
  )
})

test('file name', () => {
  assert.equal(exportFileName('exp_abc'), 'ledger-export-exp_abc.csv')
})

for (const encoding of ['identity', 'deflate-raw'] as const) {
  test(`the chunk writer cuts exact-size chunks in order and hashes every byte (${encoding})`, async () => {
    const stored: Buffer[] = []
    const calls: number[] = []
    const writer = new ChunkWriter(
      async (firstSeq, chunks) => {
        assert.equal(firstSeq, stored.length)
        calls.push(chunks.length)
        for (const c of chunks) stored.push(Buffer.from(c))
        return true
      },
      { chunkBytes: 10, encoding },
    )
    assert.equal(writer.encoding, encoding)
    const parts = ['héllo,', 'wörld\r\n', 'x'.repeat(25), '', 'end\r\n']
    for (const p of parts) assert.equal(await writer.write(p), true)
    const digest = await writer.end()
    const whole = Buffer.from(parts.join(''), 'utf8')
    assert.equal(writer.size, whole.length)
    assert.equal(digest, createHash('sha256').update(whole).digest('hex'), 'the hash is of the CSV as served')
    // Each stored chunk is a piece of the CSV on its own (deflated alone when compressed).
    const pieces = stored.map((c) => (encoding === 'deflate-raw' ? inflateRawSync(c) : c))
    assert.deepEqual(Buffer.concat(pieces), whole)
    for (const c of pieces.slice(0, -1)) assert.equal(c.length, 10)
    assert.ok(pieces.at(-1)!.length <= 10 && pieces.at(-1)!.length > 0)
    assert.deepEqual(calls, [1, 3, 1], 'the complete chunks of one write are stored in one call')
  })
}

test('the chunk writer stops when the store refuses a chunk (lease lost)', async () => {
  const writer = new ChunkWriter(async () => false, { chunkBytes: 4 })
  assert.equal(await writer.write('abc'), true, 'nothing stored yet')
  assert.equal(await writer.write('def'), false)
  const tail = new ChunkWriter(async () => false, { chunkBytes: 100 })
  await tail.write('short')
  assert.equal(await tail.end(), null)
})

test('export window: end after start, at most max_days', () => {
  const reason = (start: string, end: string, days = 31) => {
    try {
      checkExportWindow(start, end, days)
      return 'ok'
    } catch (err) {
      assert.ok(err instanceof ApiError)
      assert.equal(err.status, 400)
      return err.detail
    }
  }
  assert.equal(reason('2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z'), 'ok')
  assert.deepEqual(reason('2026-01-01T00:00:00Z', '2026-02-01T00:00:00.001Z'), { field: 'end', reason: 'interval_too_long', max_days: 31 })
  assert.deepEqual(reason('2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'), { field: 'end', reason: 'end_not_after_start' })
  assert.equal((reason('2026-01-02T00:00:00Z', '2026-01-01T00:00:00Z') as { reason: string }).reason, 'end_not_after_start')
  assert.deepEqual(reason('2026-01-01T00:00:00Z', '2026-01-03T00:00:00Z', 1), { field: 'end', reason: 'interval_too_long', max_days: 1 })
  assert.equal(reason('2026-01-01T00:00:00+02:00', '2026-01-01T00:00:00Z'), 'ok', 'offsets are honoured')
})
