import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDatabase, STORE } from './service.ts'

/** What the fault tests need of a service started as a child process (`node --import tsx src/start/server.ts`). */
export const CHILD_ADMIN_TOKEN = 'fault-suite-admin-token-000'
const root = new URL('../..', import.meta.url).pathname

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port
      srv.close(() => resolve(port))
    })
  })
}

/**
 * A DATA_DIR for a child on the embedded store, seeded with the migrated
 * template of the test run (TEST_PGLITE_TEMPLATE, a dump of a data directory)
 * when there is one: the child then starts without migrating a new store.
 */
export function embeddedDataDir(prefix: string): { dir: string; cleanup: () => Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`))
  const template = process.env.TEST_PGLITE_TEMPLATE
  if (template) {
    mkdirSync(join(dir, 'pglite'))
    const untar = spawnSync('tar', ['-xzf', template, '-C', join(dir, 'pglite')], { stdio: 'ignore' })
    // Without tar the child migrates a new store itself: slower, same result.
    if (untar.status !== 0) rmSync(join(dir, 'pglite'), { recursive: true, force: true })
  }
  return { dir, cleanup: async () => rmSync(dir, { recursive: true, force: true }) }
}

/**
 * A store of its own for a child service on the suite's store: a new PostgreSQL database
 * (TEST_STORE=postgres), else an embedded DATA_DIR seeded from the migrated template. `env`
 * points the child at it; `cleanup` drops it.
 */
export async function childStore(prefix: string): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  if (STORE === 'postgres') {
    const db = await createDatabase(process.env.TEST_DATABASE_URL!, prefix.replaceAll('-', '_'))
    return { env: { DATABASE_URL: db.url }, cleanup: db.drop }
  }
  const data = embeddedDataDir(prefix)
  return { env: { DATA_DIR: data.dir }, cleanup: data.cleanup }
}

export interface ChildService {
  child: ChildProcess
  base: string
  /** Everything the child wrote to stderr and stdout (its log lines, LOG_LEVEL=warn). */
  output(): string
  kill(): Promise<void>
}

/** Starts the service on a free port with `env` (ADMIN_TOKEN, a manual clock) and waits for /healthz. */
export async function startChild(env: Record<string, string>): Promise<ChildService> {
  const port = await freePort()
  const spawned = spawnService({ PORT: String(port), ...env })
  const child = spawned.process
  const svc: ChildService = {
    child,
    base: `http://127.0.0.1:${port}`,
    output: () => spawned.stdout() + spawned.stderr(),
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGKILL')
      await spawned.exit
    },
  }
  try {
    // A first start migrates a new store: up to a minute on a loaded machine.
    await waitHealthy(svc.base, spawned, 60_000)
  } catch (err) {
    await svc.kill()
    throw new Error(`${err instanceof Error ? err.message : String(err)}:\n${svc.output()}`)
  }
  return svc
}

export interface Timed {
  status: number
  body: unknown
  headers: Headers
  ms: number
}

/** One JSON request: its status, headers and text (a connection failure or the signal's timeout throws). */
async function send(base: string, method: string, path: string, body: unknown, headers: Record<string, string>, signal?: AbortSignal) {
  const res = await fetch(base + path, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  })
  return { status: res.status, headers: res.headers, text: await res.text() }
}

/** One JSON call, timed (real time), never longer than `limitMs` (then status 0, as for a refused connection). */
export async function timedCall(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}, limitMs = 30_000): Promise<Timed> {
  const started = performance.now()
  try {
    const res = await send(base, method, path, body, headers, AbortSignal.timeout(limitMs))
    return { status: res.status, body: res.text ? (JSON.parse(res.text) as unknown) : null, headers: res.headers, ms: performance.now() - started }
  } catch {
    return { status: 0, body: null, headers: new Headers(), ms: performance.now() - started }
  }
}

export const adminHeaders = { authorization: `Bearer ${CHILD_ADMIN_TOKEN}` }

/** An account allowed to write and bill, with an active campaign: what serving needs. */
export async function accountWithCampaign(base: string, email: string): Promise<{ auth: Record<string, string>; campaignId: string }> {
  const account = (await timedCall(base, 'POST', '/admin/v1/accounts', { email }, adminHeaders)).body as { user_id: string; api_key: string }
  for (const [p, b] of [
    ['write-approval', { approved: true }],
    ['terms', { accepted: true }],
    ['billing', { mode: 'weekly_autopay', card_number: '4242424242424242' }],
  ] as const) {
    await timedCall(base, 'POST', `/admin/v1/accounts/${account.user_id}/${p}`, b, adminHeaders)
  }
  const auth = { 'x-service-user-id': account.user_id, 'x-service-api-key': account.api_key }
  const created = await timedCall(
    base,
    'POST',
    '/v1/campaigns',
    { ad_line: 'Fault suite delivery line', destination_url: 'https://acme.dev/', cpm_usd: 1.25, impressions: 20_000, idempotency_key: `fault-${email.replace(/[^a-z0-9]/gi, "-")}` },
    auth,
  )
  if (created.status !== 201) throw new Error(`campaign not created: ${created.status} ${JSON.stringify(created.body)}`)
  return { auth, campaignId: (created.body as { campaign_id: string }).campaign_id }
}

export interface Child {
  process: ChildProcess
  /** Everything written so far. */
  stdout(): string
  stderr(): string
  /** Resolves with the exit code once the process ended (null: killed by a signal). */
  exit: Promise<number | null>
}

/** Spawns the service without waiting for it (start-up and shutdown tests watch it come up or fail). */
export function spawnService(env: Record<string, string>): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/start/server.ts'], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', ADMIN_TOKEN: CHILD_ADMIN_TOKEN, CLOCK: 'manual', CLOCK_START: '2026-11-02T09:00:00Z', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s))
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s))
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { process: child, stdout: () => out, stderr: () => err, exit }
}

/**
 * The development note `npm start` prints on stderr once it is up while it keeps sealing keys in the
 * store (src/start/startup.ts#keysInStoreNote): the children here run without OFFER_KEYS and
 * KEY_SEALING_KEY, as development does.
 */
export const KEYS_IN_STORE_NOTE = /^Note: (?:OFFER_KEYS and KEY_SEALING_KEY are|OFFER_KEYS is|KEY_SEALING_KEY is) unset, so .* kept in the database\. .*\n/m

/** What the child wrote on stderr besides the development note: '' for a start that went well. */
export function unexpectedStderr(child: Child): string {
  return child.stderr().replace(KEYS_IN_STORE_NOTE, '')
}

/** Waits until `pattern` shows on the child's stdout (a log line), or fails after `ms`. */
export async function waitForOutput(child: Child, pattern: RegExp, ms: number): Promise<void> {
  const until = performance.now() + ms
  while (!pattern.test(child.stdout())) {
    if (performance.now() > until) throw new Error(`no ${pattern} on stdout within ${ms} ms; stderr: ${child.stderr()}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** Waits for /healthz (a fresh embedded store migrates first: slow on a busy machine). */
export async function waitHealthy(base: string, child?: Child, ms = 120_000): Promise<void> {
  const until = performance.now() + ms
  while (performance.now() < until) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return
    } catch {
      // not up yet
    }
    if (child?.process.exitCode != null) throw new Error(`service exited ${child.process.exitCode}: ${child.stderr()}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error('service did not start')
}

/** One raw JSON call (a connection failure throws). */
export async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await send(base, method, path, body, headers)
  return { status: res.status, body: res.text ? JSON.parse(res.text) : null, headers: res.headers }
}
