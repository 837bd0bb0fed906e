/**
 * One window's counts for the in-memory counter store, bounded in memory
 * whatever keys arrive (memory-counters.ts).
 */

/**
 * Keys counted exactly per window (current and previous each): about
 * 170 bytes a key, so ~11 MB a window at the bound. Beyond it, a key first
 * seen in that window is counted in a sketch (below). Ever-new keys (a new
 * viewer per decision, 12,000 a second in the benchmark) so cost a fixed
 * amount of memory, not one entry each (docs/serving.md (decision 0073)).
 */
export const MAX_EXACT_KEYS = 65_536
/** Counters per row of the sketch (two rows, 32 bits each: 2 MiB a window, allocated at the first overflow). */
const SKETCH_WIDTH = 1 << 18

/**
 * One window's counts: exact per key up to MAX_EXACT_KEYS keys, then a
 * count-min sketch (two rows of counters, a key's count is the smaller of
 * its two). A sketch never counts a key low, only high when other keys
 * share both its counters: at the bound a limit errs on refusing, never on
 * letting an abusive key through. The hash seeds are random per process, so
 * nobody can pick keys that collide on purpose.
 */
export class BoundedCounts {
  readonly #exact = new Map<string, number>()
  #sketch: Uint32Array | null = null
  readonly #seeds: readonly [number, number]
  readonly #maxExact: number

  constructor(seeds: readonly [number, number], maxExact = MAX_EXACT_KEYS) {
    this.#seeds = seeds
    this.#maxExact = maxExact
  }

  /** Keys counted exactly (at most the bound). */
  get exactKeys(): number {
    return this.#exact.size
  }

  /** Adds one to `key` and returns its count. */
  add(key: string): number {
    const n = this.#exact.get(key)
    if (n !== undefined || this.#exact.size < this.#maxExact) {
      this.#exact.set(key, (n ?? 0) + 1)
      return (n ?? 0) + 1
    }
    const sketch = (this.#sketch ??= new Uint32Array(2 * SKETCH_WIDTH))
    const a = this.#slot(key, 0)
    const b = this.#slot(key, 1)
    return Math.min(++sketch[a]!, ++sketch[b]!)
  }

  get(key: string): number {
    const n = this.#exact.get(key)
    if (n !== undefined || this.#sketch === null) return n ?? 0
    return Math.min(this.#sketch[this.#slot(key, 0)]!, this.#sketch[this.#slot(key, 1)]!)
  }

  /** Takes back one `add` of `key` (never below zero). */
  remove(key: string): void {
    const n = this.#exact.get(key)
    if (n !== undefined) {
      if (n > 1) this.#exact.set(key, n - 1)
      else this.#exact.delete(key)
      return
    }
    const sketch = this.#sketch
    if (sketch === null) return
    const a = this.#slot(key, 0)
    const b = this.#slot(key, 1)
    // A refund follows its own add (plugins/refunds.ts), so both counters hold that unit: taking it back keeps every estimate an upper bound.
    if (sketch[a]! > 0 && sketch[b]! > 0) {
      sketch[a]!--
      sketch[b]!--
    }
  }

  /** FNV-1a of the key from a random seed, one seed a row. */
  #slot(key: string, row: 0 | 1): number {
    let h = this.#seeds[row]
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193)
    return row * SKETCH_WIDTH + ((h >>> 0) & (SKETCH_WIDTH - 1))
  }
}
