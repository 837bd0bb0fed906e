import { BlockList, type TrafficBlock } from './invalid-traffic.ts'
import type { Source } from './traffic-source.ts'

/**
 * The after-the-fact review of one UTC day of traffic (docs/invalid-traffic.md, "Signals and score"):
 * each source (IPv4 address or IPv6 /64) and each viewer key is scored from its day's figures; a
 * score of INVALID_SCORE or more makes it invalid, and the daily review voids its billable units.
 *
 * The signals read the day as it was served: `impressions` counts the billable impressions written
 * at serving time, voided ones included, so a day judged again after the review voided its units
 * gets the same verdict.
 */

/** What the ledger's rows with a source say of one source or viewer over one UTC day (store/traffic-quality.ts). */
export interface TrafficFigures {
  /** Measured views: billable impressions and non-billable views. */
  views: number
  /** Billable impressions as served (voided ones included). */
  impressions: number
  /** Of those, voided afterwards by the review. */
  voided: number
  /** Views not billable for invalid traffic when served, plus the voided impressions. */
  invalidViews: number
  clicks: number
  /** What the impressions and clicks debited when served. */
  debitMicros: number
  /** Impressions whose dwell_ms lies in [DWELL_WINDOW_FROM_MS, DWELL_WINDOW_TO_MS). */
  dwellAtThreshold: number
  /** offer_age_ms (decision to view report) over the measured views that carry one. */
  offerAgeCount: number
  offerAgeMeanMs: number | null
  /** Population standard deviation; null without any offer age. */
  offerAgeStddevMs: number | null
  /** Measured views whose decision carried a topic (the ledger's `topic`). */
  topicViews: number
  /** Measured views with a dwell under the billing threshold (BILLABLE_DWELL_MS): the line left the screen early. */
  shortViews: number
  /** Gaps between one viewer's consecutive decisions (each view's decision is its time less its offer age). */
  gaps: number
  /** Of those, the gaps of LONG_GAP_MS or more: the viewer paused. */
  longGaps: number
}

export interface SourceFigures extends TrafficFigures {
  source: Source
  /** Distinct viewer keys with measured views from this source. */
  viewers: number
  /** The most impressions (as served, over the whole day and every source) of any one viewer of this source. */
  topViewerImpressions: number
}

export interface ViewerFigures extends TrafficFigures {
  viewerKey: string
  /** Distinct sources the viewer's measured views came from. */
  sources: number
}

export const SIGNALS = [
  'blocked',
  'many_viewers',
  'heavy_viewer',
  'dwell_at_threshold',
  'regular_intervals',
  'no_clicks',
  'few_topics',
  'no_pauses',
  'no_short_views',
  'click_rate',
] as const
export type Signal = (typeof SIGNALS)[number]

/** many_viewers (sources only): this many distinct viewers or more. */
export const MANY_VIEWERS_MIN = 30
/** heavy_viewer: a viewer with more impressions than this in the day (a source: any of its viewers). */
export const HEAVY_VIEWER_ABOVE = 1_500
/** dwell_at_threshold: at least DWELL_MIN_IMPRESSIONS impressions, and at least DWELL_SHARE_PERCENT % of them dwelling in the window. */
export const DWELL_WINDOW_FROM_MS = 9_500
export const DWELL_WINDOW_TO_MS = 9_700
export const DWELL_MIN_IMPRESSIONS = 20
export const DWELL_SHARE_PERCENT = 80
/** regular_intervals: at least REGULAR_MIN_VIEWS views with an offer age, whose population standard deviation is under this. */
export const REGULAR_MIN_VIEWS = 20
export const REGULAR_MAX_STDDEV_MS = 250
/** no_clicks: at least this many impressions and not one click. */
export const NO_CLICKS_MIN_IMPRESSIONS = 200


/*
 * The population signals compare an entity with the day's population of viewers (`Population`):
 * each has a fixed bound, and the day's reference share moves it towards the stricter side by at
 * most half (a day on which typical viewers rarely send topics asks for fewer topics still before
 * calling a viewer odd). The reference is clamped, so a flood of bots that makes itself the
 * population can tighten a signal by half but never switch it off. All need a sample.
 */
/** The dwell under which a view is not billable (domain/delivery.ts bills 9.5 s or more). */
export const BILLABLE_DWELL_MS = 9_500
/** A gap between two decisions of one viewer this long or longer is a pause. */
export const LONG_GAP_MS = 60_000
/** Population signals need this many measured views (gaps, for no_pauses) of the entity. */
export const POPULATION_MIN_VIEWS = 30
/** few_topics: under FEW_TOPICS_MAX_PERCENT % of the views carry a topic, and under a quarter of the reference share. */
export const FEW_TOPICS_MAX_PERCENT = 20
export const FEW_TOPICS_OF_POPULATION = 0.25
/** no_pauses: under NO_PAUSES_MAX_PERCENT % of the gaps are pauses, and under a fifth of the reference share. */
export const NO_PAUSES_MAX_PERCENT = 2
export const NO_PAUSES_OF_POPULATION = 0.2
/** no_short_views: under NO_SHORT_MAX_PERCENT % of the views are short, and under a fifth of the reference share. */
export const NO_SHORT_MAX_PERCENT = 2
export const NO_SHORT_OF_POPULATION = 0.2
/**
 * click_rate: at least CLICK_RATE_MIN_CLICKS clicks, and even the low end of the click rate's 95 %
 * confidence interval (Wilson) at least CLICK_RATE_MIN_PERCENT % of the views and five times the
 * reference rate: people click about one line in a hundred, and a few lucky clicks in a few dozen
 * views are not a pattern.
 */
export const CLICK_RATE_MIN_CLICKS = 5
export const CLICK_RATE_MIN_PERCENT = 10
export const CLICK_RATE_OF_POPULATION = 5
/** How far the population may move a bound: to half of it at most (a factor on the bound). */
export const POPULATION_TIGHTENS_AT_MOST = 0.5

/** Points per signal; `blocked` alone makes the score MAX_SCORE. */
export const SIGNAL_POINTS: Readonly<Record<Signal, number>> = {
  blocked: 100,
  many_viewers: 25,
  heavy_viewer: 30,
  dwell_at_threshold: 30,
  regular_intervals: 30,
  no_clicks: 15,
  few_topics: 20,
  no_pauses: 20,
  no_short_views: 10,
  click_rate: 35,
}

/**
 * What the day's viewers look like, over viewers with at least POPULATION_MIN_VIEWS measured views:
 * each reference is a quantile on the honest side of the distribution, the 90th percentile of the
 * shares of views with topics, of pauses and of short views (bots sit at zero), the 25th percentile
 * of click rates (bots that click sit high). Null when no viewer qualifies.
 */
export interface Population {
  topicShare: number | null
  longGapShare: number | null
  shortShare: number | null
  clickRate: number | null
}

/** No population: the population signals hold to their fixed bounds only. */
export const NO_POPULATION: Population = { topicShare: null, longGapShare: null, shortShare: null, clickRate: null }

/** The nearest-rank `q` quantile (0-1), or null for no values. */
function quantile(xs: readonly number[], q: number): number | null {
  if (xs.length === 0) return null
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!
}

/** The day's population from its viewers' figures. */
export function populationOf(viewers: readonly TrafficFigures[]): Population {
  const sampled = viewers.filter((v) => v.views >= POPULATION_MIN_VIEWS)
  return {
    topicShare: quantile(sampled.map((v) => v.topicViews / v.views), 0.9),
    longGapShare: quantile(sampled.filter((v) => v.gaps >= POPULATION_MIN_VIEWS).map((v) => v.longGaps / v.gaps), 0.9),
    shortShare: quantile(sampled.map((v) => v.shortViews / v.views), 0.9),
    clickRate: quantile(sampled.map((v) => v.clicks / v.views), 0.25),
  }
}

/** The bound a share must stay under: the fixed one, tightened by the population's reference to half of it at most. */
const shareBound = (maxPercent: number, reference: number | null, ofPopulation: number) =>
  Math.max((maxPercent / 100) * POPULATION_TIGHTENS_AT_MOST, Math.min(maxPercent / 100, reference === null ? Infinity : reference * ofPopulation))

/** The click rate an entity must reach: the fixed one, raised by the population's reference to twice it at most. */
const clickBound = (reference: number | null) =>
  Math.min((CLICK_RATE_MIN_PERCENT / 100) / POPULATION_TIGHTENS_AT_MOST, Math.max(CLICK_RATE_MIN_PERCENT / 100, reference === null ? 0 : reference * CLICK_RATE_OF_POPULATION))

/** The low end of the 95 % Wilson score interval of `hits` in `n`. */
export function wilsonLow(hits: number, n: number): number {
  if (n === 0) return 0
  const z = 1.96
  const p = hits / n
  const z2 = z * z
  return (p + z2 / (2 * n) - z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n)
}

function populationSignals(f: TrafficFigures, p: Population): Signal[] {
  const fired: Signal[] = []
  if (f.views >= POPULATION_MIN_VIEWS) {
    if (f.topicViews / f.views < shareBound(FEW_TOPICS_MAX_PERCENT, p.topicShare, FEW_TOPICS_OF_POPULATION)) fired.push('few_topics')
    if (f.shortViews / f.views < shareBound(NO_SHORT_MAX_PERCENT, p.shortShare, NO_SHORT_OF_POPULATION)) fired.push('no_short_views')
    if (f.clicks >= CLICK_RATE_MIN_CLICKS && wilsonLow(f.clicks, f.views) >= clickBound(p.clickRate)) fired.push('click_rate')
  }
  if (f.gaps >= POPULATION_MIN_VIEWS && f.longGaps / f.gaps < shareBound(NO_PAUSES_MAX_PERCENT, p.longGapShare, NO_PAUSES_OF_POPULATION)) fired.push('no_pauses')
  return fired
}
export const MAX_SCORE = 100
/** A score this high or higher is invalid traffic. */
export const INVALID_SCORE = 60

export interface Verdict {
  /** The points of the signals that fired, capped at MAX_SCORE. */
  score: number
  /** In SIGNALS order. */
  signals: Signal[]
  invalid: boolean
}

/** The signals both kinds share. */
function commonSignals(f: TrafficFigures, p: Population): Signal[] {
  const fired: Signal[] = populationSignals(f, p)
  if (f.impressions >= DWELL_MIN_IMPRESSIONS && f.dwellAtThreshold * 100 >= f.impressions * DWELL_SHARE_PERCENT) fired.push('dwell_at_threshold')
  if (f.offerAgeCount >= REGULAR_MIN_VIEWS && f.offerAgeStddevMs !== null && f.offerAgeStddevMs < REGULAR_MAX_STDDEV_MS) fired.push('regular_intervals')
  if (f.impressions >= NO_CLICKS_MIN_IMPRESSIONS && f.clicks === 0) fired.push('no_clicks')
  return fired
}

function verdictOf(fired: readonly Signal[]): Verdict {
  const signals = SIGNALS.filter((s) => fired.includes(s))
  const score = Math.min(MAX_SCORE, signals.reduce((sum, s) => sum + SIGNAL_POINTS[s], 0))
  return { score, signals, invalid: score >= INVALID_SCORE }
}

export function scoreSource(f: SourceFigures, blocked: boolean, population: Population = NO_POPULATION): Verdict {
  const fired = commonSignals(f, population)
  if (blocked) fired.push('blocked')
  if (f.viewers >= MANY_VIEWERS_MIN) fired.push('many_viewers')
  if (f.topViewerImpressions > HEAVY_VIEWER_ABOVE) fired.push('heavy_viewer')
  return verdictOf(fired)
}

export function scoreViewer(f: ViewerFigures, blocked: boolean, population: Population = NO_POPULATION): Verdict {
  const fired = commonSignals(f, population)
  if (blocked) fired.push('blocked')
  if (f.impressions > HEAVY_VIEWER_ABOVE) fired.push('heavy_viewer')
  return verdictOf(fired)
}

export type Scored<F> = F & Verdict

/** Entities listed per kind: every invalid one, then the highest-scoring valid ones up to this many in all. */
export const LISTED_PER_KIND = 200

/** Highest score first, then most views, then by name so that the order is stable. */
export function rank<F extends TrafficFigures>(scored: readonly Scored<F>[], nameOf: (f: F) => string): Scored<F>[] {
  const sorted = [...scored].sort((a, b) => b.score - a.score || b.views - a.views || (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0))
  const invalid = sorted.filter((s) => s.invalid).length
  return sorted.slice(0, Math.max(LISTED_PER_KIND, invalid))
}

/** One UTC day judged: sources and viewers scored against the block list as it is now, ranked. */
export function judgeDay(
  sources: readonly SourceFigures[],
  viewers: readonly ViewerFigures[],
  blocks: readonly TrafficBlock[],
): { sources: Scored<SourceFigures>[]; viewers: Scored<ViewerFigures>[] } {
  const blocked = new BlockList(blocks)
  const population = populationOf(viewers)
  return {
    sources: rank(
      sources.map((f) => ({ ...f, ...scoreSource(f, blocked.blocksSource(f.source), population) })),
      (f) => f.source,
    ),
    viewers: rank(
      viewers.map((f) => ({ ...f, ...scoreViewer(f, blocked.blocksViewer(f.viewerKey), population) })),
      (f) => f.viewerKey,
    ),
  }
}

/** A UTC calendar day `YYYY-MM-DD` (years 0001-9999) as its first instant and the next day's, or null. */
export function utcDayRange(day: string): { startMs: number; endMs: number } | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day)
  if (!m) return null
  const startMs = Date.parse(`${day}T00:00:00Z`)
  if (!Number.isFinite(startMs) || Number(m[1]) < 1) return null
  // Date.parse rolls nothing over for ISO text, but 02-30 parses in some engines: the day must read back the same.
  if (new Date(startMs).toISOString().slice(0, 10) !== day) return null
  return { startMs, endMs: startMs + DAY_MS }
}

const DAY_MS = 86_400_000

/** The UTC day before the one of `nowMs`: the last whole day, what the review and the console show by default. */
export const previousUtcDay = (nowMs: number): string => new Date(Math.floor(nowMs / DAY_MS) * DAY_MS - DAY_MS).toISOString().slice(0, 10)
