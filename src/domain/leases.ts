/**
 * Impression budget leases (docs/serving.md (decision 0097)): how much room an instance asks for and
 * how many new numbers a grant carves. Pure arithmetic; the store grants (src/store/leases.ts).
 */

/** Bounds of the room an instance asks for: about a second of its own billed rate. */
export const LEASE_MIN = 10
export const LEASE_MAX = 1_000

/** The room to hold for a campaign billing `perSecond` views a second here. */
export function leaseWant(perSecond: number): number {
  return Math.max(LEASE_MIN, Math.min(LEASE_MAX, Math.ceil(perSecond)))
}

/**
 * New numbers to carve for an instance holding `room` that needs `need` now and would like
 * `target`, with `unleased` numbers of the campaign not in any lease: always what the batch needs
 * (when there is that much), and beyond it at most half of what is unleased (rounded down: the last
 * number goes only to a batch that needs it), so that near the end another instance is not starved.
 */
export function grantSize(room: number, need: number, target: number, unleased: number): number {
  if (room >= target || unleased <= 0) return 0
  return Math.min(unleased, Math.max(need - room, Math.min(target - room, Math.floor(unleased / 2))))
}

/**
 * How long (real time) an instance keeps room on a campaign it does not bill: past it, the settle
 * period frees its leases there, so an idle instance holds no other instance's views back for long.
 */
export const LEASE_IDLE_MS = 2_000

/** Number `n` (1-based) ends a block or the campaign: settle before answering (blocks and completion stay prompt). */
export function endsBlock(n: number, blockSize: number, impressions: number): boolean {
  return n === impressions || (blockSize > 0 && n % blockSize === 0)
}
