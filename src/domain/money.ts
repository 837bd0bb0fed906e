/**
 * Money is integers: micro-USD (1e-6 USD) for bids and delivered value, cents
 * for balances and order totals.
 *
 * THE rounding rule, stated once: an amount in micros becomes cents by
 * rounding half up (half a cent or more rounds to the next cent), applied
 * once per amount (one order total, one invoice line), never per impression.
 */
export const MICROS_PER_USD = 1_000_000
export const MICROS_PER_CENT = 10_000

export function microsToCents(micros: number): number {
  if (!Number.isSafeInteger(micros) || micros < 0) throw new RangeError(`micros must be a non-negative integer, got ${micros}`)
  return Math.floor((micros + MICROS_PER_CENT / 2) / MICROS_PER_CENT)
}

/**
 * The exact decimal a client wrote as a JSON number, scaled to an integer:
 * `scaleDecimal(1.234, 6)` is 1_234_000. Uses the shortest round-trip decimal
 * form of the double, which is what the client's digits parse back to.
 * Returns null when the value has more fractional digits than `scale`.
 */
export function scaleDecimal(value: number, scale: number): number | null {
  if (!Number.isFinite(value) || value < 0) return null
  const [mantissa = '', expPart] = value.toString().toLowerCase().split('e')
  const exp = expPart === undefined ? 0 : Number(expPart)
  const [intDigits = '', fracDigits = ''] = mantissa.split('.')
  const digits = intDigits + fracDigits
  // Position of the decimal point after applying the exponent.
  const point = intDigits.length + exp
  const fractional = digits.length - point
  if (fractional > scale) {
    // Trailing zeros never occur in the shortest form, so this is real precision.
    return null
  }
  const scaled = Number(digits + '0'.repeat(scale - fractional))
  return Number.isSafeInteger(scaled) ? scaled : null
}

/**
 * A CPM bid in micro-USD. One impression is debited cpm/1000, so a bid must be
 * a whole number of micro-USD per impression: at most three decimals of USD
 * (0.001 USD per thousand). Finer bids are refused, not rounded.
 */
export function cpmUsdToMicros(cpmUsd: number): number | null {
  const micros = scaleDecimal(cpmUsd, 6)
  if (micros === null || micros % 1000 !== 0) return null
  return micros
}

export function microsToUsd(micros: number): number {
  return micros / MICROS_PER_USD
}

/** Price of one impression in micro-USD: exactly cpm / 1000 (an integer by construction). */
export function impressionPriceMicros(cpmMicros: number): number {
  return cpmMicros / 1000
}

/** Maximum face value of an order: cpm × blocks, in micros. */
export function orderFaceValueMicros(cpmMicros: number, blocks: number): number {
  return cpmMicros * blocks
}
