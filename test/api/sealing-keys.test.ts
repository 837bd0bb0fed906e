import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import { keysKeptInStore, loadSettings } from '../../src/platform/env.ts'
import { startService } from '../helpers/service.ts'

/**
 * The sealing keys kept in the store (docs/operations.md, "Secrets kept in
 * the store"): with OFFER_KEYS and KEY_SEALING_KEY unset, a copy of the
 * database opens and forges what they seal, and start-up says so once.
 */
const ring = () => `1:${randomBytes(32).toString('hex')}`

interface LogLine {
  level: number
  msg: string
  keys_in_store?: string[]
}

/** The log lines a service writes from start to stop at `warn` and above. */
async function startUpLines(env: Record<string, string>): Promise<LogLine[]> {
  let logs = ''
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs += chunk.toString()
      done()
    },
  })
  const svc = await startService({ LOG_LEVEL: 'warn', ...env }, { logStream: sink })
  await svc.close()
  return logs
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as LogLine)
}

const aboutKeys = (lines: LogLine[]) => lines.filter((l) => l.keys_in_store !== undefined || /OFFER_KEYS|KEY_SEALING_KEY|offer_key|key_sealing_key/.test(l.msg))

test('started with OFFER_KEYS and KEY_SEALING_KEY unset: one warning naming each key kept in the store', async () => {
  const lines = aboutKeys(await startUpLines({}))
  assert.equal(lines.length, 1, JSON.stringify(lines))
  const [line] = lines
  assert.equal(line!.level, 40, 'warn')
  assert.deepEqual(line!.keys_in_store, ['offer_key', 'key_sealing_key'])
  for (const name of ['offer_key', 'OFFER_KEYS', 'impression ids', 'key_sealing_key', 'KEY_SEALING_KEY', 'API keys', 'webhook']) assert.ok(line!.msg.includes(name), `names ${name}: ${line!.msg}`)
  assert.match(line!.msg, /copy of the database/)
})

test('started with both keys set: no warning; with one set, the warning names only the other', async () => {
  assert.deepEqual(aboutKeys(await startUpLines({ OFFER_KEYS: ring(), KEY_SEALING_KEY: ring() })), [])
  const [line, ...rest] = aboutKeys(await startUpLines({ OFFER_KEYS: ring() }))
  assert.equal(rest.length, 0)
  assert.deepEqual(line!.keys_in_store, ['key_sealing_key'])
  assert.ok(!line!.msg.includes('OFFER_KEYS'))
})

test('a worker keeps no offer key: it seals and opens no impression id', () => {
  const env = { ROLE: 'worker', DATABASE_URL: 'postgres://localhost/x' }
  assert.deepEqual(keysKeptInStore(loadSettings(env)).map((k) => k.row), ['key_sealing_key'])
  assert.deepEqual(keysKeptInStore(loadSettings({ ...env, KEY_SEALING_KEY: ring() })), [])
  assert.deepEqual(keysKeptInStore(loadSettings({ ROLE: 'web', DATABASE_URL: 'postgres://localhost/x', KEY_SEALING_KEY: ring() })).map((k) => k.row), ['offer_key'])
})
