import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { STORE } from '../helpers/service.ts'
import { freePort } from '../helpers/child-service.ts'

/**
 * One process per embedded DATA_DIR (issue 23): a second `npm start` on a
 * directory in use exits at once, naming the directory and the holder's pid;
 * after the holder is killed with SIGKILL, a restart takes the stale lock over.
 */
const root = new URL('../..', import.meta.url).pathname


function start(dataDir: string, port: number): { child: ChildProcess; stderr: () => string } {
  let err = ''
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/start/server.ts'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()))
  return { child, stderr: () => err }
}

const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code)),
  )

async function waitHealthy(port: number): Promise<void> {
  // Up to two minutes: a fresh embedded store migrates at start-up, slow on a loaded machine.
  for (let i = 0; i < 1_200; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error('service did not start')
}

test('a second process on one DATA_DIR exits at once; a stale lock after SIGKILL does not block a restart', { skip: STORE === 'postgres' ? 'embedded store only' : false, timeout: 300_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'adapi-lock-'))
  const running: ChildProcess[] = []
  try {
    const firstPort = await freePort()
    const first = start(dataDir, firstPort)
    running.push(first.child)
    await waitHealthy(firstPort)
    assert.equal(readLock(dataDir), first.child.pid)

    const startedAt = performance.now()
    const second = start(dataDir, await freePort())
    running.push(second.child)
    assert.equal(await exitOf(second.child), 75)
    assert.ok(performance.now() - startedAt < 20_000, 'the second process exits at once')
    assert.match(second.stderr(), new RegExp(`DATA_DIR ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by process ${first.child.pid}`))
    assert.doesNotMatch(second.stderr(), /\n\s+at /, 'one line, no stack')

    first.child.kill('SIGKILL')
    await exitOf(first.child)
    assert.equal(readLock(dataDir), first.child.pid, 'SIGKILL leaves the lock behind')
    const port = await freePort()
    const third = start(dataDir, port)
    running.push(third.child)
    await waitHealthy(port)
    assert.equal(readLock(dataDir), third.child.pid, 'the restart took the stale lock over')
  } finally {
    for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await Promise.all(running.map(exitOf))
    rmSync(dataDir, { recursive: true, force: true })
  }
})

function readLock(dataDir: string): number | null {
  try {
    return Number(readFileSync(join(dataDir, 'instance.lock'), 'utf8').trim())
  } catch {
    return null
  }
}
