// @ts-check
/**
 * The detached refresher an invocation starts: sends the views waiting in the state directory,
 * fetches offers to fill the current and next place (with the topics of the working directory
 * the invocation passed, see topics.js), records a back-off when the service is
 * away and what came of the pass (record.js: the last error, for `thinking-line --check`), and
 * removes the refresher lock. With an attester set, it also keeps the wallet of Privacy
 * Pass tokens filled and spends one per billable view report (wallet.js). One pass, then it exits;
 * the next invocation starts another when there is work left.
 */
import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { decisionBody, baseUrl as trimmed, countryCode, reportView, requestDecision } from '@thinking-line/ad-client/http'
import { deliverReports } from '@thinking-line/ad-client/reports'
import { failureBackoffMs, NO_FILL_PAUSE_MS } from '@thinking-line/ad-client/rules'
import { addOffers } from './exposure.js'
import { describeFailure, recordPass } from './record.js'
import { claimReport, paths, pendingReports, readJson, readState, recoverClaims, stateDir, unlock, viewerId, withStateLock, writeAtomic, writeState } from './state.js'
import { topicsFor } from './topics.js'
import { attester, noteChallenge, takeToken, topUp } from './wallet.js'
import { topicsEnabled, WORKSPACE_ENV } from './workspace.js'

/** @typedef {import('@thinking-line/ad-client/decision').Decision} Decision */

/** Each request's bound. */
export const REQUEST_TIMEOUT_MS = 3_000
/** Views sent per pass at most (the rest go in the next). */
const REPORTS_PER_PASS = 50
export { BILLABLE_DWELL_MS, BILLABLE_SPACING_MS, MAX_BACKOFF_MS, NO_FILL_PAUSE_MS } from '@thinking-line/ad-client/rules'

/** @param {NodeJS.ProcessEnv} env */
export function settings(env) {
  return {
    baseUrl: trimmed(env.THINKING_LINE_URL || 'http://127.0.0.1:8080'),
    country: countryCode(env.THINKING_LINE_COUNTRY),
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
  /** @type {string | null} What went wrong in this pass, in words. */
  let error = null
  recoverClaims(dir, clock())
  // The views waiting, claimed one at a time (a rename), sent once each (ad-client's reports.js).
  const delivered = await deliverReports({
    claims: (function* () {
      for (const file of pendingReports(dir).slice(0, REPORTS_PER_PASS)) yield claimReport(dir, file, clock())
    })(),
    lastBillable: {
      get: () => {
        const last = /** @type {{ at?: unknown } | null} */ (readJson(p.lastBillable))
        return typeof last?.at === 'number' ? last.at : null
      },
      set: (at) => writeAtomic(p.lastBillable, JSON.stringify({ at })),
    },
    takeToken: attested ? () => takeToken(dir, clock) : null,
    send: async (report, token) => {
      const started = clock()
      const status = await reportView(baseUrl, report.impression_id, report.dwell_ms, token, REQUEST_TIMEOUT_MS)
      // reportView answers 0 for no answer at all: a timeout when the whole bound went by, else no connection.
      if (status === 0) error = `view report: ${clock() - started >= REQUEST_TIMEOUT_MS - 50 ? `no answer within ${REQUEST_TIMEOUT_MS / 1000} s` : `no connection to ${baseUrl}`}`
      else if (status !== 204 && status !== 404 && status !== 410) error = `view report: HTTP ${status}`
      return status
    },
    clock,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  })
  const sent = delivered.sent
  failed = delivered.failed
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
      let body = decisionBody({ surface: 'terminal', viewerId: viewer, topics, country })
      for (let i = 0; i < wanted; i++) {
        let res
        try {
          res = await requestDecision(baseUrl, body, REQUEST_TIMEOUT_MS)
          // A service from before topics refused the field: the rest of the pass asks without it.
          body = res.body
        } catch (err) {
          error = `decision request: ${describeFailure(err, REQUEST_TIMEOUT_MS)}`
          failed = true
          break
        }
        if (res.status === 204) {
          noFill = true
          break
        }
        const d = res.decision
        if (!d) {
          error = res.status === 200 ? 'decision request: an answer that is not a decision' : `decision request: HTTP ${res.status}`
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
    writeAtomic(p.backoff, JSON.stringify({ failures, until: clock() + failureBackoffMs(failures) }))
  } else if (noFill) {
    writeAtomic(p.backoff, JSON.stringify({ failures: 0, until: clock() + NO_FILL_PAUSE_MS }))
  } else if (previous) {
    unlock(p.backoff)
  }
  recordPass(dir, { at: clock(), outcome: failed ? 'failed' : noFill ? 'no_fill' : 'ok', sent, fetched, error: failed ? (error ?? 'the service did not answer') : null })
  return { sent, fetched, failed, noFill }
}

const isMain = process.argv[1] === fileURLToPath(import.meta.url)
if (isMain) {
  const dir = stateDir(process.env)
  try {
    await refresh(dir, process.env, () => Date.now())
  } catch (err) {
    // The next invocation starts another; --check shows why this one stopped.
    try {
      recordPass(dir, { at: Date.now(), outcome: 'failed', sent: 0, fetched: 0, error: `refresher: ${describeFailure(err, REQUEST_TIMEOUT_MS)}` })
    } catch {
      // The state directory itself is the trouble.
    }
  } finally {
    unlock(paths(dir).refreshLock)
  }
}
