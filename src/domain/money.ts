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

/**
 * Operator figures (config amounts, credit limits) are bounded so that every
 * derived amount stays an exact integer: a billion USD is 10^15 micro-USD,
 * below 2^53. Without a bound, `1e309` (Infinity) was stored as null.
 */
export const MAX_OPERATOR_USD = 1_000_000_000

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

/** Decimals a CPM bid may carry: micro-USD per thousand impressions. */
export const CPM_MAX_DECIMALS = 6

/**
 * A CPM bid in micro-USD: at most six decimals of USD (one micro-USD per
 * thousand). Finer bids are refused, not rounded. A bid need not be a whole
 * number of micros per impression: `impressionDebitMicros` spreads it.
 */
export function cpmUsdToMicros(cpmUsd: number): number | null {
  return scaleDecimal(cpmUsd, CPM_MAX_DECIMALS)
}

export function microsToUsd(micros: number): number {
  return micros / MICROS_PER_USD
}

/**
 * What a campaign's first `n` billable impressions cost together, in micros:
 * floor(n × cpm / 1000). Computed as n × ⌊cpm/1000⌋ + ⌊n × (cpm mod 1000) / 1000⌋,
 * which is the same integer but never leaves the safe-integer range for any
 * bid and impression count the service can hold. The ledger writes the same
 * formula in SQL (`src/store/ledger.ts#writeBatch`).
 */
export function impressionsCostMicros(cpmMicros: number, n: number): number {
  if (!Number.isSafeInteger(cpmMicros) || cpmMicros < 0) throw new RangeError(`cpm must be a non-negative integer, got ${cpmMicros}`)
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`impression count must be a non-negative integer, got ${n}`)
  const whole = Math.floor(cpmMicros / 1000)
  return n * whole + Math.floor((n * (cpmMicros % 1000)) / 1000)
}

/**
 * The debit of a campaign's `n`-th billable impression (n from 1):
 * floor(n·c/1000) − floor((n−1)·c/1000). Every impression is a whole number of
 * micros, never negative, and impressions k·1000+1 … (k+1)·1000 always sum to
 * exactly the CPM, so a bid like 1.234567 USD bills each block of 1,000 at
 * 1,234,567 micros with no drift and no rounding to cents per impression.
 */
export function impressionDebitMicros(cpmMicros: number, n: number): number {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`impression number must be a positive integer, got ${n}`)
  return impressionsCostMicros(cpmMicros, n) - impressionsCostMicros(cpmMicros, n - 1)
}

/** Maximum face value of an order: cpm × blocks, in micros. */
export function orderFaceValueMicros(cpmMicros: number, blocks: number): number {
  return cpmMicros * blocks
}
