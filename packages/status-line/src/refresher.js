// @ts-check
/**
 * The detached refresher an invocation starts: sends the views waiting in the state directory,
 * fetches offers to fill the current and next place (with the topics of the working directory
 * the invocation passed, see topics.js), records a back-off when the service is
 * away, and removes the refresher lock. With an attester set, it also keeps the wallet of Privacy
 * Pass tokens filled and spends one per billable view report (wallet.js). One pass, then it exits;
 * the next invocation starts another when there is work left.
 */
import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { addOffers } from './exposure.js'
import { claimReport, paths, pendingReports, readJson, readState, recoverClaims, stateDir, unlock, viewerId, withStateLock, writeAtomic, writeState } from './state.js'
import { topicsFor } from './topics.js'
import { attester, authorization, noteChallenge, takeToken, topUp } from './wallet.js'
import { topicsEnabled, WORKSPACE_ENV } from './workspace.js'

/** @typedef {import('./line.js').Decision} Decision */

/** Each request's bound. */
export const REQUEST_TIMEOUT_MS = 3_000
/** Back-off after a failure: 1 s, doubling, at most this. */
export const MAX_BACKOFF_MS = 30_000
/** Pause after "nothing to show" (a 204 to a decision). */
export const NO_FILL_PAUSE_MS = 15_000
/** Views sent per pass at most (the rest go in the next). */
const REPORTS_PER_PASS = 50
/** The service bills a view from this dwell on. */
export const BILLABLE_DWELL_MS = 9_500
/**
 * The service bills one view per viewer and surface per ten seconds of its own clock, counted on
 * arrival: billable views leave at least this far apart, so two ads shown back to back for 10 s
 * each are not judged too close because the first report was late.
 */
export const BILLABLE_SPACING_MS = 10_500

/** @param {NodeJS.ProcessEnv} env */
export function settings(env) {
  const country = (env.THINKING_LINE_COUNTRY ?? '').toUpperCase()
  return {
    baseUrl: (env.THINKING_LINE_URL || 'http://127.0.0.1:8080').replace(/\/+$/, ''),
    country: /^[A-Z]{2}$/.test(country) ? country : undefined,
    /** The working directory the invocation passed, when topics are on. */
    workspace: topicsEnabled(env) ? env[WORKSPACE_ENV] || undefined : undefined,
  }
}

/**
 * The topics sent with decision requests: derived from the workspace's manifests (or the
 * cache); none when topics are off, no workspace was passed, or anything goes wrong.
 * @param {string} dir @param {string | undefined} workspace @param {number} now
 * @returns {string[]}
 */
function decisionTopics(dir, workspace, now) {
  if (!workspace) return []
  try {
    return topicsFor(dir, workspace, now).topics
  } catch {
    return []
  }
}

/** @param {string} url @param {unknown} body @param {Record<string, string>} [headers] */
async function post(url, body, headers = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  })
  const text = await res.text()
  return { status: res.status, text, challenge: res.headers.get('www-authenticate') }
}

/** @param {unknown} raw @returns {Decision | null} */
function decision(raw) {
  if (raw === null || typeof raw !== 'object') return null
  const d = /** @type {Record<string, unknown>} */ (raw)
  if (typeof d.impression_id !== 'string' || typeof d.ad_line !== 'string' || typeof d.click_url !== 'string') return null
  return { impression_id: d.impression_id, ad_line: d.ad_line, brand: typeof d.brand === 'string' ? d.brand : null, click_url: d.click_url }
}

/**
 * One pass. Returns what happened (for tests and logs).
 * @param {string} dir @param {NodeJS.ProcessEnv} env @param {() => number} clock
 */
export async function refresh(dir, env, clock) {
  const { baseUrl, country, workspace } = settings(env)
  const attested = attester(env) !== null
  const p = paths(dir)
  let failed = false
  let noFill = false
  let sent = 0
  recoverClaims(dir, clock())
  let waited = false
  for (const file of pendingReports(dir).slice(0, REPORTS_PER_PASS)) {
    const claim = claimReport(dir, file, clock())
    if (!claim) continue
    const billable = claim.report.dwell_ms >= BILLABLE_DWELL_MS
    if (billable) {
      const last = /** @type {{ at?: unknown } | null} */ (readJson(p.lastBillable))
      const wait = typeof last?.at === 'number' ? last.at + BILLABLE_SPACING_MS - clock() : 0
      if (wait > 0 && wait <= BILLABLE_SPACING_MS) {
        // One wait per pass (the lock stays short-lived); the next refresher sends the rest.
        if (waited) {
          claim.retry()
          break
        }
        waited = true
        await new Promise((resolve) => setTimeout(resolve, wait))
      }
    }
    // A view long enough to bill spends one token, taken out of the wallet and recorded in the report
    // before it is sent; a retry sends the same one (the service bills a token at most once).
    let token = claim.token
    if (token === null && billable && attested) {
      token = takeToken(dir, clock)
      if (token !== null) claim.attach(token)
    }
    let status = 0
    try {
      const url = `${baseUrl}/serve/v1/impressions/${encodeURIComponent(claim.report.impression_id)}/view`
      status = (await post(url, { dwell_ms: Math.round(claim.report.dwell_ms) }, token === null ? {} : { authorization: authorization(token) })).status
    } catch {
      status = 0
    }
    // 204: recorded; 404/410: the service will never take it. Either way it is never sent again.
    if (status === 204 || status === 404 || status === 410) {
      claim.done()
      if (billable && status === 204) writeAtomic(p.lastBillable, JSON.stringify({ at: clock() }))
      sent++
    } else {
      claim.retry()
      failed = true
      break
    }
  }
  let fetched = 0
  /** @type {string | null} The last decision's WWW-Authenticate: the challenge and issuer key tokens are made for. */
  let challenge = null
  if (!failed) {
    const state = readState(dir)
    const wanted = (state.current ? 0 : 1) + (state.next ? 0 : 1)
    /** @type {Decision[]} */
    const offers = []
    if (wanted > 0) {
      const viewer = viewerId(dir, randomUUID)
      const topics = decisionTopics(dir, workspace, clock())
      // Only topic names from the table go with the request: never the path or what the manifests say.
      const plainBody = { surface: 'terminal', viewer_id: viewer, ...(country ? { country } : {}) }
      /** @type {Record<string, unknown>} */
      let body = topics.length > 0 ? { ...plainBody, topics } : plainBody
      for (let i = 0; i < wanted; i++) {
        let res
        try {
          res = await post(`${baseUrl}/serve/v1/decisions`, body)
          // A service from before topics refuses the field (400): ask again without it, for the rest of the pass.
          if (res.status === 400 && body !== plainBody) {
            body = plainBody
            res = await post(`${baseUrl}/serve/v1/decisions`, body)
          }
        } catch {
          failed = true
          break
        }
        if (res.status === 204) {
          noFill = true
          break
        }
        const d = res.status === 200 ? decision(JSON.parse(res.text)) : null
        if (!d) {
          failed = true
          break
        }
        offers.push(d)
        challenge = res.challenge ?? challenge
      }
    }
    if (offers.length > 0) {
      withStateLock(dir, 1_000, () => writeState(dir, addOffers(readState(dir), offers, clock())), clock)
      fetched = offers.length
    }
  }
  if (attested && !failed) {
    // Never in the way of the views and offers above: any trouble here only leaves the wallet as it was.
    try {
      if (challenge) await noteChallenge(dir, challenge, clock)
      await topUp(dir, env, baseUrl, clock, REQUEST_TIMEOUT_MS)
    } catch {
      // The next run tries again.
    }
  }
  const previous = /** @type {{ failures?: unknown } | null} */ (readJson(p.backoff))
  if (failed) {
    const failures = (typeof previous?.failures === 'number' ? previous.failures : 0) + 1
    writeAtomic(p.backoff, JSON.stringify({ failures, until: clock() + Math.min(MAX_BACKOFF_MS, 1_000 * 2 ** (failures - 1)) }))
  } else if (noFill) {
    writeAtomic(p.backoff, JSON.stringify({ failures: 0, until: clock() + NO_FILL_PAUSE_MS }))
  } else if (previous) {
    unlock(p.backoff)
  }
  return { sent, fetched, failed, noFill }
}

const isMain = process.argv[1] === fileURLToPath(import.meta.url)
if (isMain) {
  const dir = stateDir(process.env)
  try {
    await refresh(dir, process.env, () => Date.now())
  } catch {
    // The next invocation starts another.
  } finally {
    unlock(paths(dir).refreshLock)
  }
}
