import assert from 'node:assert/strict'
import { test } from 'node:test'
import { mayTakeOffer, OUTSTANDING_WINDOW_MS, type Delivery } from '../../src/domain/auction.ts'
import { OutstandingOffers } from '../../src/serving/outstanding-offers.ts'

const T0 = 1_800_000_000_000
const MINUTE = 60_000

function campaign(overrides: Partial<Delivery> = {}): Delivery {
  return { impressions: 1000, billed: 0, paceMinutes: null, activatedAtMs: T0, pausedMs: 0, ...overrides }
}

test('an unpaced campaign with R impressions left takes offers while fewer than R are outstanding', () => {
  const c = campaign({ billed: 990 })
  assert.equal(mayTakeOffer(c, 9, T0), true)
  assert.equal(mayTakeOffer(c, 10, T0), false, '10 left, 10 outstanding')
  assert.equal(mayTakeOffer(campaign({ billed: 1000 }), 0, T0), false, 'sold out')
})

test('a paced campaign takes the k-th offer once k impressions are due, outstanding ones included', () => {
  // 1,000 impressions over 100 minutes: one due every 6 s.
  const c = campaign({ paceMinutes: 100 })
  assert.equal(mayTakeOffer(c, 0, T0), false, 'nothing is due at the first instant')
  assert.equal(mayTakeOffer(c, 0, T0 + 5_999), false)
  assert.equal(mayTakeOffer(c, 0, T0 + 6_000), true, 'the first is due at 6 s')
  assert.equal(mayTakeOffer(c, 1, T0 + 6_000), false, 'an outstanding offer counts as delivered')
  assert.equal(mayTakeOffer({ ...c, billed: 1 }, 0, T0 + 6_000), false)
  assert.equal(mayTakeOffer({ ...c, billed: 1 }, 1, T0 + 12_000), false)
  assert.equal(mayTakeOffer({ ...c, billed: 1 }, 0, T0 + 12_000), true)
})

test('pacing excludes paused time, stops at pace_minutes, and never lets a campaign pass what it bought', () => {
  const c = campaign({ paceMinutes: 100, pausedMs: 60 * MINUTE })
  assert.equal(mayTakeOffer(c, 0, T0 + 60 * MINUTE + 5_999), false, 'the paused hour does not count')
  assert.equal(mayTakeOffer(c, 0, T0 + 60 * MINUTE + 6_000), true)
  assert.equal(mayTakeOffer(campaign({ paceMinutes: 100, billed: 500 }), 499, T0 + 100 * MINUTE), true, 'the schedule is over')
  assert.equal(mayTakeOffer(campaign({ paceMinutes: 100, billed: 500 }), 500, T0 + 200 * MINUTE), false, 'inventory still binds')
  assert.equal(mayTakeOffer(campaign({ paceMinutes: 100, activatedAtMs: null }), 0, T0 + MINUTE), false, 'never active')
})

test('paced: offers taken one by one never put delivered plus outstanding above the schedule', () => {
  const c = campaign({ impressions: 3000, paceMinutes: 7 })
  let taken = 0
  for (let t = T0; t < T0 + 7 * MINUTE + 997; t += 997) {
    while (mayTakeOffer(c, taken, t)) taken++
    assert.ok(taken * 7 * MINUTE <= 3000 * Math.min(t - T0, 7 * MINUTE), `at ${t - T0} ms: ${taken}`)
  }
  assert.equal(taken, 3000)
})

test('outstanding offers: counted per campaign, released by their view, expired after the window', () => {
  const o = new OutstandingOffers()
  o.add('c1', T0)
  o.add('c1', T0 + 500)
  o.add('c1', T0 + 1_200)
  o.add('c2', T0)
  assert.equal(o.count('c1', T0 + 1_200), 3)
  assert.equal(o.count('c2', T0 + 1_200), 1)
  o.resolve('c1', T0 + 500, T0 + 10_000)
  assert.equal(o.count('c1', T0 + 10_000), 2)
  o.resolve('c1', T0 + 1_200, T0 + 10_000)
  o.resolve('c1', T0 + 1_200, T0 + 10_000)
  assert.equal(o.count('c1', T0 + 10_000), 1, 'a second release of the same second finds nothing left there')
  assert.equal(o.count('c1', T0 + OUTSTANDING_WINDOW_MS - 1), 1)
  assert.equal(o.count('c1', T0 + OUTSTANDING_WINDOW_MS), 0, 'an offer never viewed stops counting after the window')
  o.resolve('c2', T0, T0 + OUTSTANDING_WINDOW_MS)
  assert.equal(o.count('c2', T0 + OUTSTANDING_WINDOW_MS), 0, 'a late view of an expired offer releases nothing more')
  o.add('c1', T0 + OUTSTANDING_WINDOW_MS + 100)
  assert.equal(o.count('c1', T0 + 10 * OUTSTANDING_WINDOW_MS), 0, 'a jump past the whole window empties it')
  assert.equal(o.count('c3', T0), 0)
})

test('outstanding offers: a clock stepped back counts at the latest instant seen, and a long run stays exact', () => {
  const o = new OutstandingOffers()
  o.add('c1', T0 + 5_000)
  o.add('c1', T0) // before the head: counted as made at T0 + 5 s
  assert.equal(o.count('c1', T0 + 5_000 + OUTSTANDING_WINDOW_MS - 1), 2)
  assert.equal(o.count('c1', T0 + 5_000 + OUTSTANDING_WINDOW_MS), 0)
  // One offer every 250 ms for ten minutes; every fourth viewed 2 s later.
  const made: number[] = []
  for (let t = T0 + MINUTE; t < T0 + 11 * MINUTE; t += 250) {
    o.add('c4', t)
    made.push(t)
    const viewed = t - 2_000
    if (viewed >= T0 + MINUTE && (viewed - T0) % 1_000 === 0) o.resolve('c4', viewed, t)
    const live = made.filter((m) => Math.floor(m / 1000) > Math.floor(t / 1000) - OUTSTANDING_WINDOW_MS / 1000).length
    const released = made.filter((m) => m <= viewed && m >= T0 + MINUTE && (m - T0) % 1_000 === 0 && Math.floor(m / 1000) > Math.floor(t / 1000) - OUTSTANDING_WINDOW_MS / 1000).length
    if (made.length % 97 === 0) assert.equal(o.count('c4', t), live - released, `at ${t - T0}`)
  }
})
