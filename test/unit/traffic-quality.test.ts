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
  NO_POPULATION,
  POPULATION_MIN_VIEWS,
  populationOf,
  previousUtcDay,
  REGULAR_MIN_VIEWS,
  wilsonLow,
  scoreSource,
  scoreViewer,
  utcDayRange,
  type SourceFigures,
  type TrafficFigures,
  type ViewerFigures,
} from '../../src/domain/traffic-quality.ts'
import { BlockList } from '../../src/domain/invalid-traffic.ts'

/**
 * One measured view as the ledger holds it: billable or not, its dwell and offer age, whether it was
 * clicked, whether its decision carried a topic (default yes) and whether its viewer paused a minute
 * or more before that decision (default yes; a viewer's first view has no gap).
 */
interface Sample {
  viewer: string
  billable: boolean
  dwellMs: number
  offerAgeMs: number
  clicked?: boolean
  topic?: boolean
  paused?: boolean
}

/** The day's figures of a set of views, computed as the store's query computes them. */
function figuresOf(samples: readonly Sample[]): TrafficFigures {
  const ages = samples.map((s) => s.offerAgeMs)
  const mean = ages.length ? ages.reduce((a, b) => a + b, 0) / ages.length : null
  const stddev = mean === null ? null : Math.sqrt(ages.reduce((a, b) => a + (b - mean) ** 2, 0) / ages.length)
  const billable = samples.filter((s) => s.billable)
  const seen = new Set<string>()
  const gapped = samples.filter((s) => seen.has(s.viewer) || (seen.add(s.viewer), false))
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
    topicViews: samples.filter((s) => s.topic !== false).length,
    shortViews: samples.filter((s) => s.dwellMs < 9_500).length,
    gaps: gapped.length,
    longGaps: gapped.filter((s) => s.paused !== false).length,
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
      // One view in five left the screen early (a short, non-billable view).
      const short = next() < 0.2
      const dwellMs = short ? 1_000 + Math.floor(next() * 8_000) : 9_500 + Math.floor(next() * 20_500)
      samples.push({ viewer: `office-${v}`, billable: !short, dwellMs, offerAgeMs: dwellMs + Math.floor(next() * 60_000), clicked: !short && next() < 0.05 })
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
  // Never a short view either (no_short_views: 30 views or more).
  assert.deepEqual(verdict.signals, ['dwell_at_threshold', 'regular_intervals', 'no_short_views'])
  assert.equal(verdict.score, 70)
  assert.equal(verdict.invalid, true)
  assert.equal(INVALID_SCORE, 60)
  // One busy bot viewer of it, alone: the same two signals.
  const one = scoreViewer(viewerOf('bot-0', bot(29, 1)), false)
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
      viewerOf('v', [
        ...Array.from({ length: n }, (_, i) => ({ viewer: 'v', billable: true, dwellMs: 12_000 + (i % 7) * 1_000, offerAgeMs: 15_000 + (i % 13) * 997, clicked: i < clicked })),
        // A few short views, as any real viewer has.
        ...Array.from({ length: 20 }, () => ({ viewer: 'v', billable: false, dwellMs: 4_000, offerAgeMs: 30_000 })),
      ]),
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
    topicViews: impressions,
    shortViews: impressions,
    gaps: impressions - 1,
    longGaps: impressions - 1,
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
  assert.deepEqual(verdict.signals, ['many_viewers', 'heavy_viewer', 'dwell_at_threshold', 'regular_intervals', 'no_clicks', 'no_short_views'])
  assert.equal(verdict.score, 100, '25 + 30 + 30 + 30 + 15 + 10, capped')
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
      ['198.51.100.9', 70, true],
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

/** `n` honest-looking views of one viewer (topics, pauses, a short view in five, no click), changed by `change`. */
function viewsOf(n: number, change: (i: number) => Partial<Sample> = () => ({})): Sample[] {
  return Array.from({ length: n }, (_, i) => ({
    viewer: 'v',
    billable: i % 5 !== 4,
    dwellMs: i % 5 === 4 ? 4_000 : 10_000 + (i % 7) * 700,
    offerAgeMs: 12_000 + (i % 11) * 1_900,
    ...change(i),
  }))
}

test('the population signals, each at its fixed threshold (no population)', () => {
  const signals = (samples: Sample[]) => scoreViewer(viewerOf('v', samples), false, NO_POPULATION).signals
  assert.deepEqual(signals(viewsOf(POPULATION_MIN_VIEWS)), [], 'an honest-looking viewer')

  // few_topics: under 20 % of the views carry a topic; 30 views at least.
  assert.deepEqual(signals(viewsOf(30, (i) => ({ topic: i < 5 }))), ['few_topics'])
  assert.deepEqual(signals(viewsOf(30, (i) => ({ topic: i < 6 }))), [], '6 of 30 is 20 %')
  assert.deepEqual(signals(viewsOf(29, () => ({ topic: false }))), [], 'too few views to tell')

  // no_short_views: under 2 % of the views left the screen before 9.5 s.
  const noShort = (n: number, short: number) => signals(viewsOf(n, (i) => (i < short ? { billable: false, dwellMs: 9_499 } : { billable: true, dwellMs: 12_000 })))
  assert.deepEqual(noShort(30, 0), ['no_short_views'])
  assert.deepEqual(noShort(50, 1), [], '1 of 50 is 2 %')
  assert.deepEqual(noShort(51, 1), ['no_short_views'])

  // no_pauses: under 2 % of the gaps between decisions are a minute or longer; 30 gaps at least.
  assert.deepEqual(signals(viewsOf(31, () => ({ paused: false }))), ['no_pauses'])
  assert.deepEqual(signals(viewsOf(51, (i) => ({ paused: i === 10 }))), [], '1 of 50 gaps is 2 %')
  assert.deepEqual(signals(viewsOf(30, () => ({ paused: false }))), [], '29 gaps: too few to tell')

  // click_rate: 5 clicks or more, and the low end of the rate's 95 % interval at least 10 %.
  assert.deepEqual(signals(viewsOf(30, (i) => ({ clicked: i < 7 }))), ['click_rate'], '7 of 30: at least 11.8 %')
  assert.deepEqual(signals(viewsOf(30, (i) => ({ clicked: i < 6 }))), [], '6 of 30 (20 %) may be luck: at least 9.5 %')
  assert.deepEqual(signals(viewsOf(48, (i) => ({ clicked: i < 6 }))), [], 'a person clicking 6 of 48 lines')
  assert.equal(wilsonLow(0, 0), 0)
})

test('the population tightens a signal by half at most, so a flood of bots cannot switch it off', () => {
  const one = (samples: Sample[], population = NO_POPULATION) => scoreViewer(viewerOf('v', samples), false, population).signals
  const fewTopics = viewsOf(30, (i) => ({ topic: i < 5 }))
  // A day where only 40 % of a typical viewer's views carry topics: a quarter of that (10 %) is the bar.
  assert.deepEqual(one(fewTopics, { ...NO_POPULATION, topicShare: 0.4 }), [])
  assert.deepEqual(one(viewsOf(30, (i) => ({ topic: i < 2 })), { ...NO_POPULATION, topicShare: 0.4 }), ['few_topics'])
  // A day where everyone topics: the fixed 20 % still holds.
  assert.deepEqual(one(fewTopics, { ...NO_POPULATION, topicShare: 1 }), ['few_topics'])
  // A day where bots that never send topics are the population: the bar is still 10 %.
  assert.deepEqual(one(viewsOf(30, (i) => ({ topic: i < 2 })), { ...NO_POPULATION, topicShare: 0 }), ['few_topics'])
  // Clicks: a day whose typical viewer clicks 4 % of views wants 20 %; a day of bots clicking 25 % would want 125 %, the bar stops at 20 %.
  const clicky = viewsOf(100, (i) => ({ clicked: i < 25 }))
  assert.deepEqual(one(clicky), ['click_rate'])
  assert.deepEqual(one(clicky, { ...NO_POPULATION, clickRate: 0.04 }), [])
  assert.deepEqual(one(viewsOf(100, (i) => ({ clicked: i < 35 })), { ...NO_POPULATION, clickRate: 0.25 }), ['click_rate'])
  // A day on which nobody pauses (a reference share of 1 %): the bar halves to 1 % of the gaps, no lower.
  assert.deepEqual(one(viewsOf(101, (i) => ({ paused: i === 50 })), { ...NO_POPULATION, longGapShare: 0.01 }), [])
})

test('the population is read on the honest side: 70 % bots do not move it', () => {
  const honest = Array.from({ length: 30 }, (_, v) => viewerOf(`h${v}`, viewsOf(40, (i) => ({ viewer: `h${v}`, clicked: i === 0, paused: i % 3 === 0 }))))
  const bots = Array.from({ length: 70 }, (_, v) =>
    viewerOf(`b${v}`, Array.from({ length: 40 }, (_, i) => ({ viewer: `b${v}`, billable: true, dwellMs: 12_000, offerAgeMs: 12_000, topic: false, paused: false, clicked: i % 4 === 0 }))),
  )
  const small = viewerOf('small', viewsOf(POPULATION_MIN_VIEWS - 1, () => ({ topic: false })))
  const p = populationOf([...honest, ...bots, small])
  assert.equal(p.topicShare, 1)
  assert.equal(p.shortShare, 8 / 40)
  assert.equal(p.clickRate, 1 / 40)
  assert.ok(p.longGapShare !== null && p.longGapShare > 0.3, String(p.longGapShare))
  // And judged against it, every bot viewer is invalid and no honest one is.
  const judged = judgeDay([], [...honest, ...bots], [])
  assert.equal(judged.viewers.filter((v) => v.invalid).length, 70)
  assert.ok(judged.viewers.filter((v) => v.invalid).every((v) => v.viewerKey.startsWith('b')))
  assert.deepEqual(populationOf([]), NO_POPULATION)
})
