import { parseCidr, sourceInCidr, type Cidr, type Source } from './traffic-source.ts'

/**
 * What one traffic source may make billable (operations.md section 2, "Invalid traffic";
 * docs/invalid-traffic.md): per UTC day, only its first `maxViewersPerDay` distinct viewers earn
 * billable units; per UTC hour, at most `maxBillablePerHour` billable units. A unit is what a campaign
 * bills: a billable impression (an impression campaign's, or a click campaign's qualified view) or a
 * click campaign's billable click. Past either bound the event is recorded with reason
 * `invalid_traffic`, and so is every event of a blocked source or viewer.
 */
export interface SourceLimits {
  maxViewersPerDay: number
  maxBillablePerHour: number
}

export const HOUR_MS = 3_600_000

/** The UTC hour (its first instant, ms) of a service-clock instant. */
export const utcHourStart = (ms: number): number => Math.floor(ms / HOUR_MS) * HOUR_MS

/**
 * What is known of one source when a batch is judged: for its day, how many viewers earned billable
 * units and which of the batch's viewers are among them; for its hour, how many units billed.
 */
export interface SourceUse {
  viewers: number
  /** Viewers known to have earned billable units that day (at least the batch's, when read from the store). */
  knownViewers: ReadonlySet<string>
  billedThisHour: number
}

const NOTHING_USED: SourceUse = { viewers: 0, knownViewers: new Set(), billedThisHour: 0 }

/**
 * The bounds of every source of one batch, spent in arrival order: `admits` says whether one more
 * billable unit of `viewerKey` from `source` stays within both, and `take` counts it once the event
 * is billed. Views and clicks of one batch share one budget.
 */
export class SourceBudget {
  readonly #limits: SourceLimits
  readonly #use: ReadonlyMap<Source, SourceUse>
  readonly #added = new Map<Source, { viewers: Set<string>; billed: number }>()

  constructor(limits: SourceLimits, use: ReadonlyMap<Source, SourceUse>) {
    this.#limits = limits
    this.#use = use
  }

  /** Whether one more unit stays within the bounds. An event whose source is unknown (an id sealed before sources were) is not bounded. */
  admits(source: Source | null, viewerKey: string): boolean {
    if (source === null) return true
    const use = this.#use.get(source) ?? NOTHING_USED
    const added = this.#added.get(source)
    const newViewer = !use.knownViewers.has(viewerKey) && !added?.viewers.has(viewerKey)
    if (newViewer && use.viewers + (added?.viewers.size ?? 0) >= this.#limits.maxViewersPerDay) return false
    return use.billedThisHour + (added?.billed ?? 0) < this.#limits.maxBillablePerHour
  }

  /** Counts one billed unit (after `admits` said yes). */
  take(source: Source | null, viewerKey: string): void {
    if (source === null) return
    let added = this.#added.get(source)
    if (!added) this.#added.set(source, (added = { viewers: new Set(), billed: 0 }))
    if (!this.#use.get(source)?.knownViewers.has(viewerKey)) added.viewers.add(viewerKey)
    added.billed++
  }
}

/** One entry of the operators' block list: an address range (CIDR text) or a viewer key. */
export interface TrafficBlock {
  kind: 'cidr' | 'viewer'
  value: string
}

/**
 * The operators' block list as the serving path asks it: is this source, or this viewer, blocked?
 * Views and clicks of a blocked source or viewer never bill (`invalid_traffic`); decisions are still
 * answered, so a blocked client learns nothing from the ads it gets.
 */
export class BlockList {
  readonly #ranges: Cidr[]
  readonly #viewers: ReadonlySet<string>
  /** Sources already asked about: a list of hundreds of ranges is scanned once per source. */
  readonly #seen = new Map<Source, boolean>()

  constructor(blocks: readonly TrafficBlock[]) {
    this.#ranges = blocks.flatMap((b) => {
      if (b.kind !== 'cidr') return []
      const parsed = parseCidr(b.value)
      return 'error' in parsed ? [] : [parsed]
    })
    this.#viewers = new Set(blocks.filter((b) => b.kind === 'viewer').map((b) => b.value))
  }

  get size(): number {
    return this.#ranges.length + this.#viewers.size
  }

  /** Whether the viewer is listed, or the source lies in a listed range. */
  blocks(source: Source | null, viewerKey: string): boolean {
    return this.blocksViewer(viewerKey) || (source !== null && this.blocksSource(source))
  }

  blocksViewer(viewerKey: string): boolean {
    return this.#viewers.has(viewerKey)
  }

  blocksSource(source: Source): boolean {
    if (this.#ranges.length === 0) return false
    let blocked = this.#seen.get(source)
    if (blocked === undefined) {
      blocked = this.#ranges.some((r) => sourceInCidr(source, r))
      if (this.#seen.size >= MAX_SEEN_SOURCES) this.#seen.clear()
      this.#seen.set(source, blocked)
    }
    return blocked
  }
}

const MAX_SEEN_SOURCES = 100_000
