import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { ADMIN_TOKEN, startService, type TestService } from '../helpers/service.ts'
import { reviewTable, runReviewSimulation, TARGETS } from '../../scripts/simulate.ts'

// The review simulation of docs/invalid-traffic.md ("How well the review works"): the labelled honest
// and bot families through the real serving endpoints, the real traffic-review job, and per family the
// share of its spend credited back. Long suite: about 180,000 requests.

let svc: TestService
before(async () => {
  svc = await startService({})
})
after(() => svc.close())

test('the daily review credits back the bots and voids almost nothing honest (issue 49 targets)', { timeout: 30 * 60_000 }, async () => {
  const summary = await runReviewSimulation({ seed: 1, service: { baseUrl: svc.baseUrl, adminToken: ADMIN_TOKEN, db: svc.service.store.db } })
  const table = reviewTable(summary)
  assert.deepEqual(summary.requests.refused, {}, 'every request answered as a client expects')
  for (const f of summary.families) {
    assert.ok(f.billedUnits > 0, `${f.family} billed something\n${table}`)
    const t = TARGETS[f.family]
    if (t.minCreditedPct !== undefined) assert.ok(f.creditedPct >= t.minCreditedPct, `${f.family}: ${f.creditedPct} % credited, target ${t.minCreditedPct} %\n${table}`)
    if (t.maxCreditedPct !== undefined) assert.ok(f.creditedPct <= t.maxCreditedPct, `${f.family}: ${f.creditedPct} % voided, at most ${t.maxCreditedPct} %\n${table}`)
  }
})
