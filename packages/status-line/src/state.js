// @ts-check
/**
 * The state directory: the current and next ad (state.json), the install's random viewer id,
 * the views not yet acknowledged (reports/), the refresher's lock, back-off and last pass. Every write is
 * a temporary file renamed into place; every claim is an exclusive create or a rename, so two
 * terminals sharing the directory never both report one view.
 */
import { closeSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { parseState } from './exposure.js'

/** @typedef {import('./exposure.js').State} State */
/** @typedef {import('./exposure.js').Report} Report */

/** @param {NodeJS.ProcessEnv} env */
export function stateDir(env) {
  if (env.THINKING_LINE_STATE_DIR) return env.THINKING_LINE_STATE_DIR
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'thinking-line')
  return join(homedir(), '.local', 'state', 'thinking-line')
}

export const paths = (/** @type {string} */ dir) => ({
  state: join(dir, 'state.json'),
  stateLock: join(dir, 'state.lock'),
  refreshLock: join(dir, 'refresh.lock'),
  backoff: join(dir, 'backoff.json'),
  /** The refresher's last pass and the last error it met (what `thinking-line --check` shows). */
  refresher: join(dir, 'refresher.json'),
  lastBillable: join(dir, 'last-billable.json'),
  viewer: join(dir, 'viewer-id'),
  reports: join(dir, 'reports'),
  /** Privacy Pass tokens and the challenge they are for (wallet.js); mode 0600. */
  wallet: join(dir, 'wallet.json'),
})

let unique = 0
/** A name no other process or call uses. */
const suffix = () => `${process.pid}.${unique++}.${Math.random().toString(36).slice(2, 8)}`

/**
 * Writes `text` to a temporary file and renames it over `path` (readers see the old file or the new
 * one); `mode` is the new file's permissions (0o600 for files holding Privacy Pass tokens).
 * @param {string} path @param {string} text @param {number} [mode]
 */
export function writeAtomic(path, text, mode) {
  const tmp = `${path}.${suffix()}.tmp`
  writeFileSync(tmp, text, mode === undefined ? undefined : { mode })
  renameSync(tmp, path)
}

/** @param {string} path @returns {unknown} null when missing or not JSON */
export function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'))
  } catch {
    return null
  }
}

/** @param {string} dir */
export function readState(dir) {
  return parseState(readJson(paths(dir).state))
}

/** @param {string} dir @param {State} state */
export function writeState(dir, state) {
  writeAtomic(paths(dir).state, JSON.stringify(state))
}

/** @param {unknown} err @param {string} code */
const is = (err, code) => err !== null && typeof err === 'object' && 'code' in err && err.code === code

/**
 * Takes the lock file `path` (an exclusive create); a lock older than `staleMs` (its holder died)
 * is taken over. False when someone else holds it.
 * @param {string} path @param {number} staleMs @param {number} now
 */
export function tryLock(path, staleMs, now) {
  try {
    closeSync(openSync(path, 'wx'))
    return true
  } catch (err) {
    if (!is(err, 'EEXIST')) throw err
  }
  try {
    const age = now - statSync(path).mtimeMs
    if (age <= staleMs && age >= -staleMs) return false
    // Set the stale lock aside (one process wins the rename), check it was still the stale one, then take a new one.
    const aside = `${path}.${suffix()}.stale`
    renameSync(path, aside)
    const asideAge = now - statSync(aside).mtimeMs
    if (asideAge <= staleMs && asideAge >= -staleMs) {
      // Someone took it over just before us: put theirs back.
      try {
        linkSync(aside, path)
      } catch {
        // Another one is in place already.
      }
      unlinkSync(aside)
      return false
    }
    unlinkSync(aside)
    closeSync(openSync(path, 'wx'))
    return true
  } catch {
    return false
  }
}

/** @param {string} path */
export function unlock(path) {
  try {
    unlinkSync(path)
  } catch {
    // Already gone (taken over as stale).
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4))
/** @param {number} ms */
const sleep = (ms) => Atomics.wait(sleeper, 0, 0, ms)

/**
 * Runs `fn` holding the state lock, waiting at most `waitMs` for it; returns undefined (without
 * running `fn`) when the lock stays taken. A holder never keeps it long (one read and one write).
 * @template T
 * @param {string} dir @param {number} waitMs @param {() => T} fn @param {() => number} clock
 * @returns {T | undefined}
 */
export function withStateLock(dir, waitMs, fn, clock) {
  const lock = paths(dir).stateLock
  const until = clock() + waitMs
  for (;;) {
    let locked
    try {
      locked = tryLock(lock, 2_000, clock())
    } catch (err) {
      if (!is(err, 'ENOENT')) throw err
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      continue
    }
    if (locked) break
    if (clock() >= until) return undefined
    sleep(2)
  }
  try {
    return fn()
  } finally {
    unlock(lock)
  }
}

/** Queues a view report (under the state lock: one file per impression, never queued twice). @param {string} dir @param {Report} report */
export function queueReport(dir, report) {
  const reports = paths(dir).reports
  mkdirSync(reports, { recursive: true })
  writeAtomic(join(reports, `${fileName(report.impression_id)}.json`), JSON.stringify(report))
}

/** @param {string} id */
const fileName = (id) => id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 150)

/** Reports queued and not claimed. @param {string} dir */
export function pendingReports(dir) {
  try {
    return readdirSync(paths(dir).reports).filter((f) => f.endsWith('.json'))
  } catch {
    return []
  }
}

const CLAIM = '.claimed.'
/** A claim older than this belongs to a refresher that died: the report goes back to the queue. */
export const CLAIM_STALE_MS = 60_000

/**
 * Claims one queued report for sending (a rename: only one process gets it); null when another
 * took it first. `token` is the Privacy Pass token the report was first sent with (wallet.js), kept
 * for every retry; `attach` records one in the claimed file (mode 0600) before the report is sent.
 * @param {string} dir @param {string} file @param {number} now
 * @returns {{ report: Report, token: string | null, attach: (token: string) => void, done: () => void, retry: () => void } | null}
 */
export function claimReport(dir, file, now) {
  const from = join(paths(dir).reports, file)
  const claimed = `${from}${CLAIM}${now}.${suffix()}`
  try {
    renameSync(from, claimed)
  } catch {
    return null
  }
  const raw = /** @type {Record<string, unknown> | null} */ (readJson(claimed))
  if (!raw || typeof raw.impression_id !== 'string' || typeof raw.dwell_ms !== 'number') {
    unlock(claimed)
    return null
  }
  const report = { impression_id: raw.impression_id, dwell_ms: raw.dwell_ms, queued_at: typeof raw.queued_at === 'number' ? raw.queued_at : now }
  return {
    report,
    token: typeof raw.token === 'string' && raw.token !== '' ? raw.token : null,
    attach: (token) => writeAtomic(claimed, JSON.stringify({ ...report, token }), 0o600),
    done: () => unlock(claimed),
    retry: () => {
      try {
        renameSync(claimed, from)
      } catch {
        // Nothing to put back.
      }
    },
  }
}

/** Claims left by a refresher that died go back to the queue. @param {string} dir @param {number} now */
export function recoverClaims(dir, now) {
  const reports = paths(dir).reports
  let files
  try {
    files = readdirSync(reports)
  } catch {
    return
  }
  for (const f of files) {
    const at = f.indexOf(CLAIM)
    if (at < 0) continue
    const since = Number(f.slice(at + CLAIM.length).split('.')[0])
    if (now - since > CLAIM_STALE_MS) {
      try {
        renameSync(join(reports, f), join(reports, f.slice(0, at)))
      } catch {
        // Recovered by another refresher.
      }
    }
  }
}

/**
 * The install's viewer id: random, made once (a temporary file linked into place, so two
 * processes agree on the first one), never derived from the machine, the user or a path.
 * @param {string} dir @param {() => string} random
 */
export function viewerId(dir, random) {
  const path = paths(dir).viewer
  const existing = readId(path)
  if (existing) return existing
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const tmp = `${path}.${suffix()}.tmp`
  writeFileSync(tmp, `${random()}\n`)
  try {
    linkSync(tmp, path)
  } catch {
    // Another process made it first: theirs is the id.
  } finally {
    unlock(tmp)
  }
  return readId(path) ?? random()
}

/** @param {string} path */
function readId(path) {
  try {
    const id = readFileSync(path, 'utf8').trim()
    return id.length >= 1 && id.length <= 128 ? id : null
  } catch {
    return null
  }
}
