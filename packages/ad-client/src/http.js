// @ts-check
/**
 * The two serving calls every client makes (operations.md section 2), each bounded in time: a
 * decision request (`POST /serve/v1/decisions`) and a view report
 * (`POST /serve/v1/impressions/{id}/view`). Node's global fetch only, no other import.
 */
import { parseDecision } from './decision.js'

/** @typedef {import('./decision.js').Decision} Decision */
/** @typedef {'terminal' | 'extension'} Surface */
/**
 * What a decision request carries, and nothing more: the surface, the install's random viewer id,
 * the topic names (when any) and the country (when set).
 * @typedef {{ surface: Surface, viewer_id: string, topics?: string[], country?: string }} DecisionBody
 */

/** @param {string} url @param {unknown} body @param {Record<string, string>} headers @param {number} timeoutMs */
async function post(url, body, headers, timeoutMs) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  })
  const text = await res.text()
  return { status: res.status, text, challenge: res.headers.get('www-authenticate') }
}

/** A base URL without its trailing slashes. @param {string} url */
export const baseUrl = (url) => url.replace(/\/+$/, '')

/** An ISO alpha-2 country as the service takes it, or undefined. @param {string | undefined | null} value */
export function countryCode(value) {
  const country = (value ?? '').trim().toUpperCase()
  return /^[A-Z]{2}$/.test(country) ? country : undefined
}

/**
 * The decision request's body: only what the service needs (topics only when there are some, the
 * country only when set).
 * @param {{ surface: Surface, viewerId: string, topics?: readonly string[], country?: string }} o
 * @returns {DecisionBody}
 */
export function decisionBody({ surface, viewerId, topics = [], country }) {
  return { surface, viewer_id: viewerId, ...(topics.length > 0 ? { topics: [...topics] } : {}), ...(country ? { country } : {}) }
}

/**
 * One decision request within `timeoutMs`. A service from before topics refuses the field (400):
 * the request is made again without it, and `body` in the answer is what the caller should send for
 * the rest of its pass. Throws when the service does not answer (a timeout or a refused connection).
 * @param {string} base @param {DecisionBody} body @param {number} timeoutMs
 * @returns {Promise<{ status: number, decision: Decision | null, challenge: string | null, body: DecisionBody }>}
 */
export async function requestDecision(base, body, timeoutMs) {
  const url = `${base}/serve/v1/decisions`
  let res = await post(url, body, {}, timeoutMs)
  let sent = body
  if (res.status === 400 && body.topics) {
    sent = { ...body }
    delete sent.topics
    res = await post(url, sent, {}, timeoutMs)
  }
  let decision = null
  if (res.status === 200) {
    try {
      decision = parseDecision(JSON.parse(res.text))
    } catch {
      decision = null
    }
  }
  return { status: res.status, decision, challenge: res.challenge, body: sent }
}

/** `Authorization` of a view report spending a Privacy Pass `token` (RFC 9577). @param {string} token */
export const authorization = (token) => `PrivateToken token="${token}"`

/**
 * Reports one view with its measured dwell (rounded to whole milliseconds), spending `token` when
 * one is given. The status answered, or 0 when the service did not answer in time.
 * @param {string} base @param {string} impressionId @param {number} dwellMs @param {string | null} token @param {number} timeoutMs
 */
export async function reportView(base, impressionId, dwellMs, token, timeoutMs) {
  try {
    const url = `${base}/serve/v1/impressions/${encodeURIComponent(impressionId)}/view`
    return (await post(url, { dwell_ms: Math.round(dwellMs) }, token === null ? {} : { authorization: authorization(token) }, timeoutMs)).status
  } catch {
    return 0
  }
}
