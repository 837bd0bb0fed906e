import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadSettings } from '../../src/platform/env.ts'
import { ApiError } from '../../src/domain/errors.ts'
import {
  assertLedgerRetained,
  claimsPrunedBefore,
  monthsAhead,
  partitionOf,
  partitionsToDrop,
  retainedFromAfter,
  retentionCutoff,
} from '../../src/domain/ledger-retention.ts'

// The ledger's partitions and retention rules (docs/decisions/0358-retention-ledger-partitions.md).

test('LEDGER_RETENTION_DAYS: default 400, whole days 35-10000, a bad value names the variable', () => {
  assert.equal(loadSettings({}).ledgerRetentionDays, 400)
  assert.equal(loadSettings({ LEDGER_RETENTION_DAYS: '35' }).ledgerRetentionDays, 35)
  for (const bad of ['34', '10001', '400.5', 'forever', '-1']) {
    assert.throws(() => loadSettings({ LEDGER_RETENTION_DAYS: bad }), /LEDGER_RETENTION_DAYS:/, bad)
  }
})

test('partitions: the current month and the next two, across a year end; names and bounds', () => {
  assert.deepEqual(monthsAhead(Date.parse('2026-11-30T23:59:59Z')), ['2026-11-01', '2026-12-01', '2027-01-01'])
  assert.deepEqual(partitionOf('2026-12-01'), { name: 'ledger_events_2026_12', fromDay: '2026-12-01', toDay: '2027-01-01' })
})

test('a partition is dropped only when every day is rolled up and past retention', () => {
  const now = Date.parse('2026-11-02T09:00:00Z')
  assert.equal(retentionCutoff(now, 35), '2026-09-28')
  const parts = ['2026-07-01', '2026-08-01', '2026-09-01', '2026-10-01'].map(partitionOf)
  assert.deepEqual(partitionsToDrop(parts, now, 35, '2026-11-01').map((p) => p.name), ['ledger_events_2026_07', 'ledger_events_2026_08'])
  assert.deepEqual(partitionsToDrop(parts, now, 35, '2026-08-30').map((p) => p.name), ['ledger_events_2026_07'], 'August not rolled up to its end')
  assert.deepEqual(partitionsToDrop(parts, now, 35, null), [], 'nothing rolled up')
  assert.deepEqual(partitionsToDrop(parts, now, 400, '2026-11-01'), [])
  assert.equal(retainedFromAfter(partitionsToDrop(parts, now, 35, '2026-11-01'), null), '2026-09-01')
  assert.equal(retainedFromAfter([], '2026-05-01'), '2026-05-01')
})

test('a ledger read before the retained day is 400 beyond_retention naming the oldest day', () => {
  assert.doesNotThrow(() => assertLedgerRetained('start', 0, null))
  assert.doesNotThrow(() => assertLedgerRetained('start', Date.parse('2026-09-01T00:00:00Z'), '2026-09-01'))
  assert.throws(
    () => assertLedgerRetained('start', Date.parse('2026-08-31T23:59:59Z'), '2026-09-01'),
    (err: ApiError) => err.status === 400 && JSON.stringify(err.detail) === JSON.stringify({ field: 'start', reason: 'beyond_retention', oldest_available_day: '2026-09-01' }),
  )
})

test('claims: measured views a day old, everything else from the retained day', () => {
  const now = Date.parse('2026-11-02T09:00:00Z')
  assert.deepEqual(claimsPrunedBefore(now, null), { measured: new Date('2026-11-01T09:00:00Z'), all: null })
  assert.deepEqual(claimsPrunedBefore(now, '2026-09-01').all, new Date('2026-09-01T00:00:00Z'))
})
