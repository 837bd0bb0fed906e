/** Percentiles and other summaries of measured samples. */

export interface LatencySummary {
  count: number
  p50: number | null
  p99: number | null
  max: number | null
}

export const round2 = (x: number) => Math.round(x * 100) / 100

/** The nearest-rank quantile of ascending `sorted` (non-empty), e.g. p = 0.99. */
export function nearestRank(sorted: ArrayLike<number>, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!
}

export const ascending = (xs: readonly number[]): number[] => [...xs].sort((a, b) => a - b)

export const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length

/** The median (the mean of the two middle values of an even count). */
export function median(xs: readonly number[]): number {
  const s = ascending(xs)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/** Growable sample buffer; exact percentiles by sorting at the end (bounded by the run's request count). */
export class Samples {
  #buf = new Float64Array(1024)
  #n = 0
  #sorted: Float64Array | null = null
  add(v: number): void {
    if (this.#n === this.#buf.length) {
      const next = new Float64Array(this.#buf.length * 2)
      next.set(this.#buf)
      this.#buf = next
    }
    this.#buf[this.#n++] = v
    this.#sorted = null
  }
  get count(): number {
    return this.#n
  }
  /** Exact quantile (nearest rank), e.g. 0.99, to two decimals; null without samples. */
  quantile(p: number): number | null {
    if (this.#n === 0) return null
    if (!this.#sorted) this.#sorted = this.#buf.slice(0, this.#n).sort()
    return round2(nearestRank(this.#sorted, p))
  }
  summary(): LatencySummary {
    return { count: this.#n, p50: this.quantile(0.5), p99: this.quantile(0.99), max: this.quantile(1) }
  }
}
