import { utcDay } from '../domain/clicks.ts'
import { utcHourStart, type SourceUse, type ViewerSet } from '../domain/invalid-traffic.ts'

const DAY_MS = 86_400_000
import type { Source } from '../domain/traffic-source.ts'

/**
 * At most this many sources are remembered; past it the whole tally is dropped. Forgetting a source
 * only costs a batch judged too kindly, which the store refuses and judges again from its counts
 * (`store/ledger.ts#writeBatch`, `store/ledger-state.ts#readSourceUse`).
 */
export const MAX_KNOWN_SOURCES = 100_000

/**
 * One source's day. Most sources have one viewer a day, so the first is held as is and a `Set` made
 * only for a second: 365 B a source with a `Set` each, measured at the cap (docs/performance.md).
 */
class Tally implements ViewerSet {
  viewers = 0
  billedThisHour = 0
  #first: string | undefined
  #more: Set<string> | undefined

  constructor(
    readonly day: string,
    public hourMs: number,
  ) {}

  has(viewerKey: string): boolean {
    return viewerKey === this.#first || (this.#more?.has(viewerKey) ?? false)
  }

  /** Adds `viewerKey`; false when it was known already. */
  add(viewerKey: string): boolean {
    if (this.has(viewerKey)) return false
    if (this.#first === undefined) this.#first = viewerKey
    else (this.#more ??= new Set()).add(viewerKey)
    return true
  }

  *[Symbol.iterator](): Iterator<string> {
    if (this.#first !== undefined) yield this.#first
    if (this.#more) yield* this.#more
  }
}

/**
 * What this instance knows of each source's use of its invalid-traffic bounds, and of each IPv6 /48's
 * (keyed like `domain/invalid-traffic.ts#boundKeysOf`): the billable units it committed, and the
 * store's counts whenever a batch was judged from the store. A batch is judged on
 * it without a read (`ledger-batch.ts`); the ledger statement re-checks the store's counts.
 */
export class SourceTally {
  readonly #tallies = new Map<Source, Tally>()
  /** The UTC day of the last instant asked about, kept: a batch asks about many sources at one instant. */
  #dayOf = { dayNumber: NaN, day: '' }

  /** What is known of `source` on the UTC day and hour of `nowMs`. */
  use(source: Source, nowMs: number): SourceUse | undefined {
    const t = this.#current(source, nowMs, false)
    return t && { viewers: t.viewers, knownViewers: t, billedThisHour: t.billedThisHour }
  }

  /** The known use of every source in `sources`. */
  snapshot(sources: Iterable<Source>, nowMs: number): Map<Source, SourceUse> {
    const out = new Map<Source, SourceUse>()
    for (const s of sources) {
      const u = this.use(s, nowMs)
      if (u) out.set(s, u)
    }
    return out
  }

  /** A billable unit this instance committed. */
  recordUnit(source: Source, viewerKey: string, nowMs: number): void {
    const t = this.#current(source, nowMs, true)!
    if (t.add(viewerKey)) t.viewers++
    t.billedThisHour++
  }

  /** The store's counts, read for a batch: never lower than what is known. */
  learn(read: ReadonlyMap<Source, SourceUse>, nowMs: number): void {
    for (const [source, u] of read) {
      const t = this.#current(source, nowMs, true)!
      for (const v of u.knownViewers) t.add(v)
      t.viewers = Math.max(t.viewers, u.viewers)
      t.billedThisHour = Math.max(t.billedThisHour, u.billedThisHour)
    }
  }

  #day(nowMs: number): string {
    const dayNumber = Math.floor(nowMs / DAY_MS)
    if (dayNumber !== this.#dayOf.dayNumber) this.#dayOf = { dayNumber, day: utcDay(nowMs) }
    return this.#dayOf.day
  }

  #current(source: Source, nowMs: number, create: boolean): Tally | undefined {
    const day = this.#day(nowMs)
    const hourMs = utcHourStart(nowMs)
    let t = this.#tallies.get(source)
    if (t && t.day !== day) {
      this.#tallies.delete(source)
      t = undefined
    }
    if (!t) {
      if (!create) return undefined
      if (this.#tallies.size >= MAX_KNOWN_SOURCES) this.#tallies.clear()
      t = new Tally(day, hourMs)
      this.#tallies.set(source, t)
    }
    if (t.hourMs !== hourMs) {
      t.hourMs = hourMs
      t.billedThisHour = 0
    }
    return t
  }
}
