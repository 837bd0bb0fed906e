import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'

/** The service started as `npm start` starts it, in a child process (test/faults, test/durability). */
export const ADMIN = 'faults-admin-token-000000'
const root = new URL('../..', import.meta.url).pathname

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port
      srv.close(() => resolve(port))
    })
  })
}

export interface Child {
  process: ChildProcess
  /** Everything written so far. */
  stdout(): string
  stderr(): string
  /** Resolves with the exit code once the process ended (null: killed by a signal). */
  exit: Promise<number | null>
}

export function startChild(env: Record<string, string>): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/start/server.ts'], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', ADMIN_TOKEN: ADMIN, CLOCK: 'manual', CLOCK_START: '2026-11-02T09:00:00Z', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s))
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s))
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { process: child, stdout: () => out, stderr: () => err, exit }
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

/** Admin token set; every call raw JSON. */
export async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers }
}
