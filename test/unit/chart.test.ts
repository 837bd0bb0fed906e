import assert from 'node:assert/strict'
import { test } from 'node:test'
import { renderToString } from 'preact-render-to-string'
import { Chart, chartSummary, GEOMETRY, labelIndices, niceScale, placeLabels, type ChartPoint, type ChartProps } from '../../src/http/pages/chart.tsx'
import { axisTime, bucketText, usdExactFromMicros, usdTick } from '../../src/http/pages/portal/delivery.tsx'
import { deliveryChartPlan, HOURLY_CHART_MAX_AGE_MS } from '../../src/domain/delivery-chart.ts'
import { MAX_RANGE_DAYS } from '../../src/domain/stats.ts'
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

test('labelIndices: labels fit side by side and start at the first bucket', () => {
  assert.deepEqual(labelIndices(0, 5), [])
  assert.deepEqual(labelIndices(1, 5), [0])
  assert.deepEqual(labelIndices(3, 5), [0, 1, 2])
  const width = GEOMETRY.width - GEOMETRY.left - GEOMETRY.right
  for (const [count, chars] of [[24, 12], [48, 12], [31, 6], [731, 6], [120, 8]] as const) {
    const picked = labelIndices(count, chars)
    assert.equal(picked[0], 0)
    const every = picked.length > 1 ? picked[1]! - picked[0]! : count
    // Bucket spacing times the step leaves room for a label at the narrow-screen font (about 12.5 units a character).
    assert.ok((width / count) * every >= chars * 12.5, `${count} buckets of ${chars} characters: every ${every}`)
    assert.ok(picked.length <= count)
  }
})

test('placeLabels: labels stay inside the drawing and never run into each other', () => {
  const width = GEOMETRY.width - GEOMETRY.left - GEOMETRY.right
  for (const [count, text] of [[24, 'Nov 4, 00:00'], [49, 'Nov 4, 00:00'], [30, 'Oct 25'], [3, 'Nov 2'], [1, 'Nov 2026'], [731, 'Oct 25']] as const) {
    const texts = Array.from({ length: count }, () => text)
    const band = width / count
    const placed = placeLabels(labelIndices(count, text.length), texts, (i) => GEOMETRY.left + (i + 0.5) * band)
    assert.ok(placed.length >= 1 && placed[0]!.index === 0, `${count}: the first bucket is labelled`)
    const half = (text.length * 12.5) / 2
    for (const [n, label] of placed.entries()) {
      assert.ok(label.x - half >= 0 && label.x + half <= GEOMETRY.width, `${count}: inside`)
      if (n > 0) assert.ok(label.x - half >= placed[n - 1]!.x + half, `${count}: label ${n} clear of the one before`)
    }
  }
})

const day = (iso: string) => new Date(`${iso}T00:00:00Z`)
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

test('the empty state: "No delivery in this period" in the chart area, in the summary and in the data table', () => {
  const zeros = [day('2026-11-01'), day('2026-11-02')].map((t) => ({ t, value: 0 }))
  const html = renderToString(Chart(props(zeros)))
  assert.match(html, /<text class="empty" x="320" y="146" text-anchor="middle">No delivery in this period<\/text>/)
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

test('a chart: role img with a summary, axes with units, bars scaled to the nice axis, a caption and the numbers under Data', () => {
  const points = [
    { t: day('2026-11-01'), value: 3 },
    { t: day('2026-11-02'), value: 0 },
    { t: day('2026-11-03'), value: 7 },
  ]
  const html = renderToString(Chart(props(points, { total: '10 in total' })))
  assert.match(html, /^<figure class="chart" id="c"><svg viewBox="0 0 640 280" role="img" aria-label="([^"]+)"/)
  assert.match(html, /aria-label="Billable impressions by day, 2026-11-01 to 2026-11-03, 3 points: 10 in total; highest 7 at 2026-11-03\."/)
  assert.match(html, /<text class="axis-title" x="12" y="22">Impressions<\/text>/)
  // Axis 0..8 by 2: five gridlines, each labelled.
  for (const tick of ['0', '2', '4', '6', '8']) assert.match(html, new RegExp(`<text class="tick" x="14" y="[0-9.]+">${tick}</text>`))
  // Two bars (a zero bucket draws none); the tallest is 7/8 of the plot's height.
  const bars = [...html.matchAll(/<rect class="bar primary" x="([0-9.]+)" width="([0-9.]+)" y="([0-9.]+)" height="([0-9.]+)"><\/rect>/g)]
  assert.equal(bars.length, 2)
  const plotHeight = GEOMETRY.height - GEOMETRY.top - GEOMETRY.bottom
  assert.ok(Math.abs(Number(bars[1]![4]) - (plotHeight * 7) / 8) < 0.01)
  assert.ok(Math.abs(Number(bars[0]![4]) - (plotHeight * 3) / 8) < 0.01)
  assert.match(html, /<figcaption>Caption words<\/figcaption>/)
  assert.match(html, /<details class="chart-data"><summary>Data<\/summary>/)
  assert.match(html, /<th scope="col">Time \(UTC\)<\/th><th scope="col" class="num">Billable impressions<\/th>/)
  const rows = [...html.matchAll(/<tr><td>([^<]+)<\/td><td class="num">([^<]+)<\/td><\/tr>/g)].map((m) => [m[1], m[2]])
  assert.deepEqual(rows, [['2026-11-01', '3'], ['2026-11-02', '0'], ['2026-11-03', '7']])
  assert.doesNotMatch(html, /style=/, 'geometry only: colours and fonts come from site.css')

  const line = renderToString(Chart(props(points, { kind: 'line', tone: 'secondary' })))
  assert.match(line, /<polyline class="line secondary" points="[0-9., ]+"><\/polyline>/)
  assert.equal(line.match(/<circle class="dot secondary"/g)?.length, 3)
})

test('chartSummary names a single point by its time', () => {
  const summary = chartSummary(props([{ t: day('2026-11-02'), value: 5 }]))
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
  assert.equal(usdExactFromMicros(0), '$0.00')
  assert.equal(usdExactFromMicros(7_500), '$0.0075')
  assert.equal(usdExactFromMicros(12_500_000), '$12.50')
  assert.equal(usdExactFromMicros(1_234_567_891), '$1,234.567891')
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

test('statsQueryFromForm: UTC dates with End included, the API\'s last_days=30 by default, syntax errors per field', () => {
  assert.deepEqual(statsQueryFromForm({ granularity: '', start: '', end: '', campaign_id: '' }), { ok: true, query: { granularity: 'day', last_days: 30 } })
  assert.deepEqual(statsQueryFromForm({ granularity: 'hour', start: '2026-11-01', end: '2026-11-02', campaign_id: 'cmp_x' }), {
    ok: true,
    query: { granularity: 'hour', start: '2026-11-01T00:00:00.000Z', end: '2026-11-03T00:00:00.000Z', campaign_id: 'cmp_x' },
  })
  assert.deepEqual(statsQueryFromForm({ granularity: 'month', start: '2026-01-01', end: '', campaign_id: '' }), {
    ok: true,
    query: { granularity: 'month', start: '2026-01-01T00:00:00.000Z' },
  })
  assert.deepEqual(statsQueryFromForm({ granularity: 'week', start: '2026-02-30', end: '11/02/2026', campaign_id: '' }), {
    ok: false,
    errors: {
      granularity: 'Choose by hour, by day or by month.',
      start: 'Enter a date as YYYY-MM-DD, for example 2026-11-02.',
      end: 'Enter a date as YYYY-MM-DD, for example 2026-11-02.',
    },
  })
})
