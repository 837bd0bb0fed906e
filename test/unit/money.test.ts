import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { cpmUsdToMicros, impressionDebitMicros, impressionsCostMicros, microsToCents, scaleDecimal } from '../../src/domain/money.ts'

test('scaleDecimal reads the decimal the client wrote, exactly', () => {
  assert.equal(scaleDecimal(1.234, 6), 1_234_000)
  assert.equal(scaleDecimal(0.1, 6), 100_000)
  assert.equal(scaleDecimal(0.000001, 6), 1)
  assert.equal(scaleDecimal(1e-7, 6), null)
  assert.equal(scaleDecimal(1e21, 6), null)
  assert.equal(scaleDecimal(2.675, 3), 2675) // 2.675 is not exact in binary; the written digits are what count
  assert.equal(scaleDecimal(-1, 6), null)
  assert.equal(scaleDecimal(Number.NaN, 6), null)
})

test('CPM bids have at most six decimals (micro-USD per thousand), read exactly', () => {
  assert.equal(cpmUsdToMicros(0.5), 500_000)
  assert.equal(cpmUsdToMicros(2.505), 2_505_000)
  assert.equal(cpmUsdToMicros(2.5051), 2_505_100)
  assert.equal(cpmUsdToMicros(1.234567), 1_234_567)
  assert.equal(cpmUsdToMicros(0.000001), 1)
  assert.equal(cpmUsdToMicros(1.2345678), null)
  assert.equal(cpmUsdToMicros(1e-7), null)
})

test('impression debits: floor(n·c/1000) − floor((n−1)·c/1000)', () => {
  // 1.234567 USD CPM: 1,234.567 micros an impression, spread over whole micros.
  assert.deepEqual([1, 2, 3].map((n) => impressionDebitMicros(1_234_567, n)), [1234, 1235, 1234])
  assert.equal(impressionsCostMicros(1_234_567, 1000), 1_234_567)
  assert.equal(impressionsCostMicros(1_234_567, 0), 0)
  // A whole number of micros an impression debits exactly that, every time.
  assert.equal(impressionDebitMicros(2_505_000, 1), 2505)
  assert.equal(impressionDebitMicros(2_505_000, 99_999), 2505)
  // Below 1,000 micros per thousand, most impressions debit nothing and every 1000/c-th one micro.
  assert.equal(impressionDebitMicros(1, 999), 0)
  assert.equal(impressionDebitMicros(1, 1000), 1)
  assert.throws(() => impressionDebitMicros(1000, 0))
  assert.throws(() => impressionsCostMicros(1.5, 1))
  // The largest order the service can hold stays exact (no float overflow of n·c).
  assert.equal(impressionsCostMicros(90_000_000_001, 100_000), 9_000_000_000_100)
})

const cpm = fc.integer({ min: 1, max: 5_000_000_000 })

test('property: every block of 1,000 impressions debits exactly the CPM, in whole non-negative micros', () => {
  fc.assert(
    fc.property(cpm, fc.integer({ min: 0, max: 99 }), (c, block) => {
      let sum = 0
      for (let n = block * 1000 + 1; n <= (block + 1) * 1000; n++) {
        const d = impressionDebitMicros(c, n)
        if (!Number.isSafeInteger(d) || d < 0) return false
        // Never more than one micro away from the exact c/1000.
        if (Math.abs(d * 1000 - c) >= 1000) return false
        sum += d
      }
      return sum === c
    }),
    { numRuns: 200 },
  )
})

test('property: debits of impressions a+1..b sum to cost(b) − cost(a)', () => {
  fc.assert(
    fc.property(cpm, fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 0, max: 300 }), (c, a, len) => {
      let sum = 0
      for (let n = a + 1; n <= a + len; n++) sum += impressionDebitMicros(c, n)
      return sum === impressionsCostMicros(c, a + len) - impressionsCostMicros(c, a) && impressionsCostMicros(c, a) === Math.floor((a * c) / 1000)
    }),
  )
})

test('micros become cents by rounding half up, once', () => {
  assert.equal(microsToCents(0), 0)
  assert.equal(microsToCents(4_999), 0)
  assert.equal(microsToCents(5_000), 1)
  assert.equal(microsToCents(14_999), 1)
  assert.equal(microsToCents(15_000), 2)
  assert.equal(microsToCents(505_000), 51)
  assert.throws(() => microsToCents(-1))
  assert.throws(() => microsToCents(1.5))
})
