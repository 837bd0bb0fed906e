/** The extension's controller against a fake clock, a fake window focus and a fake service (no `vscode`). */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Decision } from '@thinking-line/ad-client/decision'
import type { Report } from '@thinking-line/ad-client/reports'
import { Controller, type Fetched, type Offer, type ShowSetting } from '../src/controller.ts'
import { FakeClock } from './fake-clock.ts'

let n = 0
const decision = (): Decision => ({ impression_id: `imp-${++n}`, ad_line: 'Ship faster', brand: 'Acme', click_url: `https://ads.example/click/${n}` })

function setup(o: { show?: ShowSetting; focused?: boolean; answers?: Fetched['kind'][] } = {}) {
  const clock = new FakeClock()
  const shown: (string | null)[] = []
  const reports: Report[] = []
  const answers = [...(o.answers ?? [])]
  let fetches = 0
  let delivered = 0
  const service = {
    fetchOffer: async (): Promise<Fetched> => {
      fetches++
      const kind = answers.shift() ?? 'ad'
      return kind === 'ad' ? { kind, decision: decision(), topics: ['react'] } : { kind }
    },
    queue: (r: Report) => void reports.push(r),
    pending: () => reports.length - delivered,
    deliver: async () => {
      delivered = reports.length
      return { failed: false }
    },
  }
  const display = { show: (offer: Offer) => void shown.push(offer.decision.impression_id), hide: () => void shown.push(null) }
  const c = new Controller(clock, display, service, { show: o.show ?? 'whileThinking', focused: o.focused ?? true })
  c.start()
  return { clock, c, shown, reports, fetches: () => fetches, delivered: () => delivered }
}

test('nothing is fetched, shown or timed while no assistant works', async () => {
  const s = setup()
  await s.clock.advance(60_000)
  assert.equal(s.fetches(), 0)
  assert.deepEqual(s.shown, [])
  assert.equal(s.clock.pending(), 0)
})

test('thinking starts: one decision, the ad shown; 10 s focused: the view queued once with its measured dwell, the next ad follows', async () => {
  const s = setup()
  const end = s.c.thinking()
  await s.clock.advance(0)
  assert.equal(s.fetches(), 1)
  assert.deepEqual(s.shown, ['imp-' + n])
  const first = s.shown[0]
  await s.clock.advance(9_999)
  assert.equal(s.reports.length, 0)
  assert.equal(s.c.snapshot().dwellMs, 9_999)
  await s.clock.advance(1)
  assert.deepEqual(s.reports.map((r) => [r.impression_id, r.dwell_ms]), [[first, 10_000]])
  assert.equal(s.delivered(), 1, 'sent at once')
  assert.equal(s.fetches(), 2, 'the next decision, asked for when the exposure ended')
  assert.notEqual(s.c.snapshot().shown, first)
  await s.clock.advance(10_000)
  assert.equal(s.reports.length, 2)
  end()
  await s.clock.advance(0)
  assert.equal(s.c.snapshot().shown, null)
  assert.equal(s.shown.at(-1), null)
})

test('dwell accrues only while the window is focused; a blur of at most 2 s pauses it, a longer one ends the exposure with the dwell it had', async () => {
  const s = setup()
  s.c.thinking()
  await s.clock.advance(4_000)
  s.c.setFocused(false)
  await s.clock.advance(2_000)
  s.c.setFocused(true)
  assert.equal(s.reports.length, 0, 'a 2 s blur only pauses')
  await s.clock.advance(3_000)
  assert.equal(s.c.snapshot().dwellMs, 7_000, 'the blur did not count')
  s.c.setFocused(false)
  await s.clock.advance(11_000)
  assert.equal(s.reports.length, 1)
  assert.equal(s.reports[0]?.dwell_ms, 7_000, 'ended early: reported with its own dwell, not billable')
  assert.equal(s.c.snapshot().dwellMs, 0, 'the next ad, shown unfocused, accrues nothing')
  await s.clock.advance(60_000)
  assert.equal(s.reports.length, 1, 'an unfocused window never completes a view')
  s.c.setFocused(true)
  await s.clock.advance(10_000)
  assert.equal(s.reports.length, 2)
  assert.equal(s.reports[1]?.dwell_ms, 10_000)
})

test('a window unfocused from the start: the ad is shown, nothing accrues, nothing is reported', async () => {
  const s = setup({ focused: false })
  s.c.thinking()
  await s.clock.advance(11_000)
  assert.notEqual(s.c.snapshot().shown, null)
  assert.equal(s.c.snapshot().dwellMs, 0)
  assert.equal(s.reports.length, 0)
  assert.equal(s.fetches(), 1)
})

test('thinking stops early: the item hides; after 2 s the exposure ends with its dwell and one decision is prefetched; the next thinking shows it at once', async () => {
  const s = setup()
  const end = s.c.thinking()
  await s.clock.advance(3_000)
  end()
  end()
  await s.clock.advance(0)
  assert.equal(s.c.snapshot().shown, null)
  await s.clock.advance(2_001)
  assert.deepEqual(s.reports.map((r) => r.dwell_ms), [3_000])
  assert.equal(s.fetches(), 2, 'prefetched at the end of the exposure')
  await s.clock.advance(120_000)
  assert.equal(s.fetches(), 2, 'no polling while nobody thinks')
  assert.equal(s.clock.pending(), 0)
  s.c.thinking()
  assert.notEqual(s.c.snapshot().shown, null, 'shown without waiting for the network')
  assert.equal(s.fetches(), 2)
})

test('a quick stop and start (at most 2 s) keeps the exposure; overlapping holds keep the item shown', async () => {
  const s = setup()
  const a = s.c.thinking()
  await s.clock.advance(5_000)
  const b = s.c.thinking()
  a()
  await s.clock.advance(1_000)
  assert.equal(s.c.snapshot().dwellMs, 6_000)
  b()
  await s.clock.advance(1_500)
  s.c.thinking()
  await s.clock.advance(4_000)
  assert.deepEqual(s.reports.map((r) => r.dwell_ms), [10_000], 'the hidden 1.5 s did not count')
})

test('service down: the item stays hidden, retries back off (1 s, 2 s, 4 s…) only while thinking; nothing after it stops', async () => {
  const s = setup({ answers: ['failed', 'failed', 'failed', 'failed'] })
  const end = s.c.thinking()
  await s.clock.advance(0)
  assert.equal(s.fetches(), 1)
  await s.clock.advance(999)
  assert.equal(s.fetches(), 1)
  await s.clock.advance(1)
  assert.equal(s.fetches(), 2)
  await s.clock.advance(2_000)
  assert.equal(s.fetches(), 3)
  assert.deepEqual(s.shown, [])
  end()
  await s.clock.advance(600_000)
  assert.equal(s.fetches(), 3)
  assert.equal(s.clock.pending(), 0)
  s.c.thinking()
  await s.clock.advance(0)
  assert.equal(s.fetches(), 4, 'the next thinking tries again once the back-off is over')
  await s.clock.advance(8_000)
  assert.equal(s.fetches(), 5)
  assert.notEqual(s.c.snapshot().shown, null)
})

test('nothing to show (204): asked again after 15 s while thinking', async () => {
  const s = setup({ answers: ['none'] })
  s.c.thinking()
  await s.clock.advance(14_999)
  assert.equal(s.fetches(), 1)
  await s.clock.advance(1)
  assert.equal(s.fetches(), 2)
})

test('show: always shows without an assistant; never fetches nothing and hides the item', async () => {
  const s = setup({ show: 'always' })
  await s.clock.advance(0)
  assert.equal(s.fetches(), 1)
  assert.notEqual(s.c.snapshot().shown, null)
  await s.clock.advance(5_000)
  s.c.setShow('never')
  await s.clock.advance(0)
  assert.equal(s.c.snapshot().shown, null)
  await s.clock.advance(2_001)
  assert.deepEqual(s.reports.map((r) => r.dwell_ms), [5_000])
  s.c.thinking()
  await s.clock.advance(60_000)
  assert.equal(s.fetches(), 1, 'never: not even the prefetch')
})

test('dispose: an exposure under way is reported with its dwell; no timer is left', async () => {
  const s = setup()
  s.c.thinking()
  await s.clock.advance(6_500)
  s.c.dispose()
  assert.deepEqual(s.reports.map((r) => r.dwell_ms), [6_500])
  assert.equal(s.clock.pending(), 0)
})

test('an offer not shown within 30 minutes is dropped, never reported, and a fresh one is asked for', async () => {
  const s = setup()
  const end = s.c.thinking()
  s.c.setFocused(false)
  await s.clock.advance(0)
  end()
  await s.clock.advance(31 * 60_000)
  s.c.setFocused(true)
  s.c.thinking()
  await s.clock.advance(0)
  assert.equal(s.fetches(), 2)
  assert.equal(s.reports.length, 0)
})
