import assert from 'node:assert/strict'
import { test } from 'node:test'
import { cpmUsdToMicros, impressionPriceMicros, microsToCents, scaleDecimal } from '../../src/domain/money.ts'

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

test('CPM bids have at most three decimals so each impression is a whole micro-USD', () => {
  assert.equal(cpmUsdToMicros(0.5), 500_000)
  assert.equal(cpmUsdToMicros(2.505), 2_505_000)
  assert.equal(cpmUsdToMicros(2.5051), null)
  assert.equal(impressionPriceMicros(2_505_000), 2505)
  assert.ok(Number.isInteger(impressionPriceMicros(cpmUsdToMicros(0.001)!)))
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
