import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { keysKeptInStore, loadSettings, SettingsError } from '../../src/platform/env.ts'
import { keysInStoreNote } from '../../src/start/startup.ts'
import { SecretSealer } from '../../src/platform/secret-sealing.ts'
import { openApiKey, openWebhookSecret } from '../../src/services/key-sealing.ts'
import { readStoredSecret } from '../../src/store/settings.ts'
import { replaceSealed } from '../../src/store/sealed-secrets.ts'
import { ADMIN_TOKEN, callService, createDatabase, startService, STORE, type TestService } from '../helpers/service.ts'

/**
 * The sealing keys kept in the store (docs/sealing-keys.md, "What is sealed,
 * and what production refuses"): with OFFER_KEYS and KEY_SEALING_KEY unset, a copy of the
 * database opens and forges what they seal, so NODE_ENV=production refuses to
 * start that way and development says so once.
 */
const ring = () => `1:${randomBytes(32).toString('hex')}`

interface LogLine {
  level: number
  msg: string
  key_id?: number
  api_keys?: number
  webhook_secrets?: number
  emails?: number
  email_links?: number
}

/** A log sink and the JSON lines written to it so far. */
function logSink() {
  let logs = ''
  const stream = new Writable({
    write(chunk, _enc, done) {
      logs += chunk.toString()
      done()
    },
  })
  const lines = () =>
    logs
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as LogLine)
  return { stream, lines }
}

/** The log lines a service writes from start to stop at `warn` and above. */
async function startUpLines(env: Record<string, string>): Promise<LogLine[]> {
  const sink = logSink()
  const svc = await startService({ LOG_LEVEL: 'warn', ...env }, { logStream: sink.stream })
  await svc.close()
  return sink.lines()
}

const aboutKeys = (lines: LogLine[]) => lines.filter((l) => /OFFER_KEYS|KEY_SEALING_KEY|offer_key|key_sealing_key/.test(l.msg))

test('keys kept in the store: no log record about them (the development note is one plain line from `npm start`, test/faults/startup-keys.test.ts)', async () => {
  assert.deepEqual(aboutKeys(await startUpLines({})), [])
  assert.deepEqual(aboutKeys(await startUpLines({ OFFER_KEYS: ring() })), [])
})

test('the development note names the settings left unset, calmly, in one line; none once both are set', () => {
  const both = keysInStoreNote(loadSettings({}))!
  assert.equal(
    both,
    'Note: OFFER_KEYS and KEY_SEALING_KEY are unset, so their keys are kept in the database. That is fine for development; production (NODE_ENV=production) needs them set (docs/sealing-keys.md).',
  )
  assert.match(keysInStoreNote(loadSettings({ OFFER_KEYS: ring() }))!, /^Note: KEY_SEALING_KEY is unset, so its key is kept in the database\. .* needs it set/)
  assert.equal(keysInStoreNote(loadSettings({ OFFER_KEYS: ring(), KEY_SEALING_KEY: ring() })), null)
})

test('NODE_ENV=production refuses sealing keys kept in the store, naming the settings to set', () => {
  const refusal = (env: Record<string, string>) => {
    try {
      loadSettings({ NODE_ENV: 'production', ...env })
    } catch (err) {
      assert.ok(err instanceof SettingsError)
      return err.message
    }
    return null
  }
  assert.match(refusal({})!, /^OFFER_KEYS and KEY_SEALING_KEY: unset, and NODE_ENV=production refuses sealing keys kept in the database .* set OFFER_KEYS and KEY_SEALING_KEY, or OFFER_KEYS_FILE and KEY_SEALING_KEY_FILE/)
  assert.match(refusal({ OFFER_KEYS: ring() })!, /^KEY_SEALING_KEY: unset, .* set KEY_SEALING_KEY, or KEY_SEALING_KEY_FILE naming a file/)
  assert.match(refusal({ KEY_SEALING_KEY: ring() })!, /^OFFER_KEYS: unset/)
  assert.equal(refusal({ OFFER_KEYS: ring(), KEY_SEALING_KEY: ring() }), null)
  assert.equal(loadSettings({ NODE_ENV: 'production', OFFER_KEYS: ring(), KEY_SEALING_KEY: ring() }).production, true)
  // A worker seals and opens no impression id: it needs only KEY_SEALING_KEY.
  assert.equal(refusal({ ROLE: 'worker', DATABASE_URL: 'postgres://localhost/x', KEY_SEALING_KEY: ring() }), null)
  assert.match(refusal({ ROLE: 'worker', DATABASE_URL: 'postgres://localhost/x' })!, /^KEY_SEALING_KEY: unset/)
  // Anything else is development: it starts (with the note).
  for (const env of ['development', 'test', '']) assert.equal(loadSettings({ NODE_ENV: env }).production, false)
})

test('OFFER_KEYS_FILE and KEY_SEALING_KEY_FILE: the ring read from a file (a mounted secret); unreadable, empty, malformed or doubled is refused without echoing it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'adapi-keys-'))
  try {
    const [offer, sealing] = [ring(), `2:${randomBytes(32).toString('hex')}, 3:${randomBytes(32).toString('hex')}`]
    writeFileSync(join(dir, 'offer'), `${offer}\n`)
    writeFileSync(join(dir, 'sealing'), sealing)
    const settings = loadSettings({ NODE_ENV: 'production', OFFER_KEYS_FILE: join(dir, 'offer'), KEY_SEALING_KEY_FILE: join(dir, 'sealing') })
    assert.deepEqual(settings.offerKeys, [{ id: 1, key: Buffer.from(offer.slice(2), 'hex') }])
    assert.deepEqual(settings.keySealingKeys?.map((k) => k.id), [2, 3])

    const refused = (env: Record<string, string>, message: RegExp) =>
      assert.throws(() => loadSettings(env), (err) => err instanceof SettingsError && message.test(err.message) && !err.message.includes(offer.slice(2)), JSON.stringify(env))
    refused({ OFFER_KEYS_FILE: join(dir, 'missing') }, new RegExp(`^OFFER_KEYS_FILE: cannot read ${join(dir, 'missing')} \\(ENOENT\\)$`))
    refused({ OFFER_KEYS_FILE: dir }, /^OFFER_KEYS_FILE: cannot read .* \(EISDIR\)$/)
    writeFileSync(join(dir, 'empty'), ' \n')
    refused({ KEY_SEALING_KEY_FILE: join(dir, 'empty') }, /^KEY_SEALING_KEY_FILE: .*empty is empty$/)
    writeFileSync(join(dir, 'short'), `${offer.slice(0, 40)}`)
    refused({ KEY_SEALING_KEY_FILE: join(dir, 'short') }, /^KEY_SEALING_KEY_FILE: each entry must be <id 0-255>:<64 hex digits>$/)
    refused({ OFFER_KEYS: offer, OFFER_KEYS_FILE: join(dir, 'offer') }, /^OFFER_KEYS: set OFFER_KEYS or OFFER_KEYS_FILE, not both$/)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('a worker keeps no offer key: it seals and opens no impression id', () => {
  const env = { ROLE: 'worker', DATABASE_URL: 'postgres://localhost/x' }
  assert.deepEqual(keysKeptInStore(loadSettings(env)).map((k) => k.row), ['key_sealing_key'])
  assert.deepEqual(keysKeptInStore(loadSettings({ ...env, KEY_SEALING_KEY: ring() })), [])
  assert.deepEqual(keysKeptInStore(loadSettings({ ROLE: 'web', DATABASE_URL: 'postgres://localhost/x', KEY_SEALING_KEY: ring() })).map((k) => k.row), ['offer_key'])
})

test('moving to KEY_SEALING_KEY and rotating it: each start re-seals every API key copy and webhook secret under the current key', { timeout: 120_000 }, async () => {
  // One store through four starts: PostgreSQL through a database each instance opens, the embedded store through its dump.
  const database = STORE === 'postgres' ? await createDatabase(process.env.TEST_DATABASE_URL!) : null
  const env: Record<string, string> = { WEBHOOKS_ALLOW_LOOPBACK: 'true', LOG_LEVEL: 'info', ...(database ? { DATABASE_URL: database.url } : {}) }
  let dump: Blob | undefined
  /** Starts an instance on the store with `keys` as KEY_SEALING_KEY (none: unset), runs `use`, stops it, keeps its store. */
  async function start<T>(keys: string | null, use: (svc: TestService, lines: () => LogLine[]) => Promise<T>): Promise<T> {
    const sink = logSink()
    const svc = await startService({ ...env, ...(keys ? { KEY_SEALING_KEY: keys } : {}) }, { logStream: sink.stream, ...(dump ? { loadDataDir: dump } : {}) })
    try {
      return await use(svc, sink.lines)
    } finally {
      if (!database) dump = await svc.service.store.dump!()
      await svc.close()
    }
  }
  const sealedOf = async (svc: TestService, userId: string, endpointId: string) => {
    const db = svc.service.store.db
    const account = await db.selectFrom('accounts').select('api_key_sealed').where('user_id', '=', userId).executeTakeFirstOrThrow()
    const endpoint = await db.selectFrom('webhook_endpoints').select('secret_sealed').where('endpoint_id', '=', endpointId).executeTakeFirstOrThrow()
    return { apiKey: account.api_key_sealed!, webhookSecret: endpoint.secret_sealed }
  }
  const resealedLine = (lines: LogLine[]) => lines.find((l) => l.msg === 'sealed secrets re-sealed under the current sealing key')
  const [a, b] = [ring(), `2:${randomBytes(32).toString('hex')}`]
  try {
    // First start, keys unset: an account's key and an endpoint's secret are sealed under the key kept in the store (id 0).
    const email = `reseal-${process.pid}@example.dev`
    const made = await start(null, async (svc) => {
      const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
      const account = await callService(svc, 'POST', '/admin/v1/accounts', { email }, admin)
      assert.equal(account.status, 201, account.text)
      const { user_id: userId, api_key: apiKey } = account.body as { user_id: string; api_key: string }
      const auth = { 'x-service-user-id': userId, 'x-service-api-key': apiKey }
      const endpoint = await callService(svc, 'POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', events: ['invoice.finalized'] }, auth)
      assert.equal(endpoint.status, 201, endpoint.text)
      const sealed = await sealedOf(svc, userId, endpoint.body.id)
      assert.deepEqual([sealed.apiKey[1], sealed.webhookSecret[1]], [0, 0], 'under the stored key')
      const stored = (await readStoredSecret(svc.service.store.db, 'key_sealing_key'))!
      return { userId, apiKey, endpointId: endpoint.body.id as string, secret: endpoint.body.secret as string, stored }
    })
    const { userId, apiKey, endpointId, secret } = made
    const inDatabase = new SecretSealer([{ id: 0, key: made.stored }])
    /** What the ring `keys` opens of the two sealed values, through the use cases Reveal and the webhook sender call. */
    const opened = async (svc: TestService, keys: string) => {
      const ctx = { db: svc.service.store.db, settings: loadSettings({ KEY_SEALING_KEY: keys }) }
      const sealed = await sealedOf(svc, userId, endpointId)
      return [await openApiKey(ctx, { user_id: userId, api_key_sealed: sealed.apiKey }), await openWebhookSecret(ctx, endpointId, sealed.webhookSecret)]
    }

    // KEY_SEALING_KEY set to a new key alone: the start re-seals both under it (opened with the stored key), so the database alone opens neither.
    await start(a, async (svc, lines) => {
      const line = resealedLine(lines())
      assert.deepEqual([line?.key_id, line?.api_keys, line?.webhook_secrets, line?.emails, line?.email_links], [1, 1, 1, 1, 1], JSON.stringify(lines()))
      const sealed = await sealedOf(svc, userId, endpointId)
      assert.deepEqual([sealed.apiKey[1], sealed.webhookSecret[1]], [1, 1])
      assert.equal(inDatabase.open(sealed.apiKey, `api_key:${userId}`), null, 'the key kept in the store no longer opens the API key')
      assert.equal(inDatabase.open(sealed.webhookSecret, `webhook_secret:${endpointId}`), null, 'nor the webhook secret')
      assert.deepEqual(await opened(svc, a), [apiKey, secret])
      // The set-password email moved with them: the operator still reads it whole, its link included.
      const outbox = await callService(svc, 'GET', `/admin/v1/outbox?to=${encodeURIComponent(email)}`, undefined, { authorization: `Bearer ${ADMIN_TOKEN}` })
      assert.equal(outbox.status, 200, outbox.text)
      const [message] = (outbox.body as { messages: { text: string }[] }).messages
      assert.match(message?.text ?? '', /\/portal\/reset-password\?token=/, 'the set-password link opens under the new key')
      // A re-seal writes only over the value it read: a copy replaced meanwhile (a rotated key) stays.
      assert.equal(await replaceSealed(svc.service.store.db, 'api_key', userId, Buffer.from('a value read earlier'), Buffer.from('stale')), false)
      assert.deepEqual((await sealedOf(svc, userId, endpointId)).apiKey, sealed.apiKey)
    })

    // A ring without the key that sealed them: nothing is lost, nothing changes, and start-up says what does not open.
    await start(b, async (svc, lines) => {
      assert.equal(resealedLine(lines()), undefined)
      const warning = lines().find((l) => l.level === 40 && /no sealing key of this instance opens/.test(l.msg))
      assert.deepEqual([warning?.key_id, warning?.api_keys, warning?.webhook_secrets, warning?.emails, warning?.email_links], [2, 1, 1, 1, 1])
      assert.deepEqual(await opened(svc, a), [apiKey, secret], 'still sealed under key 1')
    })

    // Rotation: the new key first, the old one after it; the start re-seals under the new one, and the old one can go.
    await start(`${b},${a}`, async (svc, lines) => {
      const line = resealedLine(lines())
      assert.deepEqual([line?.key_id, line?.api_keys, line?.webhook_secrets, line?.emails, line?.email_links], [2, 1, 1, 1, 1])
      assert.deepEqual(await opened(svc, b), [apiKey, secret])
    })

    // Nothing left to do: no line.
    await start(b, async (_svc, lines) => {
      assert.equal(resealedLine(lines()), undefined)
      assert.ok(!lines().some((l) => l.level >= 40 && /sealed secrets/.test(l.msg)))
    })
  } finally {
    await database?.drop()
  }
})
