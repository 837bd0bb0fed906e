import assert from 'node:assert/strict'
import { test } from 'node:test'
import { renderToString } from 'preact-render-to-string'
import { Chart, chartSummary, GEOMETRY, niceScale, TABBABLE_MARKS, type ChartPoint, type ChartProps } from '../../src/http/pages/chart.tsx'
import { axisTime, bucketText, usdTick } from '../../src/http/pages/portal/delivery.tsx'
import { usdSpend } from '../../src/http/pages/format.ts'
import { deliveryChartPlan, HOURLY_CHART_MAX_AGE_MS } from '../../src/domain/delivery-chart.ts'
import { bucketsOf, deliveryAxis, placeTimeLabels, timeMarks } from '../../src/domain/chart-geometry.ts'
import { MAX_RANGE_DAYS } from '../../src/domain/stats.ts'
import { liveBoundary, presetOf, presetWindow, STATS_PRESETS } from '../../src/domain/stats-presets.ts'
import { statsQueryFromForm } from '../../src/http/routes/portal/stats.ts'

const HOUR = 3_600_000
const DAY = 86_400_000

test('niceScale: ticks of 1, 2 or 5 times a power of ten from 0 to at least the maximum', () => {
  assert.deepEqual(niceScale(10, { integer: true }), { max: 10, step: 5, ticks: [0, 5, 10] })
  assert.deepEqual(niceScale(7, { integer: true }), { max: 8, step: 2, ticks: [0, 2, 4, 6, 8] })
  assert.deepEqual(niceScale(1234), { max: 1500, step: 500, ticks: [0, 500, 1000, 1500] })
  assert.deepEqual(niceScale(3, { integer: true }), { max: 3, step: 1, ticks: [0, 1, 2, 3] })
  // Counts never get fractional ticks.
  assert.deepEqual(niceScale(1, { integer: true }), { max: 1, step: 1, ticks: [0, 1] })
  // Fractions stay exact (no 0.30000000000000004).
  assert.deepEqual(niceScale(0.7), { max: 0.8, step: 0.2, ticks: [0, 0.2, 0.4, 0.6, 0.8] })
  // Micro-USD: $0.0075 → ticks of $0.002.
  assert.deepEqual(niceScale(7_500), { max: 8_000, step: 2_000, ticks: [0, 2_000, 4_000, 6_000, 8_000] })
  // Empty, zero or not a number: the axis 0..1.
  for (const max of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) assert.deepEqual(niceScale(max), { max: 1, step: 1, ticks: [0, 1] })
  for (let max = 1; max < 1e7; max = Math.ceil(max * 1.37)) {
    const s = niceScale(max, { integer: true })
    assert.ok(s.max >= max && s.ticks.length >= 2 && s.ticks.length <= 9, `max ${max}: ${JSON.stringify(s)}`)
    assert.ok(s.ticks.every((t) => Number.isInteger(t)))
    assert.ok([1, 2, 5].includes(s.step / 10 ** Math.floor(Math.log10(s.step))), `step ${s.step}`)
  }
})

test('timeMarks: each bucket at its true width on the axis, the one holding now partial, later ones not drawn', () => {
  const axis = { startMs: Date.parse('2026-11-01T00:00:00Z'), endMs: Date.parse('2026-12-01T00:00:00Z') }
  const hour = Date.parse('2026-11-28T10:00:00Z')
  const buckets = [
    { startMs: hour - HOUR, endMs: hour, value: 4 },
    { startMs: hour, endMs: hour + HOUR, value: 2 },
    { startMs: hour + HOUR, endMs: hour + 2 * HOUR, value: 0 },
  ]
  const marks = timeMarks(buckets, axis, hour + 37 * 60_000)
  assert.equal(marks.length, 2, 'the hour after now is not drawn (no drop to zero)')
  // An hour is an hour wide on a 30-day axis.
  for (const m of marks) assert.ok(Math.abs(m.x1 - m.x0 - 1 / (30 * 24)) < 1e-12)
  assert.deepEqual(
    marks.map((m) => [m.index, m.partial, m.value]),
    [
      [0, false, 4],
      [1, true, 2],
    ],
  )
  assert.ok(Math.abs(marks[1]!.x0 - (hour - axis.startMs) / (30 * DAY)) < 1e-12)
  // A bucket before the axis is clamped to it; nothing is partial when now is past the axis.
  const clamped = timeMarks([{ startMs: axis.startMs - DAY, endMs: axis.startMs + DAY, value: 1 }], axis, axis.endMs + DAY)
  assert.deepEqual(clamped, [{ index: 0, x0: 0, x1: 1 / 30, value: 1, partial: false }])
})

test('bucketsOf and deliveryAxis: bucket ends, and a young campaign drawn on at least a day of hours', () => {
  const w = { startMs: Date.parse('2026-11-02T09:20:00Z'), endMs: Date.parse('2026-11-02T11:00:00Z') }
  assert.deepEqual(bucketsOf(w, 'hour'), [
    { startMs: Date.parse('2026-11-02T09:00:00Z'), endMs: Date.parse('2026-11-02T10:00:00Z') },
    { startMs: Date.parse('2026-11-02T10:00:00Z'), endMs: Date.parse('2026-11-02T11:00:00Z') },
  ])
  assert.deepEqual(bucketsOf({ startMs: Date.parse('2026-11-15T00:00:00Z'), endMs: Date.parse('2026-12-02T00:00:00Z') }, 'month'), [
    { startMs: Date.parse('2026-11-01T00:00:00Z'), endMs: Date.parse('2026-12-01T00:00:00Z') },
    { startMs: Date.parse('2026-12-01T00:00:00Z'), endMs: Date.parse('2026-12-02T00:00:00Z') },
  ])
  const hourly = { startMs: Date.parse('2026-11-02T09:00:00Z'), endMs: Date.parse('2026-11-02T10:00:00Z') }
  // From the campaign's start, as its caption says (issue 51), on to a day after it: the rest is still to come.
  assert.deepEqual(deliveryAxis(hourly, 'hour'), { startMs: hourly.startMs, endMs: hourly.startMs + 24 * HOUR })
  const daily = { startMs: Date.parse('2026-11-02T00:00:00Z'), endMs: Date.parse('2026-11-05T00:00:00Z') }
  assert.deepEqual(deliveryAxis(daily, 'day'), { startMs: daily.startMs, endMs: daily.startMs + 7 * DAY })
  const long = { startMs: Date.parse('2026-01-02T00:00:00Z'), endMs: Date.parse('2026-11-05T00:00:00Z') }
  assert.deepEqual(deliveryAxis(long, 'day'), long, 'a long window is its own axis')
})

test('placeTimeLabels: labels stay on the axis and never run into each other', () => {
  for (const [count, text, width] of [[24, 'Nov 4, 00:00', 300], [24, 'Nov 4, 00:00', 640], [30, 'Oct 25', 300], [3, 'Nov 2', 300], [1, 'Nov 2026', 300], [731, 'Oct 25', 640]] as const) {
    const candidates = Array.from({ length: count }, (_, index) => ({ index, centre: (index + 0.5) / count, text }))
    const placed = placeTimeLabels(candidates, width)
    assert.ok(placed.length >= 1 && placed[0]!.index === 0, `${count}: the first bucket is labelled`)
    const w = text.length * 7.2
    const extent = (l: (typeof placed)[number]) => {
      const left = l.anchor === 'start' ? l.at * width : l.anchor === 'end' ? l.at * width - w : l.at * width - w / 2
      return [left, left + w] as const
    }
    for (const [n, label] of placed.entries()) {
      const [left, right] = extent(label)
      assert.ok(left >= -1e-9 && right <= width + 1e-9, `${count}: inside`)
      if (n > 0) assert.ok(left >= extent(placed[n - 1]!)[1] + 12 - 1e-9, `${count}: label ${n} clear of the one before`)
    }
  }
})

test('placeTimeLabels: a step that reads as a clock or a calendar', () => {
  const hours = Array.from({ length: 24 }, (_, index) => ({ index, centre: (index + 0.5) / 24, text: 'Nov 2, 00:00' }))
  assert.deepEqual(
    placeTimeLabels(hours, 640, { bucketMs: HOUR }).map((l) => l.index),
    [0, 6, 12, 18],
  )
  const days = Array.from({ length: 30 }, (_, index) => ({ index, centre: (index + 0.5) / 30, text: 'Oct 25' }))
  assert.deepEqual(
    placeTimeLabels(days, 640, { bucketMs: DAY }).map((l) => l.index),
    [0, 7, 14, 21, 28],
  )
})

test('presets: Today by the hour, 7 and 30 days and this month by the day, each through today', () => {
  const now = Date.parse('2026-11-28T10:37:00Z')
  const today = Date.parse('2026-11-28T00:00:00Z')
  const tomorrow = today + DAY
  assert.deepEqual(presetWindow('today', now), { granularity: 'hour', window: { startMs: today, endMs: tomorrow } })
  assert.deepEqual(presetWindow('7d', now), { granularity: 'day', window: { startMs: Date.parse('2026-11-22T00:00:00Z'), endMs: tomorrow } })
  assert.deepEqual(presetWindow('30d', now), { granularity: 'day', window: { startMs: Date.parse('2026-10-30T00:00:00Z'), endMs: tomorrow } })
  assert.deepEqual(presetWindow('month', now), { granularity: 'day', window: { startMs: Date.parse('2026-11-01T00:00:00Z'), endMs: tomorrow } })
  for (const p of STATS_PRESETS) {
    const { granularity, window } = presetWindow(p, now)
    assert.ok(window.startMs <= now && now < window.endMs, `${p} includes now`)
    assert.equal(presetOf(granularity, window, now), p)
  }
  assert.equal(presetOf('day', { startMs: today, endMs: tomorrow }, now), null)
})

test('liveBoundary: closed days through the rollups\' watermark, live from the day after', () => {
  const now = Date.parse('2026-11-28T10:37:00Z')
  const today = Date.parse('2026-11-28T00:00:00Z')
  const window = { startMs: today - 6 * DAY, endMs: today + DAY }
  assert.deepEqual(liveBoundary(window, today - DAY, now), {
    closedThrough: '2026-11-27',
    liveFromMs: today,
    nowMs: now,
    closedPart: true,
    livePart: true,
    notBegun: false,
  })
  // While yesterday is being rolled up, it is live too.
  assert.deepEqual(liveBoundary(window, today - 2 * DAY, now).liveFromMs, today - DAY)
  const todayOnly = liveBoundary({ startMs: today, endMs: today + DAY }, today - DAY, now)
  assert.equal(todayOnly.closedPart, false)
  assert.equal(todayOnly.livePart, true)
  const past = liveBoundary({ startMs: today - 10 * DAY, endMs: today - 3 * DAY }, today - DAY, now)
  assert.equal(past.livePart, false)
  assert.equal(liveBoundary(window, null, now).closedThrough, null)
  assert.equal(liveBoundary({ startMs: today + DAY, endMs: today + 2 * DAY }, today - DAY, now).notBegun, true)
})

const day = (iso: string) => new Date(`${iso}T00:00:00Z`)
const point = (iso: string, value: number): ChartPoint => ({ t: day(iso), end: new Date(day(iso).getTime() + DAY), value })
const props = (points: ChartPoint[], extra: Partial<ChartProps> = {}): ChartProps => ({
  id: 'c',
  title: 'Billable impressions by day',
  points,
  axisLabel: 'Impressions',
  valueLabel: 'Billable impressions',
  formatValue: (v) => v.toLocaleString('en-US'),
  formatAxisTime: (t) => axisTime(t, 'day'),
  formatTime: (t) => bucketText(t, 'day'),
  integer: true,
  caption: 'Caption words',
  ...extra,
})
const Y_PLOT = GEOMETRY.height - GEOMETRY.top - GEOMETRY.bottom

test('the empty state: "No delivery in this period" in the chart area, in the summary and in the data table', () => {
  const zeros = [point('2026-11-01', 0), point('2026-11-02', 0)]
  const html = renderToString(Chart(props(zeros)))
  assert.match(html, /<text class="empty" x="50%" y="146" text-anchor="middle">No delivery in this period<\/text>/)
  assert.match(html, /aria-label="Billable impressions by day, 2026-11-01 to 2026-11-02: no delivery in this period\."/)
  assert.doesNotMatch(html, /<rect/)
  assert.match(html, /<tr><td>2026-11-01<\/td><td class="num">0<\/td><\/tr>/)
  // The time axis is still drawn.
  assert.match(html, /<text class="tick" [^>]*>Nov 1<\/text>/)

  const none = renderToString(Chart(props([])))
  assert.match(none, /No delivery in this period/)
  assert.match(none, /aria-label="Billable impressions by day: no delivery in this period\."/)
  assert.match(none, /<td colSpan="2">No delivery in this period<\/td>|<td colspan="2">No delivery in this period<\/td>/)

  assert.match(renderToString(Chart(props([], { emptyText: 'Nothing yet' }))), />Nothing yet</)
})

test('a chart: a labelled group with a summary, axes with units, bars at their true width scaled to the nice axis, focusable marks, the numbers under Data', () => {
  const points = [point('2026-11-01', 3), point('2026-11-02', 0), point('2026-11-03', 7)]
  const html = renderToString(Chart(props(points, { total: '10 in total' })))
  assert.match(html, /^<figure class="chart" id="c"><div class="chart-frame"><svg class="y-axis" width="\d+" height="280" aria-hidden="true">.*?<\/svg><svg class="timeline" width="100%" height="280" role="group" aria-label="([^"]+)"/)
  assert.match(html, /aria-label="Billable impressions by day, 2026-11-01 to 2026-11-03, 3 points: 10 in total; highest 7 at 2026-11-03\."/)
  assert.match(html, /<text class="axis-title" x="2%" y="22">Impressions<\/text>/)
  // Axis 0..8 by 2: five gridlines, each labelled.
  // The value labels in their own gutter left of the plot, right-aligned (never behind a bar: issue 51).
  const gutter = /<svg class="y-axis"[^>]*>(.*?)<\/svg>/.exec(html)?.[1] ?? ''
  for (const tick of ['0', '2', '4', '6', '8']) assert.match(gutter, new RegExp(`<text class="tick" x="[0-9.]+" y="[0-9.]+" text-anchor="end">${tick}</text>`))
  assert.doesNotMatch(html.replace(gutter, ''), /<text class="tick" x="2%" dx="2"/, 'no value label inside the plot')
  // Two bars (a zero bucket draws none), each a third of the axis less a sliver; the tallest is 7/8 of the plot's height.
  const bars = [...html.matchAll(/<rect class="bar primary shape" x="([0-9.]+)%" width="([0-9.]+)%" y="([0-9.]+)" height="([0-9.]+)"><\/rect>/g)]
  assert.equal(bars.length, 2)
  for (const bar of bars) assert.ok(Math.abs(Number(bar[2]) - (96 / 3) * 0.84) < 0.01, `width ${bar[2]}`)
  assert.ok(Math.abs(Number(bars[1]![4]) - (Y_PLOT * 7) / 8) < 0.01)
  assert.ok(Math.abs(Number(bars[0]![4]) - (Y_PLOT * 3) / 8) < 0.01)
  // Each bar is a focusable mark named by its time and value.
  const marks = [...html.matchAll(/<g class="mark" tabindex="0" role="img" aria-label="([^"]+)" data-tip="([^"]+)">/g)].map((m) => m[1])
  assert.deepEqual(marks, ['2026-11-01: Billable impressions 3', '2026-11-03: Billable impressions 7'])
  assert.match(html, /<figcaption>Caption words<\/figcaption>/)
  assert.match(html, /<details class="chart-data"><summary>Data<\/summary>/)
  assert.match(html, /<th scope="col">Time \(UTC\)<\/th><th scope="col" class="num">Billable impressions<\/th>/)
  const rows = [...html.matchAll(/<tr><td>([^<]+)<\/td><td class="num">([^<]+)<\/td><\/tr>/g)].map((m) => [m[1], m[2]])
  assert.deepEqual(rows, [['2026-11-01', '3'], ['2026-11-02', '0'], ['2026-11-03', '7']])
  assert.doesNotMatch(html, /style=/, 'geometry only: colours and fonts come from site.css')

  // Spend: a level per bucket (a step line), a dot per bucket with a value.
  const line = renderToString(Chart(props(points, { kind: 'line', tone: 'secondary' })))
  assert.equal(line.match(/<line class="line secondary" x1="[0-9.]+%" x2="[0-9.]+%" y1="([0-9.]+)" y2="\1"><\/line>/g)?.length, 3, 'three levels')
  assert.equal(line.match(/<circle class="dot secondary shape"/g)?.length, 2)
})

test('the bucket in progress: drawn lighter, said so, and nothing after now', () => {
  const hour = (h: number) => new Date(Date.UTC(2026, 10, 28, h))
  const points = Array.from({ length: 24 }, (_, h) => ({ t: hour(h), end: hour(h + 1), value: h === 9 ? 5 : h === 10 ? 2 : 0 }))
  const now = Date.UTC(2026, 10, 28, 10, 37)
  const html = renderToString(
    Chart(
      props(points, {
        nowMs: now,
        axis: { startMs: hour(0).getTime(), endMs: hour(24).getTime() },
        formatTime: (t) => bucketText(t, 'hour'),
        formatAxisTime: (t) => axisTime(t, 'hour'),
        partialText: 'so far: this hour is not over',
      }),
    ),
  )
  const bars = [...html.matchAll(/<rect class="bar primary( partial)? shape" x="([0-9.]+)%" width="([0-9.]+)%"/g)]
  assert.deepEqual(
    bars.map((b) => b[1] ?? ''),
    ['', ' partial'],
  )
  // An hour is 1/24 of the day's axis.
  assert.ok(Math.abs(Number(bars[1]![2]) - (2 + (96 * 10) / 24 + (96 / 24) * 0.08)) < 0.01)
  assert.match(html, /aria-label="2026-11-28 10:00 UTC: Billable impressions 2 \(so far: this hour is not over\)"/)
  assert.match(html, /The last is in progress \(so far: this hour is not over\)\./)
  assert.match(html, /<g class="now"><line x1="([0-9.]+)%"/)
  // The table stops at the hour in progress.
  const rows = [...html.matchAll(/<tr><td>([^<]+)(?:<span class="muted"> \(([^)]+)\)<\/span>)?<\/td><td class="num">([^<]+)<\/td><\/tr>/g)]
  assert.equal(rows.length, 11)
  assert.deepEqual([rows[10]![1], rows[10]![2], rows[10]![3]], ['2026-11-28 10:00 UTC', 'so far: this hour is not over', '2'])

  // A spend level of the hour in progress is dashed (class partial), never a drop to zero after it.
  const line = renderToString(Chart(props(points, { kind: 'line', nowMs: now, axis: { startMs: hour(0).getTime(), endMs: hour(24).getTime() } })))
  assert.equal(line.match(/<line class="line primary partial" x1="[0-9.]+%" x2="[0-9.]+%" y1="([0-9.]+)" y2="\1"><\/line>/g)?.length, 1, 'one dashed level')
  assert.equal(line.match(/<line class="line primary( partial)?" x1="[0-9.]+%" x2="[0-9.]+%" y1="([0-9.]+)" y2="\2"><\/line>/g)?.length, 11)
})

test('many marks: the first takes the Tab key, the others the arrow keys', () => {
  const points = Array.from({ length: TABBABLE_MARKS + 1 }, (_, i) => point(new Date(Date.parse('2026-01-01T00:00:00Z') + i * DAY).toISOString().slice(0, 10), 1))
  const html = renderToString(Chart(props(points)))
  assert.equal(html.match(/class="mark" tabindex="0"/g)?.length, 1)
  assert.equal(html.match(/class="mark" tabindex="-1"/g)?.length, TABBABLE_MARKS)
})

test('chartSummary names a single point by its time', () => {
  const summary = chartSummary(props([point('2026-11-02', 5)]))
  assert.equal(summary, 'Billable impressions by day, 2026-11-02, 1 point: highest 5 at 2026-11-02.')
})

test('time and money as the delivery charts write them', () => {
  const t = new Date('2026-11-02T09:00:00Z')
  assert.equal(axisTime(t, 'hour'), 'Nov 2, 09:00')
  assert.equal(axisTime(t, 'day'), 'Nov 2')
  assert.equal(axisTime(t, 'month'), 'Nov 2026')
  assert.equal(bucketText(t, 'hour'), '2026-11-02 09:00 UTC')
  assert.equal(bucketText(t, 'day'), '2026-11-02')
  assert.equal(bucketText(t, 'month'), '2026-11')
  assert.equal(usdSpend(0), '$0.00')
  assert.equal(usdSpend(7_500), '$0.0075')
  assert.equal(usdSpend(12_500_000), '$12.50')
  assert.equal(usdSpend(1_234_567_891), '$1,234.567891')
  assert.equal(usdTick(2_000, 2_000), '$0.002')
  assert.equal(usdTick(4_000_000, 1_000_000), '$4.00')
  assert.equal(usdTick(500_000, 250_000), '$0.50')
  assert.equal(usdTick(1, 1), '$0.000001')
})

test('deliveryChartPlan: by the hour under 48 hours old, then by the day in two parts (closed days, today)', () => {
  const created = Date.parse('2026-11-02T09:20:00Z')
  const young = deliveryChartPlan(created, created)
  assert.deepEqual(young, {
    granularity: 'hour',
    window: { startMs: Date.parse('2026-11-02T09:00:00Z'), endMs: Date.parse('2026-11-02T10:00:00Z') },
    parts: [{ startMs: Date.parse('2026-11-02T09:00:00Z'), endMs: Date.parse('2026-11-02T10:00:00Z') }],
  })
  const almost = deliveryChartPlan(created, created + HOURLY_CHART_MAX_AGE_MS - 1)
  assert.equal(almost.granularity, 'hour')
  assert.equal(almost.window.endMs - almost.window.startMs, 49 * HOUR, 'the creation hour through the current hour')

  const old = deliveryChartPlan(created, created + HOURLY_CHART_MAX_AGE_MS)
  assert.deepEqual(old, {
    granularity: 'day',
    window: { startMs: Date.parse('2026-11-02T00:00:00Z'), endMs: Date.parse('2026-11-05T00:00:00Z') },
    parts: [
      { startMs: Date.parse('2026-11-02T00:00:00Z'), endMs: Date.parse('2026-11-04T00:00:00Z') },
      { startMs: Date.parse('2026-11-04T00:00:00Z'), endMs: Date.parse('2026-11-05T00:00:00Z') },
    ],
  })
  // Years later: clipped to the day granularity's ceiling, each part within it.
  const ancient = deliveryChartPlan(created, created + 5 * 365 * DAY)
  assert.equal((ancient.window.endMs - ancient.window.startMs) / DAY, MAX_RANGE_DAYS.day)
  for (const part of ancient.parts) assert.ok(part.endMs - part.startMs <= MAX_RANGE_DAYS.day * DAY)
})

test('statsQueryFromForm: UTC dates with End included, today by default, syntax errors per field', () => {
  const now = Date.parse('2026-11-28T10:37:00Z')
  assert.deepEqual(statsQueryFromForm({ granularity: '', start: '', end: '', campaign_id: '' }, now), {
    ok: true,
    query: { granularity: 'day', start: '2026-11-28T00:00:00.000Z', end: '2026-11-29T00:00:00.000Z' },
  })
  assert.deepEqual(statsQueryFromForm({ granularity: 'hour', start: '2026-11-01', end: '2026-11-02', campaign_id: 'cmp_x' }, now), {
    ok: true,
    query: { granularity: 'hour', start: '2026-11-01T00:00:00.000Z', end: '2026-11-03T00:00:00.000Z', campaign_id: 'cmp_x' },
  })
  assert.deepEqual(statsQueryFromForm({ granularity: 'month', start: '2026-01-01', end: '', campaign_id: '' }, now), {
    ok: true,
    query: { granularity: 'month', start: '2026-01-01T00:00:00.000Z' },
  })
  assert.deepEqual(statsQueryFromForm({ granularity: 'week', start: '2026-02-30', end: '11/02/2026', campaign_id: '' }, now), {
    ok: false,
    errors: {
      granularity: 'Choose by hour, by day or by month.',
      start: 'Enter a date as YYYY-MM-DD, for example 2026-11-02.',
      end: 'Enter a date as YYYY-MM-DD, for example 2026-11-02.',
    },
  })
})
