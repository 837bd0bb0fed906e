// @ts-check
/**
 * Dwell as operations.md section 7 means it, as a pure function of the state and the time of
 * one invocation (no I/O, no clock): an ad counts as shown from the first invocation that
 * printed it to the last, while consecutive invocations are at most 2 s apart; after at least
 * 10 s shown, the next invocation moves on and the view is reported with the measured dwell;
 * an exposure that ends early (a longer gap) is reported with its own dwell.
 */

import { MAX_GAP_MS, MIN_EXPOSURE_MS, OFFER_TTL_MS } from '@thinking-line/ad-client/rules'

/** @typedef {import('@thinking-line/ad-client/decision').Decision} Decision */
/** @typedef {{ decision: Decision, fetched_at: number }} Offer */
/** @typedef {{ start: number, last: number }} Exposure */
/**
 * `current` is the ad on screen (with its `exposure` once printed), `next` an offer kept ready so
 * the line never waits for the network when the current one is done.
 * @typedef {{ v: 1, current: Offer | null, next: Offer | null, exposure: Exposure | null }} State
 */
/** @typedef {import('@thinking-line/ad-client/reports').Report} Report */

/**
 * The rules every client shares (packages/ad-client/src/rules.js); MAX_GAP_MS: consecutive invocations
 * further apart than this end an exposure (the line may no longer be on screen).
 */
export { MAX_GAP_MS, MIN_EXPOSURE_MS, OFFER_TTL_MS }

/** @returns {State} */
export function emptyState() {
  return { v: 1, current: null, next: null, exposure: null }
}

/** A state read from disk, or an empty one when it is missing or not ours. @param {unknown} raw @returns {State} */
export function parseState(raw) {
  if (raw === null || typeof raw !== 'object') return emptyState()
  const s = /** @type {Record<string, unknown>} */ (raw)
  if (s.v !== 1) return emptyState()
  const offer = (/** @type {unknown} */ o) => {
    if (o === null || typeof o !== 'object') return null
    const x = /** @type {Record<string, unknown>} */ (o)
    const d = /** @type {Record<string, unknown> | null} */ (x.decision !== null && typeof x.decision === 'object' ? x.decision : null)
    if (!d || typeof d.impression_id !== 'string' || typeof d.ad_line !== 'string' || typeof d.click_url !== 'string' || typeof x.fetched_at !== 'number') return null
    /** @type {Offer} */
    const parsed = {
      decision: { impression_id: d.impression_id, ad_line: d.ad_line, brand: typeof d.brand === 'string' ? d.brand : null, click_url: d.click_url },
      fetched_at: x.fetched_at,
    }
    return parsed
  }
  const e = /** @type {Record<string, unknown> | null} */ (s.exposure !== null && typeof s.exposure === 'object' ? s.exposure : null)
  const current = offer(s.current)
  const exposure = current && e && typeof e.start === 'number' && typeof e.last === 'number' ? { start: e.start, last: e.last } : null
  return { v: 1, current, next: offer(s.next), exposure }
}

/**
 * One invocation at `now` (ms): the new state, the ad to print (null: none ready), the views to
 * report, and whether an offer should be fetched.
 * @param {State} state
 * @param {number} now
 * @returns {{ state: State, ad: Decision | null, reports: Report[], wantsOffer: boolean }}
 */
export function step(state, now) {
  let { current, next, exposure } = state
  /** @type {Report[]} */
  const reports = []
  if (current && exposure) {
    const gap = now - exposure.last
    // A gap over 2 s (or a clock that went back) ends the exposure; so does 10 s shown.
    if (gap > MAX_GAP_MS || gap < 0 || exposure.last - exposure.start >= MIN_EXPOSURE_MS) {
      reports.push({ impression_id: current.decision.impression_id, dwell_ms: Math.max(0, exposure.last - exposure.start), queued_at: now })
      current = null
      exposure = null
    }
  }
  if (current && !exposure && !fresh(current, now)) current = null
  if (next && !fresh(next, now)) next = null
  if (!current && next) {
    current = next
    next = null
  }
  if (current) exposure = exposure ? { start: exposure.start, last: now } : { start: now, last: now }
  return { state: { v: 1, current, next, exposure }, ad: current ? current.decision : null, reports, wantsOffer: !current || !next }
}

/** @param {Offer} offer @param {number} now */
function fresh(offer, now) {
  return now - offer.fetched_at <= OFFER_TTL_MS
}

/**
 * Offers fetched by the refresher, merged into the state as it is now: they fill the empty
 * places (current first, then next); the rest are dropped, never shown, never reported.
 * @param {State} state
 * @param {Decision[]} decisions
 * @param {number} now
 * @returns {State}
 */
export function addOffers(state, decisions, now) {
  let { current, next } = state
  for (const decision of decisions) {
    const offer = { decision, fetched_at: now }
    if (!current) current = offer
    else if (!next) next = offer
  }
  return { v: 1, current, next, exposure: current === state.current ? state.exposure : null }
}
