import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { childStore, freePort, KEYS_IN_STORE_NOTE, spawnService, unexpectedStderr, waitHealthy, type Child } from '../helpers/child-service.ts'

/**
 * Issue 49, finding 4: with NODE_ENV=production the service (`src/start/server.ts`, as `npm start`
 * runs it) refuses to start while a sealing key would be kept in the database, with one line and
 * exit 78; with the keys from the environment or from files it starts; development starts and
 * says once, in one plain line, that the keys are in the database.
 */
const ring = (id: number) => `${id}:${randomBytes(32).toString('hex')}`

/** The child's exit code; a child still running after `ms` (it started where it should have refused) is killed: 'still running'. */
async function exitWithin(child: Child, ms: number): Promise<number | null | 'still running'> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'still running'>((resolve) => (timer = setTimeout(() => resolve('still running'), ms)))
  const code = await Promise.race([child.exit, late])
  clearTimeout(timer)
  if (code === 'still running') {
    child.process.kill('SIGKILL')
    await child.exit
  }
  return code
}

/** Starts the service on a store of its own with `env`; hands the child, up, to `use`; then stops it. */
async function started(env: Record<string, string>, use: (child: Child) => Promise<void>): Promise<void> {
  const { env: storeEnv, cleanup } = await childStore('adapi-startup-keys')
  const port = await freePort()
  const child = spawnService({ ...storeEnv, PORT: String(port), LOG_LEVEL: 'info', ...env })
  try {
    await waitHealthy(`http://127.0.0.1:${port}`, child, 120_000)
    // The note follows the listening line (logged once start-up is done): wait for that, then a moment for the pipe.
    for (let waited = 0; !/advertiser API listening/.test(child.stdout()) && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50))
    assert.match(child.stdout(), /advertiser API listening/)
    await new Promise((r) => setTimeout(r, 200))
    await use(child)
    child.process.kill('SIGTERM')
    assert.equal(await child.exit, 0)
  } finally {
    if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL')
    await child.exit
    await cleanup()
  }
}

test('NODE_ENV=production without the sealing keys: exit 78, one line naming what to set, no stack', { timeout: 60_000 }, async () => {
  for (const [env, named] of [
    [{}, 'OFFER_KEYS and KEY_SEALING_KEY'],
    [{ OFFER_KEYS: ring(1) }, 'KEY_SEALING_KEY'],
    [{ KEY_SEALING_KEY: ring(1) }, 'OFFER_KEYS'],
  ] as const) {
    const child = spawnService({ NODE_ENV: 'production', PORT: String(await freePort()), ...env })
    assert.equal(await exitWithin(child, 30_000), 78, child.stderr())
    const lines = child.stderr().split('\n').filter((l) => l !== '')
    assert.equal(lines.length, 1, child.stderr())
    assert.ok(lines[0]!.startsWith(`configuration error: ${named}: unset, and NODE_ENV=production refuses sealing keys kept in the database`), lines[0])
    assert.match(lines[0]!, /\(docs\/sealing-keys\.md\)/)
    assert.equal(child.stdout(), '', 'nothing started, nothing logged')
  }
})

test('NODE_ENV=production with the keys in the environment starts, and says nothing about keys', { timeout: 180_000 }, async () => {
  await started({ NODE_ENV: 'production', OFFER_KEYS: ring(1), KEY_SEALING_KEY: ring(1) }, async (child) => {
    assert.equal(child.stderr(), '')
    assert.doesNotMatch(child.stdout(), /OFFER_KEYS|KEY_SEALING_KEY|sealing key/)
  })
})

test('NODE_ENV=production with the keys in files (OFFER_KEYS_FILE, KEY_SEALING_KEY_FILE) starts', { timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'adapi-key-files-'))
  try {
    writeFileSync(join(dir, 'offer_keys'), `${ring(1)}\n`, { mode: 0o600 })
    writeFileSync(join(dir, 'key_sealing_key'), `${ring(2)},${ring(1)}\n`, { mode: 0o600 })
    await started({ NODE_ENV: 'production', OFFER_KEYS_FILE: join(dir, 'offer_keys'), KEY_SEALING_KEY_FILE: join(dir, 'key_sealing_key') }, async (child) => {
      assert.equal(child.stderr(), '')
    })
    // A file that cannot be read is a configuration error naming it.
    const child = spawnService({ NODE_ENV: 'production', PORT: String(await freePort()), OFFER_KEYS_FILE: join(dir, 'nope'), KEY_SEALING_KEY_FILE: join(dir, 'key_sealing_key') })
    assert.equal(await exitWithin(child, 30_000), 78)
    assert.equal(child.stderr(), `configuration error: OFFER_KEYS_FILE: cannot read ${join(dir, 'nope')} (ENOENT)\n`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('development without the keys starts, and says so once, in one plain line on stderr after the service is up', { timeout: 180_000 }, async () => {
  await started({}, async (child) => {
    assert.equal(
      child.stderr(),
      'Note: OFFER_KEYS and KEY_SEALING_KEY are unset, so their keys are kept in the database. That is fine for development; production (NODE_ENV=production) needs them set (docs/sealing-keys.md).\n',
    )
    assert.match(child.stderr(), KEYS_IN_STORE_NOTE)
    assert.equal(unexpectedStderr(child), '')
    assert.doesNotMatch(child.stdout(), /OFFER_KEYS|KEY_SEALING_KEY|keys_in_store/, 'and not again in the log')
  })
})
