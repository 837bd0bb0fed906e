import { parseCidr, prefix48Of, sourceInCidr, type Cidr, type Source } from './traffic-source.ts'

/**
 * What one traffic source may make billable (operations.md section 2, "Invalid traffic";
 * docs/invalid-traffic.md): per UTC day, only its first `maxViewersPerDay` distinct viewers earn
 * billable units; per UTC hour, at most `maxBillablePerHour` billable units. A unit is what a campaign
 * bills: a billable impression (an impression campaign's, or a click campaign's qualified view) or a
 * click campaign's billable click. Past either bound the event is recorded with reason
 * `invalid_traffic`, and so is every event of a blocked source or viewer.
 *
 * An IPv6 source (a /64) is bounded twice: as itself, and as part of its /48, whose sources together
 * have `maxViewersPer48PerDay` viewers and `maxBillablePer48PerHour` units (config
 * `ivt_max_viewers_per_ipv6_48_per_day`, `ivt_max_billable_per_ipv6_48_per_hour`).
 */
export interface SourceLimits {
  maxViewersPerDay: number
  maxBillablePerHour: number
  maxViewersPer48PerDay: number
  maxBillablePer48PerHour: number
}

export const HOUR_MS = 3_600_000

/** The UTC hour (its first instant, ms) of a service-clock instant. */
export const utcHourStart = (ms: number): number => Math.floor(ms / HOUR_MS) * HOUR_MS

/**
 * What a unit of `source` is counted against: the source, and for an IPv6 source its /48
 * (`2001:db8:1::/48`). Both are counted alike, under these keys, by the instance
 * (serving/source-tally.ts) and the store (`source_counts`, `source_day_viewers`).
 */
export function boundKeysOf(source: Source): string[] {
  const prefix = prefix48Of(source)
  return prefix === null ? [source] : [source, prefix]
}

/** Whether a key of `boundKeysOf` is a /48's (bounded by the /48 limits) rather than a source's. */
export const isPrefix48Key = (key: string): boolean => key.endsWith('/48')

/** The bounds that apply to one key of `boundKeysOf`. */
export function limitsOfKey(limits: SourceLimits, key: string): { maxViewersPerDay: number; maxBillablePerHour: number } {
  return isPrefix48Key(key)
    ? { maxViewersPerDay: limits.maxViewersPer48PerDay, maxBillablePerHour: limits.maxBillablePer48PerHour }
    : { maxViewersPerDay: limits.maxViewersPerDay, maxBillablePerHour: limits.maxBillablePerHour }
}

/**
 * What is known of one key (a source or a /48) when a batch is judged: for its day, how many viewers
 * earned billable units and which of the batch's viewers are among them; for its hour, how many units billed.
 */
export interface SourceUse {
  viewers: number
  /** Viewers known to have earned billable units that day (at least the batch's, when read from the store). */
  knownViewers: ViewerSet
  billedThisHour: number
}

/** A set of viewer keys as the bounds read it: a `Set`, or anything that answers `has` and lists them. */
export interface ViewerSet extends Iterable<string> {
  has(viewerKey: string): boolean
}

const NOTHING_USED: SourceUse = { viewers: 0, knownViewers: new Set(), billedThisHour: 0 }

/**
 * The bounds of every source of one batch, spent in arrival order: `admits` says whether one more
 * billable unit of `viewerKey` from `source` stays within the bounds of the source and of its /48
 * (`boundKeysOf`), and `take` counts it against both once the event is billed. `use` is keyed like
 * `boundKeysOf`. Views and clicks of one batch share one budget.
 */
export class SourceBudget {
  readonly #limits: SourceLimits
  readonly #use: ReadonlyMap<string, SourceUse>
  readonly #added = new Map<string, { viewers: Set<string>; billed: number }>()
  readonly #keys = new Map<Source, string[]>()

  constructor(limits: SourceLimits, use: ReadonlyMap<string, SourceUse>) {
    this.#limits = limits
    this.#use = use
  }

  /** Whether one more unit stays within the bounds. An event whose source is unknown (an id sealed before sources were) is not bounded. */
  admits(source: Source | null, viewerKey: string): boolean {
    if (source === null) return true
    return this.#keysOf(source).every((key) => this.#within(key, viewerKey))
  }

  /** Counts one billed unit (after `admits` said yes) against the source and its /48. */
  take(source: Source | null, viewerKey: string): void {
    if (source === null) return
    for (const key of this.#keysOf(source)) {
      let added = this.#added.get(key)
      if (!added) this.#added.set(key, (added = { viewers: new Set(), billed: 0 }))
      if (!this.#use.get(key)?.knownViewers.has(viewerKey)) added.viewers.add(viewerKey)
      added.billed++
    }
  }

  #within(key: string, viewerKey: string): boolean {
    const limits = limitsOfKey(this.#limits, key)
    const use = this.#use.get(key) ?? NOTHING_USED
    const added = this.#added.get(key)
    const newViewer = !use.knownViewers.has(viewerKey) && !added?.viewers.has(viewerKey)
    if (newViewer && use.viewers + (added?.viewers.size ?? 0) >= limits.maxViewersPerDay) return false
    return use.billedThisHour + (added?.billed ?? 0) < limits.maxBillablePerHour
  }

  #keysOf(source: Source): string[] {
    let keys = this.#keys.get(source)
    if (!keys) this.#keys.set(source, (keys = boundKeysOf(source)))
    return keys
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
