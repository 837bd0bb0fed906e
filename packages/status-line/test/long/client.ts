/**
 * What the status-line tests share: the real bin run as a tool runs it (a child process, stdin
 * JSON, one line read back), and an HTTP proxy in front of the service that records every call
 * and can stall (the service unreachable: connections accepted, never answered).
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const BIN = new URL('../../bin/thinking-line.js', import.meta.url).pathname

export interface Invocation {
  code: number | null
  stdout: string
  ms: number
}

/** One invocation of the bin with `env` (and a tool's stdin JSON), timed from spawn to exit. */
export function invoke(env: Record<string, string>, args: string[] = [], stdin = '{"model":{"display_name":"Opus"},"workspace":{"current_dir":"/tmp/app"}}'): Promise<Invocation> {
  const started = performance.now()
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 10_000 }, (err, stdout) => {
      const code = err && typeof err.code === 'number' ? err.code : err ? null : 0
      resolve({ code, stdout, ms: performance.now() - started })
    })
    // The bin reads stdin only when its prefix uses it, and may exit before the write lands (EPIPE), as a tool sees it.
    child.stdin?.on('error', () => {})
    child.stdin?.end(stdin)
  })
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Invokes every `everyMs` (start to start) for `forMs`; the invocations in order. */
export async function invokeEvery(env: Record<string, string>, everyMs: number, forMs: number, args: string[] = []): Promise<Invocation[]> {
  const runs: Invocation[] = []
  const start = performance.now()
  for (let i = 0; performance.now() - start < forMs; i++) {
    runs.push(await invoke(env, args))
    const wait = start + (i + 1) * everyMs - performance.now()
    if (wait > 0) await sleep(wait)
  }
  return runs
}

export const stateDirFor = () => mkdtempSync(join(tmpdir(), 'thinking-line-test-'))

/** Views and claims still in the state directory. */
export function unsent(dir: string): string[] {
  const reports = join(dir, 'reports')
  return existsSync(reports) ? readdirSync(reports) : []
}

export interface Call {
  method: string
  path: string
  status: number
}

export interface ServiceProxy {
  url: string
  calls: Call[]
  /** Connections are accepted and never answered (until `resume`). */
  stall(): void
  resume(): void
  close(): Promise<void>
}

export async function startProxy(upstream: string): Promise<ServiceProxy> {
  let stalled = false
  const held = new Set<ServerResponse>()
  const calls: Call[] = []
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      if (stalled) {
        held.add(res)
        return
      }
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined
      fetch(upstream + (req.url ?? '/'), { method: req.method, headers: { 'content-type': req.headers['content-type'] ?? 'application/json' }, body, redirect: 'manual' })
        .then(async (r) => {
          const text = await r.text()
          calls.push({ method: req.method ?? '', path: req.url ?? '', status: r.status })
          res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'text/plain' })
          res.end(text)
        })
        .catch(() => res.destroy())
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    stall: () => {
      stalled = true
    },
    resume: () => {
      stalled = false
      for (const res of held) res.destroy()
      held.clear()
    },
    close: async () => {
      for (const res of held) res.destroy()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

/** The view calls answered 204, by impression id. */
export function acknowledgedViews(calls: Call[]): Map<string, number> {
  const views = new Map<string, number>()
  for (const c of calls) {
    const m = /^\/serve\/v1\/impressions\/([^/]+)\/view$/.exec(c.path)
    if (c.method === 'POST' && m && c.status === 204) views.set(m[1]!, (views.get(m[1]!) ?? 0) + 1)
  }
  return views
}

/** Polls `check` until it holds or `ms` pass. */
export async function waitFor(check: () => boolean | Promise<boolean>, ms: number, everyMs = 200): Promise<boolean> {
  const until = performance.now() + ms
  while (performance.now() < until) {
    if (await check()) return true
    await sleep(everyMs)
  }
  return check()
}
