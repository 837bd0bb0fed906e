// @ts-check
/**
 * What the refresher leaves behind for `thinking-line --check`: its last pass (when, what came of
 * it) and the last error it met, in `refresher.json` in the state directory. The error is kept
 * after later passes succeed, with its time, so a failure that comes and goes can still be seen.
 * Errors are described in words a person can act on ("connect ECONNREFUSED 127.0.0.1:8080", "no
 * answer within 3 s", "HTTP 503"), never with a request's body or a token.
 */
import { paths, readJson, writeAtomic } from './state.js'

/** @typedef {'ok' | 'no_fill' | 'failed'} Outcome */
/** @typedef {{ at: number, detail: string }} RecordedError */
/** @typedef {{ at: number, outcome: Outcome, sent: number, fetched: number, error: RecordedError | null }} PassRecord */

/**
 * Why a request got no answer, from what `fetch` threw.
 * @param {unknown} err @param {number} timeoutMs
 */
export function describeFailure(err, timeoutMs) {
  if (err instanceof Error) {
    if (err.name === 'TimeoutError' || err.name === 'AbortError') return `no answer within ${timeoutMs / 1000} s`
    const cause = /** @type {{ cause?: unknown }} */ (err).cause
    // fetch refuses some ports outright (the WHATWG list of "bad ports": 1, 9, 6000, …).
    if (cause instanceof Error && cause.message === 'bad port') return 'a port fetch refuses to use (on the WHATWG list of blocked ports)'
    if (cause instanceof Error && cause.message) return cause.message
    if (cause !== null && typeof cause === 'object' && 'code' in cause && typeof cause.code === 'string') return cause.code
    return err.message || err.name
  }
  return String(err)
}

/** @param {unknown} raw @returns {RecordedError | null} */
function parseError(raw) {
  if (raw === null || typeof raw !== 'object') return null
  const e = /** @type {Record<string, unknown>} */ (raw)
  return typeof e.at === 'number' && typeof e.detail === 'string' ? { at: e.at, detail: e.detail } : null
}

/** The refresher's record in `dir`, or null when no refresher has written one. @param {string} dir @returns {PassRecord | null} */
export function readRecord(dir) {
  const raw = readJson(paths(dir).refresher)
  if (raw === null || typeof raw !== 'object') return null
  const r = /** @type {Record<string, unknown>} */ (raw)
  if (typeof r.at !== 'number' || (r.outcome !== 'ok' && r.outcome !== 'no_fill' && r.outcome !== 'failed')) return null
  return {
    at: r.at,
    outcome: r.outcome,
    sent: typeof r.sent === 'number' ? r.sent : 0,
    fetched: typeof r.fetched === 'number' ? r.fetched : 0,
    error: parseError(r.error),
  }
}

/**
 * Writes a pass's record; `error` (this pass's, or null) replaces the last one only when there is
 * one, so the last error stays until another takes its place.
 * @param {string} dir @param {{ at: number, outcome: Outcome, sent: number, fetched: number, error: string | null }} pass
 */
export function recordPass(dir, pass) {
  const error = pass.error !== null ? { at: pass.at, detail: pass.error } : (readRecord(dir)?.error ?? null)
  writeAtomic(paths(dir).refresher, JSON.stringify({ at: pass.at, outcome: pass.outcome, sent: pass.sent, fetched: pass.fetched, error }))
}
