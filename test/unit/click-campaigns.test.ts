import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { auctionValue, outstandingUnits, rank, type Ranked } from '../../src/domain/auction.ts'
import { clickDaySlot, judgeClicks, utcDay, type ClickState, type ClickToJudge } from '../../src/domain/clicks.ts'
import { CAMPAIGN_PSEUDO_IMPRESSIONS, compareFractions, CTR_PRIOR, estimateCtr, platformCtr, PLATFORM_PSEUDO_IMPRESSIONS, type Fraction } from '../../src/domain/ctr.ts'

const NOW = Date.parse('2026-11-02T09:00:00.000Z')
const eq = (a: Fraction, b: Fraction) => compareFractions(a, b) === 0
const none = { impressions: 0, clicks: 0 }

test('CTR estimate: the fixed prior without data, the platform\'s CTR for a new campaign, its own CTR with evidence', () => {
  assert.ok(eq(platformCtr(none), CTR_PRIOR), 'no platform data: 1 %')
  assert.ok(eq(estimateCtr(none, none), CTR_PRIOR))
  const platform = { impressions: 90_000, clicks: 2_700 }
  // (2,700 + 10,000 × 1/100) / (90,000 + 10,000) = 2.8 %
  assert.ok(eq(platformCtr(platform), { num: 28n, den: 1000n }))
  assert.ok(eq(estimateCtr(none, platform), platformCtr(platform)), 'a new campaign: neither starved nor favoured')
  // (clicks + 1,000 × 2.8 %) / (impressions + 1,000)
  assert.ok(eq(estimateCtr({ impressions: 1_000, clicks: 100 }, platform), { num: 128n, den: 2000n }))
  // Evidence takes over: a campaign observed far past the pseudo-count is near its own CTR.
  const own = estimateCtr({ impressions: 10_000_000, clicks: 500_000 }, platform)
  assert.ok(compareFractions(own, { num: 499n, den: 10_000n }) > 0 && compareFractions(own, { num: 501n, den: 10_000n }) < 0)
  assert.equal(PLATFORM_PSEUDO_IMPRESSIONS, 10_000)
  assert.equal(CAMPAIGN_PSEUDO_IMPRESSIONS, 1_000)
})

test('CTR estimate: between the campaign\'s own CTR and the platform\'s, never above 1, monotone in clicks', () => {
  fc.assert(
    fc.property(fc.nat(1_000_000), fc.nat(1_000_000), fc.nat(10_000_000), fc.nat(10_000_000), (ci, cc, pi, pc) => {
      const campaign = { impressions: ci, clicks: cc }
      const platform = { impressions: pi, clicks: pc }
      const e = estimateCtr(campaign, platform)
      const p = platformCtr(platform)
      assert.ok(e.den > 0n && e.num >= 0n && e.num <= e.den)
      if (ci > 0 && cc <= ci) {
        const own = { num: BigInt(cc), den: BigInt(ci) }
        const lo = compareFractions(own, p) < 0 ? own : p
        const hi = compareFractions(own, p) < 0 ? p : own
        assert.ok(compareFractions(e, lo) >= 0 && compareFractions(e, hi) <= 0)
      }
      assert.ok(compareFractions(estimateCtr({ impressions: ci, clicks: cc + 1 }, platform), e) >= 0)
    }),
  )
})

test('auction value: an impression campaign is worth its CPM, a click campaign its CPM × CTR', () => {
  assert.deepEqual(auctionValue({ kind: 'impression', cpmMicros: 2_500_000 }, { num: 1n, den: 7n }), { num: 2_500_000n, den: 1n })
  assert.deepEqual(auctionValue({ kind: 'click', cpmMicros: 100_000_000 }, CTR_PRIOR), { num: 100_000_000n, den: 100n })
})

test('rank: expected value first, equal values by creation order, exactly (no float ties)', () => {
  const bid = (seq: number, cpmMicros: number, kind: Ranked['kind']) => ({ seq, cpmMicros, kind })
  const third: Fraction = { num: 1n, den: 3n }
  const ranked = rank(
    [bid(5, 1_000_000, 'impression'), bid(2, 3_000_000, 'click'), bid(3, 999_999, 'impression'), bid(1, 1_000_001, 'impression'), bid(4, 3_000_000, 'click')],
    () => third,
  )
  // 3,000,000 × 1/3 = 1,000,000 exactly: ties with seq 5's CPM, ordered by creation.
  assert.deepEqual(ranked.map((b) => b.seq), [1, 2, 4, 5, 3])
  // A value a float would round: 0.1 + 0.2 style fractions compare exactly.
  const tenth = rank([bid(2, 10, 'click'), bid(1, 1, 'impression')], () => ({ num: 1n, den: 10n }))
  assert.deepEqual(tenth.map((b) => b.seq), [1, 2], '10 × 1/10 = 1: a tie, the earlier wins')
  fc.assert(
    fc.property(fc.array(fc.record({ cpm: fc.integer({ min: 1, max: 1e9 }), click: fc.boolean(), clicks: fc.nat(1000), imps: fc.nat(1000) }), { maxLength: 12 }), (rows) => {
      const bids = rows.map((r, i) => ({ ...bid(i, r.cpm, r.click ? 'click' : 'impression'), ctr: estimateCtr({ impressions: r.imps, clicks: r.clicks }, none) }))
      const out = rank(bids, (b) => b.ctr)
      for (let i = 1; i < out.length; i++) {
        const c = compareFractions(auctionValue(out[i - 1]!, out[i - 1]!.ctr), auctionValue(out[i]!, out[i]!.ctr))
        assert.ok(c > 0 || (c === 0 && out[i - 1]!.seq < out[i]!.seq))
      }
    }),
  )
})

test('outstanding offers of a click campaign count as the clicks they are expected to bring', () => {
  assert.equal(outstandingUnits('impression', 40, CTR_PRIOR), 40)
  assert.equal(outstandingUnits('click', 40, CTR_PRIOR), 0)
  assert.equal(outstandingUnits('click', 250, CTR_PRIOR), 2)
  assert.equal(outstandingUnits('click', 3, { num: 1n, den: 1n }), 3)
})

function click(id: string, over: Partial<ClickToJudge> = {}): ClickToJudge {
  return { impressionId: id, campaignId: 'c1', viewerKey: `viewer-${id}`, source: null, blocked: false, offeredAtMs: NOW - 10_000, ...over }
}

function state(over: Partial<ClickState> = {}): ClickState {
  return { clicked: new Set(), billedDays: new Set(), campaigns: new Map([['c1', { impressions: 1000, billed: 0, cancelledAtMs: null }]]), ...over }
}

const reasons = (out: ReturnType<typeof judgeClicks>) => out.map((o) => (o.billable ? 'billable' : o.reason))

test('judgeClicks: one per impression, offer age, cancellation, one per viewer per campaign per UTC day, inventory', () => {
  assert.deepEqual(reasons(judgeClicks([click('a'), click('b'), click('a')], state({ clicked: new Set(['b']) }), NOW)), ['billable', 'repeat', 'repeat'])
  assert.deepEqual(reasons(judgeClicks([click('old', { offeredAtMs: NOW - 3_600_001 }), click('edge', { offeredAtMs: NOW - 3_600_000 })], state(), NOW)), ['expired', 'billable'])
  const cancelled = state({ campaigns: new Map([['c1', { impressions: 1000, billed: 0, cancelledAtMs: NOW - 5_000 }]]) })
  assert.deepEqual(reasons(judgeClicks([click('before', { offeredAtMs: NOW - 6_000 }), click('after', { offeredAtMs: NOW - 5_000 })], cancelled, NOW)), ['billable', 'block_full'])
  const v = { viewerKey: 'same' }
  assert.deepEqual(reasons(judgeClicks([click('x', v), click('y', v), click('z', { ...v, campaignId: 'c2' })], state({ campaigns: new Map([['c1', { impressions: 9, billed: 0, cancelledAtMs: null }], ['c2', { impressions: 9, billed: 0, cancelledAtMs: null }]]) }), NOW)), ['billable', 'viewer_frequency', 'billable'])
  const yesterday = clickDaySlot('c1', 'same', utcDay(NOW - 86_400_000))
  const today = clickDaySlot('c1', 'same', utcDay(NOW))
  assert.deepEqual(reasons(judgeClicks([click('t', v)], state({ billedDays: new Set([yesterday]) }), NOW)), ['billable'])
  assert.deepEqual(reasons(judgeClicks([click('t', v)], state({ billedDays: new Set([today]) }), NOW)), ['viewer_frequency'])
  const nearlyFull = state({ campaigns: new Map([['c1', { impressions: 2, billed: 0, cancelledAtMs: null }]]) })
  assert.deepEqual(reasons(judgeClicks([click('1'), click('2', { viewerKey: 'viewer-1' }), click('3'), click('4')], nearlyFull, NOW)), ['billable', 'viewer_frequency', 'billable', 'block_full'])
  assert.deepEqual(reasons(judgeClicks([click('unknown', { campaignId: 'gone' })], state(), NOW)), ['block_full'])
  assert.equal(utcDay(Date.parse('2026-11-02T23:59:59.999Z')), '2026-11-02')
  assert.equal(utcDay(Date.parse('2026-11-03T00:00:00.000Z')), '2026-11-03')
})
