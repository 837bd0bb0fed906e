/** reports.js and rules.js: once-only delivery, billable spacing and token spending, whatever the storage. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { deliverReports, memoryQueue, parseReports, type StoredReport } from '../src/reports.js'
import { BILLABLE_SPACING_MS, failureBackoffMs, isBillable, isFinal, MAX_BACKOFF_MS, spacingWaitMs } from '../src/rules.js'

test('rules: billable from 9.5 s; 204, 404 and 410 end a report; back-off doubles to 30 s; spacing from the last billable view', () => {
  assert.equal(isBillable(9_499), false)
  assert.equal(isBillable(9_500), true)
  assert.deepEqual([204, 404, 410, 0, 400, 429, 500, 503].map(isFinal), [true, true, true, false, false, false, false, false])
  assert.deepEqual([1, 2, 3, 6, 99].map(failureBackoffMs), [1_000, 2_000, 4_000, MAX_BACKOFF_MS, MAX_BACKOFF_MS])
  assert.equal(spacingWaitMs(null, 5_000), 0)
  assert.equal(spacingWaitMs(1_000, 1_000), BILLABLE_SPACING_MS)
  assert.equal(spacingWaitMs(1_000, 1_000 + BILLABLE_SPACING_MS), 0)
  assert.equal(spacingWaitMs(50_000, 1_000), 0, 'a last time in the future (a clock that went back) is ignored')
})

function harness(initial: StoredReport[] = [], statuses: number[] = []) {
  let now = 100_000
  const saved: StoredReport[][] = []
  const queue = memoryQueue({ initial, save: (r) => saved.push(r) })
  const sent: { id: string; dwell: number; token: string | null }[] = []
  let last: number | null = null
  const slept: number[] = []
  const tokens = ['t1', 't2', 't3']
  const pass = (withTokens = true) =>
    deliverReports({
      claims: queue.claims(),
      lastBillable: { get: () => last, set: (at) => void (last = at) },
      takeToken: withTokens ? () => tokens.shift() ?? null : null,
      send: async (r, token) => {
        sent.push({ id: r.impression_id, dwell: r.dwell_ms, token })
        return statuses.shift() ?? 204
      },
      clock: () => now,
      sleep: async (ms) => {
        slept.push(ms)
        now += ms
      },
    })
  return { queue, saved, sent, slept, pass, tokens, advance: (ms: number) => (now += ms), setLast: (at: number | null) => (last = at) }
}

test('a report answered 204, 404 or 410 is never sent again; any other answer keeps it, with its token, and ends the pass', async () => {
  const h = harness([], [503])
  h.queue.add({ impression_id: 'a', dwell_ms: 10_000, queued_at: 1 })
  h.queue.add({ impression_id: 'b', dwell_ms: 3_000, queued_at: 2 })
  assert.equal(h.queue.add({ impression_id: 'a', dwell_ms: 10_000, queued_at: 3 }), false, 'one report per impression')
  assert.deepEqual(await h.pass(), { sent: 0, failed: true })
  assert.deepEqual(h.sent, [{ id: 'a', dwell: 10_000, token: 't1' }], 'the pass stops at the first failure')
  assert.equal(h.queue.list()[0]?.token, 't1', 'the token is recorded before the report is sent')
  assert.deepEqual(h.saved.at(-1)?.map((r) => r.impression_id), ['a', 'b'])
  h.advance(BILLABLE_SPACING_MS)
  assert.deepEqual(await h.pass(), { sent: 2, failed: false })
  assert.deepEqual(h.sent.slice(1), [{ id: 'a', dwell: 10_000, token: 't1' }, { id: 'b', dwell: 3_000, token: null }], 'the retry spends the same token; a short view spends none')
  assert.deepEqual(h.tokens, ['t2', 't3'])
  assert.equal(h.queue.size(), 0)
  assert.deepEqual(h.saved.at(-1), [])
  assert.deepEqual(await h.pass(), { sent: 0, failed: false })
  assert.equal(h.sent.length, 3, 'nothing is sent twice')
})

test('billable views leave at least 10.5 s apart, one wait per pass; 404 and 410 end a report too', async () => {
  const h = harness([], [204, 410, 404])
  for (const id of ['a', 'b', 'c']) h.queue.add({ impression_id: id, dwell_ms: 10_000, queued_at: 1 })
  h.setLast(100_000 - 4_000)
  assert.deepEqual(await h.pass(false), { sent: 1, failed: false })
  assert.deepEqual(h.slept, [BILLABLE_SPACING_MS - 4_000])
  assert.deepEqual(h.sent.map((s) => s.id), ['a'])
  assert.equal(h.queue.size(), 2, 'the second billable view waits for the next pass')
  h.advance(BILLABLE_SPACING_MS)
  // 410 and 404: done, and neither counts as a billable view acknowledged (no wait before the next).
  assert.deepEqual(await h.pass(false), { sent: 2, failed: false })
  assert.deepEqual(h.slept, [BILLABLE_SPACING_MS - 4_000])
  assert.equal(h.queue.size(), 0)
  assert.deepEqual(await h.pass(false), { sent: 0, failed: false })
  assert.equal(h.sent.length, 3)
})

test('a claimed report is not handed out twice while a pass is under way', async () => {
  const h = harness()
  h.queue.add({ impression_id: 'a', dwell_ms: 1_000, queued_at: 1 })
  const first = h.queue.claims()
  const claim = first.next().value
  assert.ok(claim)
  assert.deepEqual([...h.queue.claims()], [null])
  claim.retry()
  assert.equal([...h.queue.claims()].filter(Boolean).length, 1)
})

test('kept reports: what is not shaped like one is dropped; tokens are kept', () => {
  assert.deepEqual(parseReports([{ impression_id: 'a', dwell_ms: 10_000, queued_at: 5, token: 'tok' }, { impression_id: 'b', dwell_ms: -1 }, null, 'x', { impression_id: 'c', dwell_ms: 1 }]), [
    { impression_id: 'a', dwell_ms: 10_000, queued_at: 5, token: 'tok' },
    { impression_id: 'c', dwell_ms: 1, queued_at: 0 },
  ])
  assert.deepEqual(parseReports({}), [])
  const q = memoryQueue({ initial: parseReports([{ impression_id: 'a', dwell_ms: 10_000, queued_at: 5, token: 'tok' }]) })
  const claim = q.claims().next().value
  assert.equal(claim?.token, 'tok')
})
