import assert from 'node:assert/strict'
import { test } from 'node:test'
import { addOffers, emptyState, MAX_GAP_MS, OFFER_TTL_MS, parseState, step, type State } from '../src/exposure.js'

const decision = (id: string) => ({ impression_id: id, ad_line: `line ${id}`, brand: null, click_url: `https://x/${id}` })
const withOffers = (ids: string[], at = 0): State => addOffers(emptyState(), ids.map(decision), at)

/** Invocations at the given times; the ads printed and the views reported. */
function run(state: State, times: number[]) {
  const shown: (string | null)[] = []
  const reports: { impression_id: string; dwell_ms: number }[] = []
  for (const t of times) {
    const r = step(state, t)
    state = r.state
    shown.push(r.ad?.impression_id ?? null)
    reports.push(...r.reports.map(({ impression_id, dwell_ms }) => ({ impression_id, dwell_ms })))
  }
  return { state, shown, reports }
}
const every = (ms: number, from: number, to: number) => Array.from({ length: Math.floor((to - from) / ms) + 1 }, (_, i) => from + i * ms)

test('nothing to show: no ad, an offer wanted, nothing reported', () => {
  const r = step(emptyState(), 1_000)
  assert.equal(r.ad, null)
  assert.equal(r.wantsOffer, true)
  assert.deepEqual(r.reports, [])
})

test('an ad stays while shown less than 10 s; the invocation after 10 s moves on and reports the measured dwell', () => {
  const times = every(300, 1_000, 12_000) // 1.0 s … 11.8 s
  const { shown, reports, state } = run(withOffers(['a', 'b']), times)
  // a is printed at 1.0 s … 11.2 s (10.2 s ≥ 10 s), b from 11.5 s.
  const lastA = shown.lastIndexOf('a')
  assert.equal(times[lastA], 11_200)
  assert.ok(shown.slice(0, lastA + 1).every((id) => id === 'a'))
  assert.ok(shown.slice(lastA + 1).every((id) => id === 'b'))
  assert.deepEqual(reports, [{ impression_id: 'a', dwell_ms: 10_200 }])
  assert.deepEqual(state.exposure, { start: 11_500, last: 11_800 })
})

test('an exposure ended by a gap over 2 s is reported with its shorter dwell; the next ad starts a new exposure', () => {
  const { shown, reports } = run(withOffers(['a', 'b']), [0, 1_000, 2_000, 3_000, 3_000 + MAX_GAP_MS + 1, 5_500])
  assert.deepEqual(shown, ['a', 'a', 'a', 'a', 'b', 'b'])
  assert.deepEqual(reports, [{ impression_id: 'a', dwell_ms: 3_000 }])
})

test('a gap of exactly 2 s keeps the exposure', () => {
  const { reports, state } = run(withOffers(['a']), [0, 2_000, 4_000])
  assert.deepEqual(reports, [])
  assert.deepEqual(state.exposure, { start: 0, last: 4_000 })
})

test('an ad printed once and never again is reported with dwell 0; with no next offer the line has no ad', () => {
  const { shown, reports } = run(withOffers(['a']), [0, 5_000])
  assert.deepEqual(shown, ['a', null])
  assert.deepEqual(reports, [{ impression_id: 'a', dwell_ms: 0 }])
})

test('a clock that goes back ends the exposure (never a negative or invented dwell)', () => {
  const { reports } = run(withOffers(['a', 'b']), [10_000, 11_000, 9_000])
  assert.deepEqual(reports, [{ impression_id: 'a', dwell_ms: 1_000 }])
})

test('offers never shown expire without a report; an exposed ad is never dropped that way', () => {
  const stale = step(withOffers(['a', 'b'], 0), OFFER_TTL_MS + 1)
  assert.equal(stale.ad, null)
  assert.deepEqual(stale.reports, [])
  assert.equal(stale.wantsOffer, true)
})

test('the refresher fills the empty places only, and keeps the exposure of the ad on screen', () => {
  const shown = step(withOffers(['a']), 100).state
  const filled = addOffers(shown, [decision('b'), decision('c')], 200)
  assert.equal(filled.current?.decision.impression_id, 'a')
  assert.equal(filled.next?.decision.impression_id, 'b')
  assert.deepEqual(filled.exposure, { start: 100, last: 100 })
})

test('a state file that is not ours reads as empty; a valid one round-trips', () => {
  assert.deepEqual(parseState(null), emptyState())
  assert.deepEqual(parseState({ v: 2 }), emptyState())
  assert.deepEqual(parseState({ v: 1, current: { decision: { impression_id: 1 } } }), emptyState())
  const state = step(withOffers(['a', 'b']), 5).state
  assert.deepEqual(parseState(JSON.parse(JSON.stringify(state))), state)
})
