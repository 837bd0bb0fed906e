// @ts-check
/**
 * The rules every client of the "thinking" line follows, whatever it runs in (the terminal's status
 * line, the editor's status bar): how long an ad stays, which views can bill and how far apart they
 * are sent, how long an offer keeps, and how a client backs off a service that is away. Constants and
 * pure functions only (no imports), so loading them costs the terminal's invocation nothing.
 */

/**
 * An exposure interrupted for longer than this ends (and is reported with the dwell it had): the
 * terminal's invocations further apart, the editor's item hidden or its window unfocused for longer.
 */
export const MAX_GAP_MS = 2_000
/** How long an ad stays before the client moves on (the service bills a view of 9.5 s or more). */
export const MIN_EXPOSURE_MS = 10_000
/** The service bills a view from this dwell on (operations.md section 2). */
export const BILLABLE_DWELL_MS = 9_500
/**
 * The service bills one view per viewer and surface per ten seconds of its own clock, counted on
 * arrival: billable views leave at least this far apart, so two ads shown back to back for 10 s
 * each are not judged too close because the first report was late.
 */
export const BILLABLE_SPACING_MS = 10_500
/** An offer not yet shown after this long is dropped (the service refuses views of offers older than an hour). */
export const OFFER_TTL_MS = 30 * 60_000
/** Back-off after a failed request: 1 s, doubling, at most this. */
export const MAX_BACKOFF_MS = 30_000
/** Pause after "nothing to show" (a 204 to a decision). */
export const NO_FILL_PAUSE_MS = 15_000

/** Can a view of this dwell bill? @param {number} dwellMs */
export const isBillable = (dwellMs) => dwellMs >= BILLABLE_DWELL_MS

/**
 * A view report's answer that ends it: 204 (recorded), 404 or 410 (the service will never take
 * it). Any other outcome (no answer included, as 0) is retried later.
 * @param {number} status
 */
export const isFinal = (status) => status === 204 || status === 404 || status === 410

/** The pause after `failures` failures in a row (1 s, doubling, at most MAX_BACKOFF_MS). @param {number} failures */
export const failureBackoffMs = (failures) => Math.min(MAX_BACKOFF_MS, 1_000 * 2 ** (Math.max(1, failures) - 1))

/**
 * How long a billable view must still wait before it is sent, `lastBillableAt` being when the last
 * billable view was acknowledged (null: never): 0 when it may go now. A last time in the future
 * (a clock that went back) is ignored.
 * @param {number | null} lastBillableAt @param {number} now
 */
export function spacingWaitMs(lastBillableAt, now) {
  if (lastBillableAt === null) return 0
  const wait = lastBillableAt + BILLABLE_SPACING_MS - now
  return wait > 0 && wait <= BILLABLE_SPACING_MS ? wait : 0
}
