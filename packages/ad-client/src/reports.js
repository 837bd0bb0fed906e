// @ts-check
/**
 * The view reports a client owes the service, and their once-only delivery, whatever the client
 * keeps them in (the terminal: one file per report in its state directory, claimed by a rename; the
 * editor: memory, mirrored into VS Code's global state). The rules, in one place:
 *
 * - a report answered 204, 404 or 410 is never sent again; any other outcome leaves it queued and
 *   ends the pass (the service is away: the next pass tries again);
 * - a view long enough to bill leaves at least BILLABLE_SPACING_MS after the last billable one the
 *   service acknowledged (one wait per pass at most, so a pass stays short);
 * - with a wallet, a billable view spends one Privacy Pass token, taken out of the wallet and
 *   attached to the report before it is sent; a retry sends the same token (the service bills a
 *   token at most once), and no token ever goes with two reports.
 */
import { isBillable, isFinal, spacingWaitMs } from './rules.js'

/** @typedef {{ impression_id: string, dwell_ms: number, queued_at: number }} Report */
/**
 * One report taken out of the queue for sending (no other sender has it until `retry`). `token` is
 * the Privacy Pass token it was first sent with; `attach` records one before it is sent.
 * @typedef {{ report: Report, token: string | null, attach: (token: string) => void, done: () => void, retry: () => void }} Claim
 */
/** When the last billable view was acknowledged (null: never). @typedef {{ get(): number | null, set(at: number): void }} LastBillable */

/**
 * One delivery pass over `claims` (taken one at a time, lazily: a claim is made only when its turn
 * comes). `send` answers the service's status, or 0 when it did not answer.
 * @param {{
 *   claims: Iterable<Claim | null>,
 *   lastBillable: LastBillable,
 *   takeToken: (() => string | null) | null,
 *   send: (report: Report, token: string | null) => Promise<number>,
 *   clock: () => number,
 *   sleep: (ms: number) => Promise<void>,
 * }} o
 * @returns {Promise<{ sent: number, failed: boolean }>}
 */
export async function deliverReports({ claims, lastBillable, takeToken, send, clock, sleep }) {
  let sent = 0
  let waited = false
  for (const claim of claims) {
    if (!claim) continue
    const billable = isBillable(claim.report.dwell_ms)
    if (billable) {
      const wait = spacingWaitMs(lastBillable.get(), clock())
      if (wait > 0) {
        // One wait per pass; the next pass sends the rest.
        if (waited) {
          claim.retry()
          break
        }
        waited = true
        await sleep(wait)
      }
    }
    let token = claim.token
    if (token === null && billable && takeToken) {
      token = takeToken()
      if (token !== null) claim.attach(token)
    }
    const status = await send(claim.report, token)
    if (isFinal(status)) {
      claim.done()
      if (billable && status === 204) lastBillable.set(clock())
      sent++
    } else {
      claim.retry()
      return { sent, failed: true }
    }
  }
  return { sent, failed: false }
}

/** @typedef {Report & { token?: string }} StoredReport */

/**
 * A report queue in memory, for a client with one process (the editor's extension host). `save` is
 * called with every report still owed (tokens included) whenever that changes, so the client can
 * keep them across a restart; `initial` are the reports it kept. A report is queued once per
 * impression, and a claimed one is not handed out again until it is put back.
 * @param {{ initial?: readonly StoredReport[], save?: (reports: StoredReport[]) => void }} [o]
 */
export function memoryQueue({ initial = [], save = () => {} } = {}) {
  /** @type {Map<string, StoredReport>} */
  const owed = new Map()
  /** @type {Set<string>} */
  const claimed = new Set()
  for (const r of initial) if (!owed.has(r.impression_id)) owed.set(r.impression_id, { ...r })
  const persist = () => save([...owed.values()].map((r) => ({ ...r })))
  return {
    /** Queues a view (a second report of one impression is ignored). @param {Report} report */
    add(report) {
      if (owed.has(report.impression_id)) return false
      owed.set(report.impression_id, { ...report })
      persist()
      return true
    },
    /** How many reports are owed. */
    size: () => owed.size,
    /** The reports owed, oldest first (copies). */
    list: () => [...owed.values()].map((r) => ({ ...r })),
    /** Claims, one per report not claimed already, made when the pass reaches it. @returns {Generator<Claim | null>} */
    *claims() {
      for (const id of [...owed.keys()]) {
        const stored = owed.get(id)
        if (!stored || claimed.has(id)) {
          yield null
          continue
        }
        claimed.add(id)
        const { token, ...report } = stored
        yield {
          report,
          token: token ?? null,
          attach: (t) => {
            stored.token = t
            persist()
          },
          done: () => {
            claimed.delete(id)
            owed.delete(id)
            persist()
          },
          retry: () => void claimed.delete(id),
        }
      }
    },
  }
}

/**
 * Reports kept by a client (parsed from its storage), or none: anything not shaped like one is dropped.
 * @param {unknown} raw @returns {StoredReport[]}
 */
export function parseReports(raw) {
  if (!Array.isArray(raw)) return []
  /** @type {StoredReport[]} */
  const out = []
  for (const r of raw) {
    if (r === null || typeof r !== 'object') continue
    const x = /** @type {Record<string, unknown>} */ (r)
    if (typeof x.impression_id !== 'string' || typeof x.dwell_ms !== 'number' || !(x.dwell_ms >= 0)) continue
    const report = { impression_id: x.impression_id, dwell_ms: x.dwell_ms, queued_at: typeof x.queued_at === 'number' ? x.queued_at : 0 }
    out.push(typeof x.token === 'string' && x.token !== '' ? { ...report, token: x.token } : report)
  }
  return out
}
