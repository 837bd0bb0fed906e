import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, connect, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { createDatabase, STORE } from '../helpers/service.ts'
import { childStore, freePort, spawnService, unexpectedStderr, waitForOutput, waitHealthy, type Child } from '../helpers/child-service.ts'

const PASSWORD = 'Sup3rSecretPassw0rd'
const onPostgres = STORE === 'postgres' ? false : 'PostgreSQL only (TEST_STORE=postgres)'
const onEmbedded = STORE === 'embedded' ? false : 'embedded store only (a DATA_DIR)'

/** The one line a failed start writes: exactly one, no stack. */
function oneLine(child: Child): string {
  const lines = child.stderr().split('\n').filter((l) => l !== '')
  assert.equal(lines.length, 1, `exactly one line on stderr, got:\n${child.stderr()}`)
  assert.doesNotMatch(child.stderr(), /^\s+at /m, 'no stack')
  return lines[0]!
}

/** The instants (ms) of the child's log lines on stdout (pino JSON). */
function logTimes(child: Child): number[] {
  return child
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => (JSON.parse(l) as { time: number }).time)
}

test('PostgreSQL not listening: retried for STARTUP_TIMEOUT_SECONDS, then exit 69 with one line naming host:port and no password', { skip: onPostgres, timeout: 60_000 }, async () => {
  const port = await freePort()
  const child = spawnService({
    DATABASE_URL: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/adapi`,
    STARTUP_TIMEOUT_SECONDS: '2',
    PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
  })
  await waitForOutput(child, /not reachable \(attempt 1\)/, 30_000)
  const firstRefused = performance.now()
  const code = await child.exit
  const retrying = performance.now() - firstRefused
  assert.equal(code, 69, child.stderr())
  const line = oneLine(child)
  assert.match(line, new RegExp(`^start-up error: PostgreSQL at 127\\.0\\.0\\.1:${port} refused connections for 2 s \\(\\d+ attempts, ECONNREFUSED\\); check DATABASE_URL`))
  assert.ok(!child.stderr().includes(PASSWORD) && !child.stdout().includes(PASSWORD), 'the password is never printed')
  // Each retry is one warning; the first attempt to the exit is the timeout, not the module loading before it.
  assert.ok(logTimes(child).length >= 3, `retries logged: ${child.stdout()}`)
  assert.ok(retrying >= 1_500 && retrying <= 5_000, `gave up ${retrying} ms after the first attempt`)
  for (const l of child.stdout().trim().split('\n')) assert.match(l, /"level":40.*not reachable \(attempt \d+\); next in \d+ ms/)
})

test('DATA_DIR is a file: exit 73 with one line naming it', { skip: onEmbedded, timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'adapi-startup-'))
  const file = join(dir, 'not-a-dir')
  writeFileSync(file, 'x')
  try {
    const child = spawnService({ DATA_DIR: file, PORT: String(await freePort()) })
    assert.equal(await child.exit, 73, child.stderr())
    assert.equal(oneLine(child), `start-up error: DATA_DIR ${file} is not a directory (EEXIST: a file is in the way); check DATA_DIR (a directory this user can write), or set DATABASE_URL`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('the port is in use: exit 98 with one line naming it', { skip: STORE === 'postgres' ? false : 'the listener does not depend on the store: run once, on PostgreSQL', timeout: 60_000 }, async () => {
  const taken: Server = createServer()
  const port = await new Promise<number>((resolve) => taken.listen(0, '127.0.0.1', () => resolve((taken.address() as { port: number }).port)))
  const { env, cleanup } = await childStore('adapi-startup')
  try {
    const child = spawnService({ ...env, PORT: String(port) })
    assert.equal(await child.exit, 98, child.stderr())
    assert.equal(oneLine(child), `start-up error: port ${port} on 127.0.0.1 is in use (EADDRINUSE); stop the other process or set PORT`)
  } finally {
    taken.close()
    await cleanup()
  }
})

test('PostgreSQL that comes up during the retries: the service starts', { skip: onPostgres, timeout: 60_000 }, async () => {
  const db = await createDatabase(process.env.TEST_DATABASE_URL!, 'adapi_startup')
  const real = new URL(process.env.TEST_DATABASE_URL!)
  const proxyPort = await freePort()
  const url = new URL(db.url)
  url.host = `127.0.0.1:${proxyPort}`
  const httpPort = await freePort()
  const child = spawnService({ DATABASE_URL: url.toString(), STARTUP_TIMEOUT_SECONDS: '30', PORT: String(httpPort) })
  // A tiny TCP proxy to the real server opens on the closed port once the service has been refused.
  const sockets = new Set<import('node:net').Socket>()
  const proxy = createServer((client) => {
    const upstream = connect(Number(real.port || 5432), real.hostname)
    sockets.add(client).add(upstream)
    client.pipe(upstream).pipe(client)
    const end = () => {
      client.destroy()
      upstream.destroy()
    }
    client.on('error', end).on('close', end)
    upstream.on('error', end).on('close', end)
  })
  try {
    await waitForOutput(child, /not reachable \(attempt 1\)/, 30_000)
    await new Promise((r) => setTimeout(r, 1_500))
    await new Promise<void>((resolve) => proxy.listen(proxyPort, '127.0.0.1', () => resolve()))
    await waitHealthy(`http://127.0.0.1:${httpPort}`, child)
    const ready = await fetch(`http://127.0.0.1:${httpPort}/readyz`)
    assert.equal(ready.status, 200)
    assert.equal(unexpectedStderr(child), '', 'nothing on stderr but the development note')
    child.process.kill('SIGTERM')
    assert.equal(await child.exit, 0)
  } finally {
    child.process.kill('SIGKILL')
    for (const s of sockets) s.destroy()
    proxy.close()
    await db.drop()
  }
})
