import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { sql } from 'kysely'
import { LEDGER_SUM, LEDGER_SUMS } from '../../src/store/ledger-sums.ts'
import { startService, type TestService } from '../helpers/service.ts'

// The metric sums every rollup and live read share, run on this test run's store (embedded or PostgreSQL).
let svc: TestService
before(async () => {
  svc = await startService()
})
after(async () => {
  await svc.close()
})

/** One ledger-like row per case: id, event_type, dwell_ms, debit_micros. */
const EVENTS = sql`(VALUES
  (1, 'impression', 9500, 2000),
  (2, 'view', 999, 0),
  (3, 'view', 1000, 0),
  (4, 'view', 10000, 0),
  (5, 'view', 86400000, 0),
  (6, 'offer', 5000, 0),
  (7, 'click', NULL::integer, 0),
  (8, 'impression', 12000, 2500)
) AS e(id, event_type, dwell_ms, debit_micros)`

test('viewable ticks: whole seconds of measured dwell, at most ten per measured view; offers and clicks add none', async () => {
  const r = await sql<{ id: number; ticks: string }>`SELECT e.id, ${LEDGER_SUM.ticks} AS ticks FROM ${EVENTS} GROUP BY e.id ORDER BY e.id`.execute(
    svc.service.store.db,
  )
  assert.deepEqual(
    r.rows.map((row) => Number(row.ticks)),
    [9, 0, 1, 10, 10, 0, 0, 10],
  )
})

test('the rollup sums, in the rollup tables\' column order: events, billable, ticks, clicks, spend', async () => {
  const r = await sql<Record<string, string>>`
    WITH s (events, billable, ticks, clicks, spend) AS (SELECT ${LEDGER_SUMS} FROM ${EVENTS}) SELECT * FROM s`.execute(svc.service.store.db)
  const row = r.rows[0]!
  assert.deepEqual(
    ['events', 'billable', 'ticks', 'clicks', 'spend'].map((k) => Number(row[k])),
    [8, 2, 40, 1, 4500],
  )
})
