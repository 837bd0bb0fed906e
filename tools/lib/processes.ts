/**
 * Child processes of the tools: a free loopback port, a Node script started
 * with tsx and waited for until its /healthz answers, stopped with SIGTERM
 * (SIGKILL after 20 s), and every child still running killed on the way out.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'

/** The repository's root: scripts are started from there. */
export const root = new URL('../..', import.meta.url).pathname

/** A port free on 127.0.0.1 right now (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port
      srv.close(() => resolve(port))
    })
  })
}

export interface Proc {
  child: ChildProcess
  /** `http://127.0.0.1:PORT` (PORT from the child's environment). */
  origin: string
  /** The last 20 lines the child wrote to stderr. */
  stderrTail: string[]
}

const children = new Set<ChildProcess>()

/**
 * Starts `node [--import tsx] [nodeArgs] script` in the repository root with exactly `env` (tsx for a
 * TypeScript script, plain node for built JavaScript: `buildService`); stdout is dropped, stderr kept (tail).
 */
export function spawnNode(script: string, env: Record<string, string>, nodeArgs: string[] = []): Proc {
  const loader = script.endsWith('.js') ? [] : ['--import', 'tsx']
  const child = spawn(process.execPath, [...loader, ...nodeArgs, script], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  children.add(child)
  child.once('exit', () => children.delete(child))
  const stderrTail: string[] = []
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    for (const l of chunk.split('\n').filter(Boolean)) {
      stderrTail.push(l)
      if (stderrTail.length > 20) stderrTail.shift()
    }
  })
  return { child, origin: `http://127.0.0.1:${env.PORT}`, stderrTail }
}

/** What `npm start` runs, built first when src/ changed (scripts/build.ts): the path to start with spawnNode. */
export function buildService(): string {
  const built = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts', '--if-stale'], { cwd: root, stdio: 'inherit' })
  if (built.status !== 0) throw new Error('npm run build failed')
  return 'dist/start/server.js'
}

/** Waits (at most 60 s) until `GET /healthz` answers 2xx; fails at once when the child exits. */
export async function waitHealthy(p: Proc, label: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (p.child.exitCode !== null || p.child.signalCode !== null) {
      throw new Error(`${label} exited during start-up:\n${p.stderrTail.join('\n')}`)
    }
    try {
      if ((await fetch(`${p.origin}/healthz`)).ok) return
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${label} did not become healthy in 60 s:\n${p.stderrTail.join('\n')}`)
}

/** SIGTERM, then SIGKILL if it has not exited after 20 s; resolves once it has exited. */
export async function stopProcess(p: Proc): Promise<void> {
  const { child } = p
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
  await exited
  clearTimeout(timer)
}

/** SIGKILLs every child started by spawnNode that is still running (an interrupted tool). */
export function killChildren(): void {
  for (const c of children) c.kill('SIGKILL')
}

/** On SIGINT or SIGTERM (once): runs `cleanup`, then exits with 130. */
export function onInterrupt(cleanup: (signal: NodeJS.Signals) => Promise<void>): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void cleanup(signal).finally(() => process.exit(130)))
  }
}
