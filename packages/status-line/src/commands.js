// @ts-check
/**
 * Everything `thinking-line` does besides printing the line: `--help`, `--version`, `--check`, and
 * the refusal of an argument that is not one of its own (stderr, exit 2). Imported by invoke.js only
 * for those, so an ordinary invocation loads none of it.
 *
 * `--check` is for a person: it shows the settings as this process sees them (run it where the
 * tool runs it: `tmux run-shell 'thinking-line --check'` shows tmux's environment), asks the
 * service once (GET /serve/v1/topics, bounded like the refresher's requests), and reads the state
 * directory without changing it: what the refresher met last, the back-off, the views waiting, the
 * Privacy Pass tokens. Exit 0 when the service answered as the ad service does, 1 when not.
 */
import { existsSync, readdirSync, readFileSync, writeSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { parseColumns, sanitize } from '@thinking-line/ad-client/text'
import { readRecord, describeFailure } from './record.js'
import { REQUEST_TIMEOUT_MS, settings } from './refresher.js'
import { paths, pendingReports, readJson, readState, stateDir } from './state.js'
import { attester, readWallet } from './wallet.js'
import { topicsEnabled } from './workspace.js'

/** @typedef {import('./invoke.js').Command} Command */

const OPTIONS = ['--prefix', '--tmux', '--no-links', '--check', '--help', '--version']

/** The package's version. */
export function version() {
  const pkg = /** @type {{ version?: unknown }} */ (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')))
  return typeof pkg.version === 'string' ? pkg.version : 'unknown'
}

export const HELP = `Usage:
  thinking-line [--prefix TEXT] [--tmux] [--no-links]
  thinking-line --check
  thinking-line --help | --version

Prints one line: your text, then one disclosed ad (Ad · brand · line). Meant to be run by a
status line every second or so (Claude Code's statusLine, tmux's status-right); it answers from
a local state directory, never waits on the network, and always exits 0.

Options:
  --prefix TEXT  text before the ad; {model.display_name} and {workspace.current_dir} are
                 filled from the JSON a tool passes on stdin (also THINKING_LINE_PREFIX)
  --tmux         for tmux's status-right: # doubled, no hyperlink
  --no-links     no OSC 8 hyperlink on the ad
  --check        the service's URL and whether it answers, the last error, the back-off,
                 views waiting and tokens left; exit 0 when the service answered, 1 when not
  -h, --help     this text
  --version      the version

Settings (environment):
  THINKING_LINE_URL             the ad service (default http://127.0.0.1:8080)
  THINKING_LINE_STATE_DIR       local state (default $XDG_STATE_HOME/thinking-line,
                                else ~/.local/state/thinking-line)
  THINKING_LINE_COUNTRY         ISO alpha-2 country sent with decision requests
  THINKING_LINE_TOPICS          off: no topics derived from the project or sent
  THINKING_LINE_MAX_COLUMNS     the most columns the line may take (the ad is cut with …)
  THINKING_LINE_ATTEST_COMMAND  a command printing your attester JWT: attested views
  THINKING_LINE_ATTEST_TOKEN    the attester JWT itself

tmux and Claude Code run it with their environment, not your shell's: in tmux,
set-environment -g THINKING_LINE_URL …; in Claude Code, "THINKING_LINE_URL=… thinking-line"
as the statusLine command. To see what tmux's status line sees:
  tmux run-shell 'thinking-line --check'
More: the package's README.md.
`

/** Text from the environment or the state directory, printable on one line (the client core's sanitising). */
const plain = sanitize

/** A duration for a person. @param {number} ms */
export function duration(ms) {
  const s = Math.max(0, ms) / 1000
  if (s < 1) return 'under 1 s'
  if (s < 90) return `${Math.round(s)} s`
  if (s < 90 * 60) return `${Math.round(s / 60)} min`
  if (s < 48 * 3600) return `${Math.round(s / 3600)} h`
  return `${Math.round(s / 86400)} days`
}

/** @param {number} at @param {number} now */
const ago = (at, now) => `${duration(now - at)} ago, ${new Date(at).toISOString()}`

/** Levenshtein distance, for "did you mean". @param {string} a @param {string} b */
function distance(a, b) {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++) next[j] = Math.min((row[j] ?? 0) + 1, (next[j - 1] ?? 0) + 1, (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1))
    row = next
  }
  return row[b.length] ?? 0
}

/** The refusal of an argument that is not ours. @param {string} arg */
export function usageError(arg) {
  const name = arg.split('=')[0] ?? arg
  const near = name.startsWith('-') ? OPTIONS.map((o) => ({ o, d: distance(name, o) })).sort((x, y) => x.d - y.d)[0] : undefined
  const hint = near && near.d <= 2 ? ` (did you mean ${near.o}?)` : ''
  const what = arg.startsWith('-') ? `unknown option ${plain(arg)}` : `unexpected argument ${plain(arg)}`
  return `thinking-line: ${what}${hint}; thinking-line --help lists the options\n`
}

/**
 * Asks the service for its topic list once, within the refresher's bound.
 * @param {string} base
 * @returns {Promise<{ ok: boolean, text: string }>}
 */
export async function probe(base) {
  let url
  try {
    url = new URL(`${base}/serve/v1/topics`)
  } catch {
    return { ok: false, text: 'THINKING_LINE_URL is not a URL (it needs http:// or https://)' }
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, text: `THINKING_LINE_URL is not an http(s) URL (${plain(url.protocol)})` }
  const started = performance.now()
  const where = `GET /serve/v1/topics, at most ${REQUEST_TIMEOUT_MS / 1000} s`
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS), headers: { accept: 'application/json' } })
    const ms = Math.round(performance.now() - started)
    const body = await res.text()
    let topics = null
    try {
      const parsed = /** @type {unknown} */ (JSON.parse(body))
      if (parsed !== null && typeof parsed === 'object' && 'topics' in parsed && Array.isArray(parsed.topics)) topics = parsed.topics.length
    } catch {
      topics = null
    }
    if (res.status === 200 && topics !== null) return { ok: true, text: `answered in ${ms} ms (${where}: HTTP 200, ${topics} topics)` }
    return { ok: false, text: `answered HTTP ${res.status}, not as the ad service does (${where}); is THINKING_LINE_URL the service's base URL?` }
  } catch (err) {
    return { ok: false, text: `no answer: ${plain(describeFailure(err, REQUEST_TIMEOUT_MS))} (${where})` }
  }
}

/** @type {Record<string, string>} */
const WALLET_PAUSES = {
  unauthorized: 'the attester JWT was refused',
  rate_limited: 'the service asked to wait',
  error: 'token requests failed',
  attester: 'the attester command failed',
}

/**
 * The report `--check` prints, and whether the service answered.
 * @param {NodeJS.ProcessEnv} env @param {number} now
 */
export async function check(env, now) {
  const { baseUrl, country } = settings(env)
  const dir = stateDir(env)
  const p = paths(dir)
  /** @type {[string, string][]} */
  const rows = []
  const from = env.THINKING_LINE_URL ? 'THINKING_LINE_URL' : 'the default: THINKING_LINE_URL is not set in this environment'
  rows.push(['URL', `${plain(baseUrl)} (${from})`])
  const service = await probe(baseUrl)
  rows.push(['service', service.text])

  rows.push(['state directory', `${plain(dir)}${existsSync(dir) ? '' : ' (not made yet: no line has been printed with this setting)'}`])
  const record = readRecord(dir)
  rows.push(['refresher', record ? `last pass ${ago(record.at, now)}: ${record.outcome === 'ok' ? `done (${record.sent} views sent, ${record.fetched} ads fetched)` : record.outcome === 'no_fill' ? 'the service had no ad to show' : 'failed'}` : 'has not run'])
  rows.push(['last error', record?.error ? `${plain(record.error.detail)} (${ago(record.error.at, now)})` : 'none recorded'])
  const backoff = /** @type {{ until?: unknown, failures?: unknown } | null} */ (readJson(p.backoff))
  const until = typeof backoff?.until === 'number' ? backoff.until : 0
  const failures = typeof backoff?.failures === 'number' ? backoff.failures : 0
  rows.push(['back-off', until > now ? `${duration(until - now)} left (${failures > 0 ? `${failures} failed ${failures === 1 ? 'pass' : 'passes in a row'}` : 'no ad to show'})` : 'none'])
  const state = readState(dir)
  rows.push(['ads ready', state.current ? (state.next ? 'one on screen, one spare' : 'one on screen') : 'none'])
  const queued = pendingReports(dir).length
  let sending = 0
  try {
    sending = readdirSync(p.reports).filter((f) => f.includes('.claimed.')).length
  } catch {
    // No reports folder: nothing being sent.
  }
  rows.push(['views waiting', `${queued}${sending > 0 ? ` (and ${sending} being sent)` : ''}`])

  const who = attester(env)
  rows.push(['attester', who ? (who.kind === 'command' ? 'THINKING_LINE_ATTEST_COMMAND' : 'THINKING_LINE_ATTEST_TOKEN') : 'none (views are not attested)'])
  if (who) {
    const wallet = readWallet(dir)
    const pause = wallet.backoff && wallet.backoff.until > now ? `; fetching paused ${duration(wallet.backoff.until - now)} (${WALLET_PAUSES[wallet.backoff.reason] ?? wallet.backoff.reason})` : ''
    rows.push(['tokens', `${wallet.tokens.length} left${pause}`])
  }
  const columns = parseColumns(env.THINKING_LINE_MAX_COLUMNS)
  rows.push(['max columns', columns === null ? `none${env.THINKING_LINE_MAX_COLUMNS ? ` (THINKING_LINE_MAX_COLUMNS=${plain(env.THINKING_LINE_MAX_COLUMNS)} is not a positive whole number)` : ''}` : String(columns)])
  rows.push(['topics', topicsEnabled(env) ? 'on' : 'off'])
  rows.push(['country', country ?? 'not set'])

  const width = Math.max(...rows.map(([k]) => k.length)) + 2
  const text = `thinking-line ${version()}\n${rows.map(([k, v]) => `${k.padEnd(width)}${v}`).join('\n')}\n`
  return { ok: service.ok, text }
}

/** @param {number} fd @param {string} text */
function write(fd, text) {
  try {
    writeSync(fd, text)
  } catch {
    // Nobody reads it.
  }
}

/**
 * Runs `command` (anything but the line); the exit code.
 * @param {Exclude<Command, 'line'>} command @param {string | null} unknown @param {NodeJS.ProcessEnv} env
 */
export async function run(command, unknown, env) {
  if (command === 'usage') {
    write(2, usageError(unknown ?? ''))
    return 2
  }
  if (command === 'help') {
    write(1, `thinking-line ${version()}: one disclosed ad after your own text, for a terminal status line.\n\n${HELP}`)
    return 0
  }
  if (command === 'version') {
    write(1, `${version()}\n`)
    return 0
  }
  const { ok, text } = await check(env, Date.now())
  write(1, text)
  return ok ? 0 : 1
}
