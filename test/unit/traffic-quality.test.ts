import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  DWELL_MIN_IMPRESSIONS,
  HEAVY_VIEWER_ABOVE,
  INVALID_SCORE,
  judgeDay,
  LISTED_PER_KIND,
  MANY_VIEWERS_MIN,
  NO_CLICKS_MIN_IMPRESSIONS,
  previousUtcDay,
  REGULAR_MIN_VIEWS,
  scoreSource,
  scoreViewer,
  utcDayRange,
  type SourceFigures,
  type TrafficFigures,
  type ViewerFigures,
} from '../../src/domain/traffic-quality.ts'
import { BlockList } from '../../src/domain/invalid-traffic.ts'

/** One measured view as the ledger holds it: billable or not, its dwell and offer age, and whether it was clicked. */
interface Sample {
  viewer: string
  billable: boolean
  dwellMs: number
  offerAgeMs: number
  clicked?: boolean
}

/** The day's figures of a set of views, computed as the store's query computes them. */
function figuresOf(samples: readonly Sample[]): TrafficFigures {
  const ages = samples.map((s) => s.offerAgeMs)
  const mean = ages.length ? ages.reduce((a, b) => a + b, 0) / ages.length : null
  const stddev = mean === null ? null : Math.sqrt(ages.reduce((a, b) => a + (b - mean) ** 2, 0) / ages.length)
  const billable = samples.filter((s) => s.billable)
  return {
    views: samples.length,
    impressions: billable.length,
    voided: 0,
    invalidViews: 0,
    clicks: samples.filter((s) => s.clicked).length,
    debitMicros: billable.length * 2_500,
    dwellAtThreshold: billable.filter((s) => s.dwellMs >= 9_500 && s.dwellMs < 9_700).length,
    offerAgeCount: ages.length,
    offerAgeMeanMs: mean,
    offerAgeStddevMs: stddev,
  }
}

function sourceOf(source: string, samples: readonly Sample[]): SourceFigures {
  const perViewer = new Map<string, number>()
  for (const s of samples) if (s.billable) perViewer.set(s.viewer, (perViewer.get(s.viewer) ?? 0) + 1)
  return { source, ...figuresOf(samples), viewers: new Set(samples.map((s) => s.viewer)).size, topViewerImpressions: Math.max(0, ...perViewer.values()) }
}

function viewerOf(viewerKey: string, samples: readonly Sample[]): ViewerFigures {
  return { viewerKey, ...figuresOf(samples), sources: 1 }
}

/** A small deterministic sequence in [0, 1), so the honest samples vary the same way on every run. */
function sequence(seed: number): () => number {
  let x = seed
  return () => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31
    return x / 2 ** 31
  }
}

/** An office: 50 honest viewers behind one address, 2-5 views each, dwell 9.5-30 s, irregular report times, some clicks. */
function office(): Sample[] {
  const next = sequence(7)
  const samples: Sample[] = []
  for (let v = 0; v < 50; v++) {
    const views = 2 + Math.floor(next() * 4)
    for (let i = 0; i < views; i++) {
      const dwellMs = 9_500 + Math.floor(next() * 20_500)
      samples.push({ viewer: `office-${v}`, billable: true, dwellMs, offerAgeMs: dwellMs + Math.floor(next() * 60_000), clicked: next() < 0.05 })
    }
  }
  return samples
}

/** A bot: many viewer ids, every view at dwell 9.6 s reported exactly 10 s after its decision, never a click. */
function bot(views: number, viewers = 25): Sample[] {
  return Array.from({ length: views }, (_, i) => ({ viewer: `bot-${i % viewers}`, billable: true, dwellMs: 9_600, offerAgeMs: 10_000 }))
}

test('an office of 50 honest viewers behind one address is valid: many viewers alone does not make invalid traffic', () => {
  const samples = office()
  assert.ok(samples.some((s) => s.clicked), 'the office clicks now and then')
  const verdict = scoreSource(sourceOf('203.0.113.7', samples), false)
  assert.deepEqual(verdict.signals, ['many_viewers'])
  assert.equal(verdict.score, 25)
  assert.equal(verdict.invalid, false)
  // Each of its viewers is valid too.
  for (let v = 0; v < 50; v++) {
    const mine = samples.filter((s) => s.viewer === `office-${v}`)
    assert.equal(scoreViewer(viewerOf(`office-${v}`, mine), false).score, 0)
  }
})

test('a bot source with dwell 9,600 ms and offer age exactly 10,000 ms is invalid', () => {
  const verdict = scoreSource(sourceOf('198.51.100.9', bot(40)), false)
  assert.deepEqual(verdict.signals, ['dwell_at_threshold', 'regular_intervals'])
  assert.equal(verdict.score, 60)
  assert.equal(verdict.invalid, true)
  assert.equal(INVALID_SCORE, 60)
  // One busy bot viewer of it, alone: the same two signals.
  const one = scoreViewer(viewerOf('bot-0', bot(30, 1)), false)
  assert.deepEqual(one.signals, ['dwell_at_threshold', 'regular_intervals'])
  assert.equal(one.invalid, true)
})

test('each signal at its threshold', () => {
  // dwell_at_threshold: 20 impressions, 16 (80 %) in [9500, 9700); 15 is not enough; 9,700 is outside.
  const dwell = (inWindow: number, total: number, atMs = 9_699) =>
    scoreViewer(
      viewerOf(
        'v',
        Array.from({ length: total }, (_, i) => ({ viewer: 'v', billable: true, dwellMs: i < inWindow ? atMs : 20_000, offerAgeMs: 20_000 + i * 1_000 })),
      ),
      false,
    ).signals
  assert.deepEqual(dwell(16, DWELL_MIN_IMPRESSIONS), ['dwell_at_threshold'])
  assert.deepEqual(dwell(15, DWELL_MIN_IMPRESSIONS), [])
  assert.deepEqual(dwell(16, DWELL_MIN_IMPRESSIONS, 9_700), [])
  assert.deepEqual(dwell(19, DWELL_MIN_IMPRESSIONS - 1), [], 'too few impressions to tell')

  // regular_intervals: 20 views whose offer ages deviate by under 250 ms; 19 views, or 250 ms, do not fire.
  const regular = (n: number, spreadMs: number) =>
    scoreViewer(viewerOf('v', Array.from({ length: n }, (_, i) => ({ viewer: 'v', billable: false, dwellMs: 3_000, offerAgeMs: 10_000 + (i % 2 ? spreadMs : -spreadMs) }))), false)
      .signals
  assert.deepEqual(regular(REGULAR_MIN_VIEWS, 249), ['regular_intervals'])
  assert.deepEqual(regular(REGULAR_MIN_VIEWS, 250), [])
  assert.deepEqual(regular(REGULAR_MIN_VIEWS - 1, 0), [])

  // no_clicks: 200 impressions and no click; one click, or 199 impressions, do not fire.
  const clicks = (n: number, clicked: number) =>
    scoreViewer(
      viewerOf('v', Array.from({ length: n }, (_, i) => ({ viewer: 'v', billable: true, dwellMs: 12_000 + (i % 7) * 1_000, offerAgeMs: 15_000 + (i % 13) * 997, clicked: i < clicked }))),
      false,
    )
  assert.deepEqual(clicks(NO_CLICKS_MIN_IMPRESSIONS, 0).signals, ['no_clicks'])
  assert.equal(clicks(NO_CLICKS_MIN_IMPRESSIONS, 0).score, 15)
  assert.deepEqual(clicks(NO_CLICKS_MIN_IMPRESSIONS, 1).signals, [])
  assert.deepEqual(clicks(NO_CLICKS_MIN_IMPRESSIONS - 1, 0).signals, [])

  // many_viewers: 30 distinct viewers, sources only.
  const many = (n: number) =>
    scoreSource(sourceOf('192.0.2.1', Array.from({ length: n }, (_, i) => ({ viewer: `v${i}`, billable: false, dwellMs: 1_000, offerAgeMs: 5_000 + i * 1_000 }))), false).signals
  assert.deepEqual(many(MANY_VIEWERS_MIN), ['many_viewers'])
  assert.deepEqual(many(MANY_VIEWERS_MIN - 1), [])
})

test('heavy_viewer: a viewer over 1,500 impressions in the day, and every source it came through', () => {
  const figures = (impressions: number): ViewerFigures => ({
    viewerKey: 'heavy',
    views: impressions,
    impressions,
    voided: 0,
    invalidViews: 0,
    clicks: 3,
    debitMicros: 0,
    dwellAtThreshold: 0,
    offerAgeCount: 0,
    offerAgeMeanMs: null,
    offerAgeStddevMs: null,
    sources: 1,
  })
  assert.deepEqual(scoreViewer(figures(HEAVY_VIEWER_ABOVE + 1), false).signals, ['heavy_viewer'])
  assert.deepEqual(scoreViewer(figures(HEAVY_VIEWER_ABOVE), false).signals, [])
  const source: SourceFigures = { ...sourceOf('192.0.2.2', [{ viewer: 'heavy', billable: true, dwellMs: 12_000, offerAgeMs: 13_000, clicked: true }]), topViewerImpressions: HEAVY_VIEWER_ABOVE + 1 }
  assert.deepEqual(scoreSource(source, false).signals, ['heavy_viewer'])
})

test('blocked scores 100 whatever else; signals add up and the sum is capped at 100', () => {
  const quiet = sourceOf('203.0.113.8', [{ viewer: 'a', billable: true, dwellMs: 12_000, offerAgeMs: 14_000 }])
  assert.deepEqual(scoreSource(quiet, true), { score: 100, signals: ['blocked'], invalid: true })
  const everything: SourceFigures = { ...sourceOf('203.0.113.9', bot(400, 40)), topViewerImpressions: 2_000 }
  const verdict = scoreSource(everything, false)
  assert.deepEqual(verdict.signals, ['many_viewers', 'heavy_viewer', 'dwell_at_threshold', 'regular_intervals', 'no_clicks'])
  assert.equal(verdict.score, 100, '25 + 30 + 30 + 30 + 15, capped')
})

test('the block list as the review asks it: ranges hold their sources (IPv4 and IPv6 /64), viewer keys match exactly', () => {
  const blocked = new BlockList([
    { kind: 'cidr', value: '203.0.113.0/24' },
    { kind: 'cidr', value: '2001:db8:1::/48' },
    { kind: 'viewer', value: 'AbC_-123' },
  ])
  assert.equal(blocked.blocksSource('203.0.113.200'), true)
  assert.equal(blocked.blocksSource('203.0.114.1'), false)
  assert.equal(blocked.blocksSource('2001:db8:1:2::/64'), true)
  assert.equal(blocked.blocksSource('2001:db8:2::/64'), false)
  assert.equal(blocked.blocksViewer('AbC_-123'), true)
  assert.equal(blocked.blocksViewer('abc_-123'), false)
})

test('judgeDay ranks by score, then views; lists every invalid entity and the top valid ones up to 200', () => {
  const botSource = sourceOf('198.51.100.9', bot(40))
  const officeSource = sourceOf('203.0.113.7', office())
  const blockedSource = sourceOf('192.0.2.99', [{ viewer: 'x', billable: true, dwellMs: 12_000, offerAgeMs: 13_000 }])
  const day = judgeDay([officeSource, botSource, blockedSource], [viewerOf('bot-0', bot(30, 1))], [{ kind: 'cidr', value: '192.0.2.99' }])
  assert.deepEqual(
    day.sources.map((s) => [s.source, s.score, s.invalid]),
    [
      ['192.0.2.99', 100, true],
      ['198.51.100.9', 60, true],
      ['203.0.113.7', 25, false],
    ],
  )
  assert.equal(day.viewers[0]!.invalid, true)

  // Many sources: the list stops at 200, but never drops an invalid one.
  const quiet = Array.from({ length: 300 }, (_, i) => sourceOf(`10.0.${Math.floor(i / 250)}.${i % 250}`, [{ viewer: `q${i}`, billable: true, dwellMs: 12_000, offerAgeMs: 13_000 + i }]))
  const bots = Array.from({ length: 250 }, (_, i) => sourceOf(`10.9.${Math.floor(i / 250)}.${i % 250}`, bot(20)))
  assert.equal(judgeDay(quiet, [], []).sources.length, LISTED_PER_KIND)
  const listed = judgeDay([...quiet, ...bots], [], []).sources
  assert.equal(listed.length, 250)
  assert.ok(listed.every((s) => s.invalid))
})

test('days: a UTC calendar day of the years 0001-9999, and the default (yesterday, UTC)', () => {
  assert.deepEqual(utcDayRange('2026-11-02'), { startMs: Date.parse('2026-11-02T00:00:00Z'), endMs: Date.parse('2026-11-03T00:00:00Z') })
  assert.ok(utcDayRange('2024-02-29'))
  assert.ok(utcDayRange('0001-01-01'))
  for (const bad of ['2026-02-29', '2026-02-30', '2026-13-01', '0000-01-01', '2026-1-2', '2026-11-02T00:00:00Z', '', 'yesterday']) assert.equal(utcDayRange(bad), null, bad)
  assert.equal(previousUtcDay(Date.parse('2026-11-02T09:00:00Z')), '2026-11-01')
  assert.equal(previousUtcDay(Date.parse('2026-11-02T00:00:00Z')), '2026-11-01')
  assert.equal(previousUtcDay(Date.parse('2026-03-01T23:59:59.999Z')), '2026-02-28')
})
