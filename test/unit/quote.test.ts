import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  clearingCpmMicros,
  competesWith,
  estimateDelivery,
  fillWindow,
  impressionsFor,
  placeInQueue,
  priceBand,
  PRICE_BAND_MANTISSAS,
  QUOTE_SAMPLE_MAX,
  QUOTE_WINDOW_MS,
  roundImpressions,
  type QueuedCampaign,
  type QuotedBid,
} from '../../src/domain/quote.ts'
import { checkBid } from '../../src/domain/campaign-order.ts'
import { CTR_PRIOR } from '../../src/domain/ctr.ts'
import { DEFAULT_CONFIG } from '../../src/domain/order-config.ts'

/** Impression campaigns only: no CTR is asked for. */
const noClicks = () => CTR_PRIOR
const queued = (cpmMicros: number, seq: number, over: Partial<QueuedCampaign> = {}): QueuedCampaign => ({
  cpmMicros, seq, kind: 'impression', targetSurface: 'extension', targetCountries: null, impressions: 1000, billed: 0, ...over,
})
const bid = (cpmMicros: number, over: Partial<QuotedBid> = {}): QuotedBid => ({
  cpmMicros, kind: 'impression', impressions: 1000, targetSurface: 'extension', targetCountries: null, ...over,
})

test('placeInQueue: the auction order by price band, the new bid losing ties within a band, remaining inventory ahead summed', () => {
  const queue = [queued(3_000_000, 1, { billed: 400 }), queued(2_000_000, 2, { impressions: 2000, billed: 500 }), queued(1_000_000, 3)]
  assert.deepEqual(placeInQueue(queue, bid(4_000_000), noClicks), { rank: 1, impressionsAhead: 0, ownImpressionsAhead: 0 })
  assert.deepEqual(placeInQueue(queue, bid(3_000_000), noClicks), { rank: 2, impressionsAhead: 600, ownImpressionsAhead: 0 })
  assert.deepEqual(placeInQueue(queue, bid(2_500_000), noClicks), { rank: 2, impressionsAhead: 600, ownImpressionsAhead: 0 })
  // Equal to the second: created later, so behind it; and so is a bid in its band ($2.00–2.20), even above it.
  assert.deepEqual(placeInQueue(queue, bid(2_000_000), noClicks), { rank: 3, impressionsAhead: 2100, ownImpressionsAhead: 0 })
  assert.deepEqual(placeInQueue(queue, bid(2_190_000), noClicks), { rank: 3, impressionsAhead: 2100, ownImpressionsAhead: 0 })
  assert.deepEqual(placeInQueue(queue, bid(2_200_000), noClicks), { rank: 2, impressionsAhead: 600, ownImpressionsAhead: 0 })
  assert.deepEqual(placeInQueue(queue, bid(500_000), noClicks), { rank: 4, impressionsAhead: 3100, ownImpressionsAhead: 0 })
  assert.deepEqual(placeInQueue([], bid(500_000), noClicks), { rank: 1, impressionsAhead: 0, ownImpressionsAhead: 0 })
})

test('placeInQueue: click campaigns and click bids rank by CPM × estimated CTR on each surface, as the auction does', () => {
  const click = queued(100_000_000, 1, { kind: 'click', targetSurface: 'blended', impressions: 500 })
  const imp = queued(2_000_000, 2, { impressions: 700 })
  // The click campaign is worth $100 × 2 % = $2.00 on the extension and $100 × 0.5 % = $0.50 on the terminal.
  const ctrOf = (c: QueuedCampaign | null, surface: 'extension' | 'terminal') =>
    c === null ? { num: 1n, den: 100n } : surface === 'extension' ? { num: 2n, den: 100n } : { num: 1n, den: 200n }
  assert.deepEqual(placeInQueue([click, imp], bid(1_500_000, { targetSurface: 'terminal' }), ctrOf), { rank: 1, impressionsAhead: 0, ownImpressionsAhead: 0 })
  // Blended: ahead where it outranks the bid on either surface (the click campaign on the extension, at 2 %).
  // 25,700 impressions ahead, shown to two significant figures.
  assert.deepEqual(placeInQueue([click, imp], bid(1_500_000, { targetSurface: 'blended' }), ctrOf), { rank: 3, impressionsAhead: 26_000, ownImpressionsAhead: 0 })
  // A click bid of $230 at its own 1 %: $2.30, a band above both on the extension.
  assert.deepEqual(placeInQueue([click, imp], bid(230_000_000, { kind: 'click' }), ctrOf), { rank: 1, impressionsAhead: 0, ownImpressionsAhead: 0 })
  // $210 at 1 % is $2.10: in the band of both campaigns on the extension ($2.00–2.20), so behind both.
  assert.deepEqual(placeInQueue([click, imp], bid(210_000_000, { kind: 'click' }), ctrOf), { rank: 3, impressionsAhead: 26_000, ownImpressionsAhead: 0 })
  // The click campaign's 500 clicks left take 500 / 2 % = 25,000 impressions ahead on the extension.
  assert.deepEqual(placeInQueue([click, imp], bid(1_500_000), ctrOf), { rank: 3, impressionsAhead: 26_000, ownImpressionsAhead: 0 })
})

test('impressionsFor: clicks take units / CTR impressions, rounded up; impressions are themselves', () => {
  assert.equal(impressionsFor(1000, null), 1000)
  assert.equal(impressionsFor(1000, { num: 1n, den: 100n }), 100_000)
  assert.equal(impressionsFor(10, { num: 3n, den: 100n }), 334)
  assert.equal(impressionsFor(0, { num: 3n, den: 100n }), 0)
})

test('placeInQueue: only campaigns that serve some of the same traffic count', () => {
  const queue = [
    queued(9, 1, { targetSurface: 'terminal' }),
    queued(8, 2, { targetSurface: 'blended', impressions: 10 }),
    queued(7, 3, { targetCountries: new Set(['FR']), impressions: 20 }),
    queued(6, 4, { targetCountries: new Set(['DE', 'US']), impressions: 40 }),
  ]
  // Extension, worldwide: every campaign on the extension (any country list overlaps the world).
  assert.deepEqual(placeInQueue(queue, bid(1), noClicks), { rank: 4, impressionsAhead: 70, ownImpressionsAhead: 0 })
  // Extension, DE: the blended one and the DE/US one.
  assert.deepEqual(placeInQueue(queue, bid(1, { targetCountries: ['DE'] }), noClicks), { rank: 3, impressionsAhead: 50, ownImpressionsAhead: 0 })
  // Terminal: the terminal and blended campaigns only.
  assert.deepEqual(placeInQueue(queue, bid(1, { targetSurface: 'terminal' }), noClicks).rank, 3)
  // Blended (split off): every surface.
  assert.deepEqual(placeInQueue(queue, bid(1, { targetSurface: 'blended', targetCountries: ['JP'] }), noClicks).rank, 3)
})

test('placeInQueue: the part of the impressions ahead that is the advertiser\'s own', () => {
  const mineA = { ...queued(3_000_000, 1, { billed: 400 }), userId: 'me' }
  const theirs = { ...queued(2_000_000, 2, { impressions: 2000, billed: 500 }), userId: 'them' }
  const mineB = { ...queued(1_000_000, 3), userId: 'me' }
  const isMine = (c: { userId: string }) => c.userId === 'me'
  assert.deepEqual(placeInQueue([mineA, theirs, mineB], bid(500_000), noClicks, isMine), { rank: 4, impressionsAhead: 3_100, ownImpressionsAhead: 1_600 })
  assert.deepEqual(placeInQueue([mineA, theirs, mineB], bid(2_500_000), noClicks, isMine), { rank: 2, impressionsAhead: 600, ownImpressionsAhead: 600 })
  assert.deepEqual(placeInQueue([mineA, theirs, mineB], bid(2_500_000), noClicks), { rank: 2, impressionsAhead: 600, ownImpressionsAhead: 0 })
})

test('competesWith: surface and country overlap', () => {
  assert.equal(competesWith({ targetSurface: 'terminal', targetCountries: null }, { targetSurface: 'extension', targetCountries: null }), false)
  assert.equal(competesWith({ targetSurface: 'blended', targetCountries: null }, { targetSurface: 'terminal', targetCountries: ['US'] }), true)
  assert.equal(competesWith({ targetSurface: 'extension', targetCountries: new Set(['US']) }, { targetSurface: 'extension', targetCountries: ['DE'] }), false)
  assert.equal(competesWith({ targetSurface: 'extension', targetCountries: new Set(['US']) }, { targetSurface: 'extension', targetCountries: null }), true)
})

test('fillWindow: the last hour, shortened to the sample when it is full', () => {
  const now = 10 * QUOTE_WINDOW_MS
  assert.deepEqual(fillWindow(now, { billable: 0, oldestMs: null }), { startMs: now - QUOTE_WINDOW_MS, endMs: now, billable: 0 })
  assert.deepEqual(fillWindow(now, { billable: 12, oldestMs: now - 5_000 }), { startMs: now - QUOTE_WINDOW_MS, endMs: now, billable: 12 })
  assert.deepEqual(fillWindow(now, { billable: QUOTE_SAMPLE_MAX, oldestMs: now - 60_000 }), { startMs: now - 60_000, endMs: now, billable: QUOTE_SAMPLE_MAX })
})

test('estimateDelivery: queue ahead then the volume, at the window rate, rounded up to the second', () => {
  const window = { startMs: 0, endMs: 3_600_000, billable: 3_600 } // one per second
  assert.deepEqual(estimateDelivery({ rank: 3, impressionsAhead: 4_200 }, 1000, window), { startMs: 3_600_000 + 4_200_000, completionMs: 3_600_000 + 5_200_000 })
  assert.deepEqual(estimateDelivery({ rank: 1, impressionsAhead: 0 }, 1000, window), { startMs: 3_600_000, completionMs: 4_600_000 })
  // Three in an hour: 1,200 s each; 1 ahead → 1,200 s; a fraction of a second rounds up.
  const slow = { startMs: 0, endMs: 3_600_000, billable: 3 }
  assert.deepEqual(estimateDelivery({ rank: 2, impressionsAhead: 1 }, 1000, slow), { startMs: 3_600_000 + 1_200_000, completionMs: 3_600_000 + 1_201_200_000 })
  const odd = { startMs: 0, endMs: 1_000, billable: 3 }
  assert.deepEqual(estimateDelivery({ rank: 2, impressionsAhead: 1 }, 1000, odd), { startMs: 2_000, completionMs: 335_000 })
  assert.equal(estimateDelivery({ rank: 1, impressionsAhead: 0 }, 1000, { startMs: 0, endMs: 3_600_000, billable: 0 }), null)
})

test('clearingCpmMicros: down to its price band, never below the floor, null without a winner', () => {
  assert.equal(clearingCpmMicros(null, 500_000), null)
  assert.equal(clearingCpmMicros(2_570_000, 500_000), 2_400_000)
  assert.equal(clearingCpmMicros(2_400_000, 500_000), 2_400_000)
  assert.equal(clearingCpmMicros(12_345_678, 500_000), 12_000_000)
  assert.equal(clearingCpmMicros(570_000, 550_000), 560_000)
  assert.equal(clearingCpmMicros(570_000, 565_000), 565_000)
  assert.equal(clearingCpmMicros(400_000, 500_000), 500_000)
})

test('priceBand: the E24 edge at or below the value, at every scale; every band is at least 5 % wide', () => {
  const band = (micros: number | bigint, den = 1n) => priceBand({ num: BigInt(micros), den })
  assert.equal(band(3_370_000), 3_300_000n)
  assert.equal(band(3_599_999), 3_300_000n)
  assert.equal(band(3_600_000), 3_600_000n)
  assert.equal(band(999_999), 910_000n)
  assert.equal(band(1_000_000), 1_000_000n)
  assert.equal(band(250_000_000, 100n), 2_400_000n, 'a click bid of $250 at 1 %: worth $2.50, in the $2.40 band')
  assert.equal(band(99), 91n)
  assert.equal(band(7), 7n)
  // Consecutive edges, from 10 micro-USD to $10,000,000: the narrowest band is $1.50–1.60 (6.7 %).
  const edges: bigint[] = []
  for (let scale = 1n; scale <= 10n ** 12n; scale *= 10n) for (const m of PRICE_BAND_MANTISSAS) edges.push(BigInt(m) * scale)
  let narrowest = Infinity
  for (let i = 1; i < edges.length; i++) {
    assert.equal(band(edges[i]!), edges[i], 'an edge is its own band')
    assert.equal(band(edges[i]! - 1n), edges[i - 1], 'one micro below an edge is the band before')
    narrowest = Math.min(narrowest, Number(edges[i]!) / Number(edges[i - 1]!))
  }
  assert.ok(narrowest >= 1.05, String(narrowest))
  assert.ok(Math.abs(narrowest - 16 / 15) < 1e-9)
})

test('roundImpressions: two significant figures', () => {
  for (const [n, shown] of [[0, 0], [7, 7], [96, 96], [997, 1000], [1_000, 1_000], [12_345, 12_000], [12_500, 13_000], [25_700, 26_000], [1_234_567, 1_200_000]]) assert.equal(roundImpressions(n!), shown, String(n))
})

test('a bisection on placeInQueue pins no competitor closer than its band, and every band is over 5 % wide', () => {
  // For competitors at bids across scales, the bisection of the review (about 33 quotes) finds where the rank changes:
  // that is always the next band's edge, whatever the competitor's exact bid, so the bids it cannot tell apart span the band.
  for (const competitor of [500_001, 1_234_567, 1_500_000, 1_599_999, 3_370_000, 9_999_999, 47_000_000, 123_456_789]) {
    const queue = [queued(competitor, 1, { impressions: 1000, billed: 123 })]
    let lo = 1
    let hi = 1_000_000_000
    let reads = 0
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2)
      reads++
      if (placeInQueue(queue, bid(mid), noClicks).rank === 1) hi = mid
      else lo = mid
    }
    assert.ok(reads <= 33, String(reads))
    const edge = Number(priceBand({ num: BigInt(competitor), den: 1n }))
    assert.ok(hi > competitor, 'the rank changes above the competitor, never at it')
    // Every competitor bid in [edge, hi) gives the same answers to every quote: the bisection cannot tell them apart.
    for (const other of [edge, Math.floor((edge + hi) / 2), hi - 1]) {
      const twin = [queued(other, 1, { impressions: 1000, billed: 123 })]
      for (const probe of [lo, hi, edge, competitor, Math.floor(competitor * 1.01)]) assert.deepEqual(placeInQueue(twin, bid(probe), noClicks), placeInQueue(queue, bid(probe), noClicks))
    }
    assert.ok(hi / edge >= 1.05, `${competitor}: the bids consistent with every answer span ${edge}–${hi}`)
    assert.equal(placeInQueue(queue, bid(lo), noClicks).impressionsAhead, 880, '877 impressions left, shown as 880')
  }
})

test('checkBid: the create rules and reasons of the bid, volume and targeting', () => {
  const reason = (f: () => unknown) => {
    try {
      f()
    } catch (err) {
      return (err as { detail: { field: string; reason: string } }).detail
    }
    return null
  }
  assert.deepEqual(reason(() => checkBid({ cpm_usd: 0.4, impressions: 1000 }, DEFAULT_CONFIG)), { field: 'cpm_usd', reason: 'below_minimum', minimum: 0.5 })
  assert.equal(reason(() => checkBid({ cpm_usd: 1.0000001, impressions: 1000 }, DEFAULT_CONFIG))?.reason, 'too_precise')
  assert.equal(reason(() => checkBid({ cpm_usd: 100, impressions: 100_000 }, DEFAULT_CONFIG))?.reason, 'order_total_exceeded')
  assert.equal(reason(() => checkBid({ cpm_usd: 1, impressions: 1000, target_surface: 'terminal' }, { ...DEFAULT_CONFIG, surface_split_enabled: false }))?.reason, 'surface_split_not_enabled')
  assert.equal(reason(() => checkBid({ cpm_usd: 1, impressions: 1000, target_countries: ['US'] }, { ...DEFAULT_CONFIG, country_targeting_enabled: false }))?.reason, 'country_targeting_not_enabled')
  const ok = checkBid({ cpm_usd: 1.25, impressions: 3000, target_countries: ['US', 'DE', 'US'] }, DEFAULT_CONFIG)
  assert.deepEqual(ok, { cpmMicros: 1_250_000, impressions: 3000, blocks: 3, kind: 'impression', targetSurface: 'extension', targetCountries: ['DE', 'US'], targetTopics: null, faceMicros: 3_750_000 })
  assert.equal(checkBid({ cpm_usd: 1, impressions: 1000 }, { ...DEFAULT_CONFIG, surface_split_enabled: false }).targetSurface, 'blended')
})
