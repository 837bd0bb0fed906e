import assert from 'node:assert/strict'
import { test } from 'node:test'
import { assessDwell, blockServed, judgeViews, LEGACY_REASONS, NON_BILLABLE_REASONS, storedReasons, viewerSlot, type LedgerState, type ViewToJudge } from '../../src/domain/delivery.ts'

const NOW = 1_800_000_000_000

function view(id: string, overrides: Partial<ViewToJudge> = {}): ViewToJudge {
  return { impressionId: id, campaignId: 'c1', viewerKey: `viewer-${id}`, surface: 'extension', source: null, offeredAtMs: NOW - 10_000, reason: null, nonce: null, ...overrides }
}

function state(overrides: Partial<LedgerState> = {}): LedgerState {
  return {
    recorded: new Set(),
    lastBillableMs: new Map(),
    spentNonces: new Set(),
    campaigns: new Map([['c1', { impressions: 1000, billed: 0, cancelledAtMs: null }]]),
    ...overrides,
  }
}

const reasons = (outcomes: ReturnType<typeof judgeViews>) => outcomes.map((o) => (o.billable ? 'billable' : o.reason))

test('a repeat of a measured impression is a repeat, in the store or earlier in the batch', () => {
  const out = judgeViews([view('a'), view('b'), view('a')], state({ recorded: new Set(['b']) }), NOW)
  assert.deepEqual(reasons(out), ['billable', 'repeat', 'repeat'])
})

test('a dwell already judged non-billable keeps its reason and takes no slot or inventory', () => {
  const out = judgeViews(
    [view('a', { reason: 'short_dwell', viewerKey: 'v' }), view('b', { viewerKey: 'v' })],
    state({ campaigns: new Map([['c1', { impressions: 1000, billed: 999, cancelledAtMs: null }]]) }),
    NOW,
  )
  assert.deepEqual(reasons(out), ['short_dwell', 'billable'])
})

test('one billable impression per viewer and surface per ten seconds: 9,999 ms after is too soon, 10,000 ms is not', () => {
  const slot = viewerSlot('v', 'extension')
  assert.deepEqual(reasons(judgeViews([view('a', { viewerKey: 'v' })], state({ lastBillableMs: new Map([[slot, NOW - 9_999]]) }), NOW)), ['viewer_frequency'])
  assert.deepEqual(reasons(judgeViews([view('a', { viewerKey: 'v' })], state({ lastBillableMs: new Map([[slot, NOW - 10_000]]) }), NOW)), ['billable'])
  // Within one batch, and per surface.
  const out = judgeViews(
    [view('a', { viewerKey: 'v' }), view('b', { viewerKey: 'v' }), view('c', { viewerKey: 'v', surface: 'terminal' })],
    state(),
    NOW,
  )
  assert.deepEqual(reasons(out), ['billable', 'viewer_frequency', 'billable'])
})

test('inventory: the first views in arrival order take what is left; an unknown campaign has none', () => {
  const campaigns = new Map([['c1', { impressions: 1000, billed: 998, cancelledAtMs: null }]])
  const out = judgeViews([view('a'), view('b'), view('c'), view('d', { campaignId: 'gone' })], state({ campaigns }), NOW)
  assert.deepEqual(reasons(out), ['billable', 'billable', 'block_full', 'block_full'])
})

test('an exhausted campaign does not take the viewer slot: the same viewer can still bill elsewhere', () => {
  const campaigns = new Map([
    ['full', { impressions: 1000, billed: 1000, cancelledAtMs: null }],
    ['c1', { impressions: 1000, billed: 0, cancelledAtMs: null }],
  ])
  const out = judgeViews([view('a', { viewerKey: 'v', campaignId: 'full' }), view('b', { viewerKey: 'v' })], state({ campaigns }), NOW)
  assert.deepEqual(reasons(out), ['block_full', 'billable'])
})

test('offers made at or after the cancellation are not billable (block_full: nothing left to bill); earlier ones are', () => {
  const campaigns = new Map([['c1', { impressions: 1000, billed: 0, cancelledAtMs: NOW - 5_000 }]])
  const out = judgeViews([view('a', { offeredAtMs: NOW - 5_001 }), view('b', { offeredAtMs: NOW - 5_000 })], state({ campaigns }), NOW)
  assert.deepEqual(reasons(out), ['billable', 'block_full'])
})

test('blocks fill in order from the billed total', () => {
  assert.deepEqual([0, 1, 2].map((i) => blockServed(i, 1000, 1500)), [1000, 500, 0])
  assert.deepEqual([0, 1].map((i) => blockServed(i, 1000, 2000)), [1000, 1000])
})

test('one vocabulary of non-billable reasons; the names written before issue 25 read as one of them', () => {
  assert.deepEqual([...NON_BILLABLE_REASONS], ['short_dwell', 'repeat', 'too_fast', 'viewer_frequency', 'expired', 'block_full', 'invalid_traffic', 'unattested', 'invalid_token'])
  for (const current of Object.values(LEGACY_REASONS)) assert.ok(NON_BILLABLE_REASONS.includes(current))
  assert.deepEqual(storedReasons('too_fast'), ['too_fast', 'dwell_exceeds_elapsed'])
  assert.deepEqual(storedReasons('block_full'), ['block_full', 'inventory_exhausted', 'campaign_cancelled'])
  assert.deepEqual(storedReasons('repeat'), ['repeat'])
  // Every stored string maps to exactly one reason, so per-reason counts never count a view twice.
  const all = NON_BILLABLE_REASONS.flatMap(storedReasons)
  assert.equal(new Set(all).size, all.length)
})

test('store-free dwell checks: under 9.5 s is short_dwell, longer than the time since the offer plus 1 s is too_fast', () => {
  assert.equal(assessDwell(9_499, NOW - 60_000, NOW), 'short_dwell')
  assert.equal(assessDwell(10_000, NOW - 8_999, NOW), 'too_fast')
  assert.equal(assessDwell(10_000, NOW - 9_000, NOW), null)
})
