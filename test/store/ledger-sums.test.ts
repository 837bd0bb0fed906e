import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { sql } from 'kysely'
import { LEDGER_SUM, LEDGER_SUMS_AS } from '../../src/store/ledger-sums.ts'
import { startService, type TestService } from '../helpers/service.ts'

// The metric sums every rollup and live read share, run on this test run's store (embedded or PostgreSQL).
let svc: TestService
before(async () => {
  svc = await startService()
})
after(async () => {
  await svc.close()
})

/** One ledger-like row per case: id, event_type, dwell_ms, debit_micros, reason (old names among them), attestation_token (row 8 attested). */
const EVENTS = sql`(VALUES
  (1, 'impression', 9500, 2000, NULL::text, NULL::bytea),
  (2, 'view', 999, 0, 'short_dwell', NULL),
  (3, 'view', 1000, 0, 'dwell_exceeds_elapsed', NULL),
  (4, 'view', 10000, 0, 'viewer_frequency', NULL),
  (5, 'view', 86400000, 0, 'inventory_exhausted', NULL),
  (6, 'view', 500, 0, 'short_dwell', NULL),
  (7, 'click', NULL::integer, 0, NULL, NULL),
  (8, 'impression', 12000, 2500, NULL, '\\x01'::bytea),
  (9, 'repeat_view', 10000, 0, 'repeat', NULL),
  (10, 'expired_view', 10000, 0, 'expired', NULL),
  (11, 'view', 10000, 0, 'campaign_cancelled', NULL),
  (12, 'click', NULL::integer, 0, 'viewer_frequency', NULL)
) AS e(id, event_type, dwell_ms, debit_micros, reason, attestation_token)`

test('viewable ticks: whole seconds of measured dwell, at most ten per measured view; a view under a second and clicks add none', async () => {
  const r = await sql<{ id: number; ticks: string }>`SELECT e.id, ${LEDGER_SUM.ticks} AS ticks FROM ${EVENTS} GROUP BY e.id ORDER BY e.id`.execute(
    svc.service.store.db,
  )
  assert.deepEqual(
    r.rows.map((row) => Number(row.ticks)),
    [9, 0, 1, 10, 10, 0, 0, 10, 0, 0, 10, 0],
  )
})

test('the rollup sums, in the rollup tables\' column order: events, billable, ticks, clicks, spend, then one count per non-billable reason', async () => {
  const r = await sql<Record<string, string>>`
    SELECT ${LEDGER_SUMS_AS} FROM ${EVENTS}`.execute(svc.service.store.db)
  const row = r.rows[0]!
  assert.deepEqual(
    ['events', 'billable_impressions', 'viewable_ticks', 'clicks', 'spend_micros'].map((k) => Number(row[k])),
    [12, 2, 50, 2, 4500],
  )
  // Old reason names read as the current ones; a reason on a row that is no view report (a click) is never counted.
  assert.deepEqual(
    ['nb_short_dwell', 'nb_repeat', 'nb_too_fast', 'nb_viewer_frequency', 'nb_expired', 'nb_block_full'].map((k) => Number(row[k])),
    [2, 1, 1, 1, 1, 2],
  )
  // Of the two billable impressions, the one that carried a Privacy Pass token.
  assert.equal(Number(row.attested_billable_impressions), 1)
  const recorded = await sql<{ n: string }>`
    SELECT count(*) AS n FROM ${EVENTS} WHERE e.event_type IN ('impression', 'view', 'repeat_view', 'expired_view')`.execute(svc.service.store.db)
  assert.equal(Number(recorded.rows[0]!.n), 2 + 8, 'billable + every non-billable reason = recorded views')
})
