// @ts-check
/**
 * One invocation: read the tool's stdin (only when the prefix uses it or a refresher starts with
 * topics on, never waiting long), move the exposure on from local state, print one line, start
 * a detached refresher when an offer is wanted or views are waiting, exit 0. Nothing here
 * touches the network or reads a manifest: the refresher derives topics from the working
 * directory this passes it.
 */
import { fstatSync, readFileSync, writeSync } from 'node:fs'
import { formatLine, renderPrefix } from './line.js'
import { parseColumns } from '@thinking-line/ad-client/text'
import { step } from './exposure.js'
import { paths, pendingReports, queueReport, readJson, readState, stateDir, tryLock, unlock, withStateLock, writeState } from './state.js'
import { topicsEnabled, WORKSPACE_ENV, workspaceDir } from './workspace.js'

/** How long an invocation waits for stdin that has not ended. */
export const STDIN_WAIT_MS = 50
/** How long an invocation waits for another terminal's state update. */
const STATE_LOCK_WAIT_MS = 40
/** A refresher lock older than this belongs to a refresher that died. */
export const REFRESH_LOCK_STALE_MS = 20_000

/**
 * What was asked for: the line (`command: 'line'`, what a tool runs), `--help`, `--version` or
 * `--check` (commands.js, loaded only then), or `usage` when an argument is not one of ours
 * (`unknown` names it: the first one). An unknown argument wins over the rest, then help, version, check.
 * @typedef {'line' | 'help' | 'version' | 'check' | 'usage'} Command
 * @param {string[]} argv
 * @param {NodeJS.ProcessEnv} env
 */
export function parseArgs(argv, env) {
  let prefix = env.THINKING_LINE_PREFIX ?? ''
  let tmux = false
  let links = true
  let help = false
  let version = false
  let check = false
  /** @type {string | null} */
  let unknown = null
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? ''
    if (a === '--tmux') tmux = true
    else if (a === '--no-links') links = false
    else if (a === '--prefix') prefix = argv[++i] ?? ''
    else if (a.startsWith('--prefix=')) prefix = a.slice('--prefix='.length)
    else if (a === '--help' || a === '-h') help = true
    else if (a === '--version') version = true
    else if (a === '--check') check = true
    else unknown ??= a
  }
  /** @type {Command} */
  const command = unknown !== null ? 'usage' : help ? 'help' : version ? 'version' : check ? 'check' : 'line'
  return { command, unknown, prefix, tmux, links, maxColumns: parseColumns(env.THINKING_LINE_MAX_COLUMNS) }
}

/** @param {string} text */
function parseJson(text) {
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

/**
 * The stdin JSON, or null: not read from a terminal or /dev/null, and read for at most `waitMs`
 * from a pipe that does not end.
 * @param {number} waitMs
 * @returns {Promise<unknown>}
 */
export function readStdin(waitMs) {
  let st
  try {
    st = fstatSync(0)
  } catch {
    return Promise.resolve(null)
  }
  if (st.isFile()) return Promise.resolve(st.size <= 1 << 20 ? parseJson(readFileSync(0, 'utf8')) : null)
  if (!st.isFIFO() && !st.isSocket()) return Promise.resolve(null)
  // A pipe or socket: read as a stream (libuv polls it). A blocking read in the thread pool would
  // keep the process from exiting while a tool holds stdin open.
  return new Promise((resolve) => {
    const stdin = process.stdin
    /** @type {Buffer[]} */
    const chunks = []
    let size = 0
    let done = false
    const finish = () => {
      if (done) return
      done = true
      clearTimeout(timer)
      stdin.pause()
      resolve(parseJson(Buffer.concat(chunks).toString('utf8')))
    }
    const timer = setTimeout(finish, waitMs)
    stdin.on('data', (/** @type {Buffer} */ chunk) => {
      chunks.push(chunk)
      size += chunk.length
      if (size > 1 << 20) finish()
    })
    stdin.on('end', finish)
    stdin.on('error', finish)
  })
}

/**
 * Moves the exposure on at `now` and queues the views it ends; the ad to print and whether a
 * refresher is wanted. Answers from the state directory only.
 * @param {string} dir @param {number} now @param {() => number} clock
 */
export function advance(dir, now, clock) {
  const result = withStateLock(
    dir,
    STATE_LOCK_WAIT_MS,
    () => {
      const next = step(readState(dir), now)
      for (const report of next.reports) queueReport(dir, report)
      writeState(dir, next.state)
      return next
    },
    clock,
  )
  // Another terminal kept the lock: show what is there, count nothing.
  const shown = result ?? step(readState(dir), now)
  return { ad: shown.ad, wantsRefresh: shown.wantsOffer || pendingReports(dir).length > 0 }
}

/**
 * Starts a detached refresher unless one is running (the lock) or the service asked for a pause
 * (the back-off file). The refresher removes the lock when it ends. `workspace` (asked only once
 * the refresher will start) is the working directory whose topics the refresher sends; it goes
 * in the child's environment, never on its command line.
 * @param {string} dir @param {number} now @param {NodeJS.ProcessEnv} env
 * @param {(() => Promise<string | null>) | null} [workspace]
 */
export async function startRefresher(dir, now, env, workspace = null) {
  const p = paths(dir)
  const backoff = /** @type {{ until?: unknown } | null} */ (readJson(p.backoff))
  if (backoff && typeof backoff.until === 'number' && now < backoff.until) return false
  if (!tryLock(p.refreshLock, REFRESH_LOCK_STALE_MS, now)) return false
  try {
    const [ws, { spawn }, { fileURLToPath }] = await Promise.all([workspace ? workspace() : null, import('node:child_process'), import('node:url')])
    /** @type {NodeJS.ProcessEnv} */
    const childEnv = { ...env, THINKING_LINE_STATE_DIR: dir }
    delete childEnv[WORKSPACE_ENV]
    if (ws) childEnv[WORKSPACE_ENV] = ws
    const child = spawn(process.execPath, [fileURLToPath(new URL('./refresher.js', import.meta.url))], {
      detached: true,
      stdio: 'ignore',
      env: childEnv,
    })
    child.on('error', () => unlock(p.refreshLock))
    child.unref()
    return true
  } catch {
    unlock(p.refreshLock)
    return false
  }
}

/**
 * The command: always one line on stdout, always exit 0. `--help`, `--version`, `--check` and an
 * argument that is not ours are commands.js's, imported only then: the line loads nothing more.
 * @param {string[]} argv @param {NodeJS.ProcessEnv} env
 */
export async function main(argv, env) {
  const clock = () => Date.now()
  const { command, unknown, prefix: template, tmux, links, maxColumns } = parseArgs(argv, env)
  if (command !== 'line') {
    const { run } = await import('./commands.js')
    process.exit(await run(command, unknown, env))
  }
  let line = ''
  let refresh = null
  try {
    // stdin is read here only when the prefix uses it; with topics on, a run that starts a
    // refresher reads it after printing (most runs start none and never read it).
    /** @type {unknown} */
    let input = template.includes('{') ? await readStdin(STDIN_WAIT_MS) : undefined
    const prefix = renderPrefix(template, input ?? null)
    line = formatLine({ prefix, ad: null, tmux, links, maxColumns })
    const dir = stateDir(env)
    const now = clock()
    const { ad, wantsRefresh } = advance(dir, now, clock)
    line = formatLine({ prefix, ad, tmux, links, maxColumns })
    const workspace = topicsEnabled(env)
      ? async () => {
          if (input === undefined) input = await readStdin(STDIN_WAIT_MS)
          return workspaceDir(input)
        }
      : null
    if (wantsRefresh) refresh = () => startRefresher(dir, now, env, workspace)
  } catch {
    // Whatever went wrong, the tool still gets its line.
  }
  try {
    writeSync(1, `${line}\n`)
  } catch {
    // Nobody reads stdout.
  }
  try {
    if (refresh) await refresh()
  } catch {
    // The next invocation tries again.
  }
  process.exit(0)
}
