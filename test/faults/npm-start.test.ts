import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { CHILD_ADMIN_TOKEN, childStore, freePort, waitHealthy, type Child } from '../helpers/child-service.ts'

const root = new URL('../..', import.meta.url).pathname

/**
 * `npm start` as an operator runs it: `prestart` builds dist/ when src/ changed
 * (scripts/build.ts), then plain node serves dist/, with no TypeScript loader.
 * The other child-process tests start src/ under tsx; this one guards the
 * build: module paths, the migrations and page assets copied beside the code,
 * and the embedded store's worker thread as JavaScript.
 */
test('npm start builds dist/ and serves it with plain node on the store; SIGTERM ends it with exit 0', { timeout: 240_000 }, async () => {
  const port = await freePort()
  const { env: storeEnv, cleanup } = await childStore('adapi-npm-start')
  // Its own process group: the signal reaches npm and the node it started alike.
  const npm = spawn('npm', ['start'], {
    cwd: root,
    detached: true,
    env: { ...process.env, ...storeEnv, PORT: String(port), ADMIN_TOKEN: CHILD_ADMIN_TOKEN, LOG_LEVEL: 'info', CLOCK: 'manual', CLOCK_START: '2026-11-02T09:00:00Z' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  npm.stdout.setEncoding('utf8').on('data', (s: string) => (out += s))
  npm.stderr.setEncoding('utf8').on('data', (s: string) => (err += s))
  const exit = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)))
  const child: Child = { process: npm, stdout: () => out, stderr: () => err, exit }
  const base = `http://127.0.0.1:${port}`
  try {
    // A first start compiles (tens of seconds on a busy machine) and migrates.
    await waitHealthy(base, child, 200_000)

    // The process listening is node running dist/, not tsx. /healthz can answer a moment before the
    // line announcing it reaches the pipe: wait for the line (bounded).
    const announced = () => out.split('\n').find((l) => l.includes('advertiser API listening'))
    for (let waited = 0; !announced() && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50))
    const listening = announced()
    assert.ok(listening, `a start-up log line:\n${out}`)
    const pid = (JSON.parse(listening) as { pid: number }).pid
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
    assert.ok(argv.some((a) => a.endsWith('dist/start/server.js')), argv.join(' '))
    assert.ok(!argv.some((a) => a.includes('tsx')), `no TypeScript loader: ${argv.join(' ')}`)

    // The store works (a write and its read back), the pages render, and their assets are served.
    const created = await fetch(`${base}/admin/v1/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${CHILD_ADMIN_TOKEN}` },
      body: JSON.stringify({ email: 'npm-start@example.dev' }),
    })
    assert.equal(created.status, 201, await created.clone().text())
    const { user_id } = (await created.json()) as { user_id: string }
    const read = await fetch(`${base}/admin/v1/accounts/${user_id}`, { headers: { authorization: `Bearer ${CHILD_ADMIN_TOKEN}` } })
    assert.equal(read.status, 200)
    const status = await fetch(`${base}/status`)
    assert.equal(status.status, 200)
    assert.match(await status.text(), /Thinking-line ads/)
    const css = await fetch(`${base}/assets/site.css`)
    assert.equal(css.status, 200)
    assert.match(css.headers.get('content-type') ?? '', /^text\/css/)
    const openapi = await fetch(`${base}/v1/openapi.json`)
    assert.equal(openapi.status, 200)

    // SIGTERM to the service (npm itself dies of the signal, whatever its script does): it drains and
    // exits 0, and npm passes that exit code on.
    process.kill(pid, 'SIGTERM')
    assert.equal(await exit, 0, `exit code after SIGTERM; stderr:\n${err}`)
  } finally {
    if (npm.exitCode === null && npm.signalCode === null) process.kill(-npm.pid!, 'SIGKILL')
    await exit
    await cleanup()
  }
})
