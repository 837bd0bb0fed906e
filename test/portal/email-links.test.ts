import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { openStore, type Db } from '../../src/store/db.ts'
import { useService, type TestHarness } from '../helpers/api.ts'
import { newEmail, PortalClient } from '../helpers/portal.ts'
import { ADMIN_TOKEN, createDatabase, startService, STORE } from '../helpers/service.ts'

/**
 * Issue 34, point 1 (docs/security.md, "Email links at rest"): a copy of the store held every
 * email in clear, so it yielded working reset and set-password links. Now bodies are sealed, the
 * link apart, and a link's stored copy is removed once it is used or expires; operators still read
 * live messages through GET /admin/v1/outbox. Both stores.
 */
const h = useService()
const db = () => h.svc.service.store.db
const advance = (seconds: number) => h.admin.post('/admin/v1/clock', { advance_seconds: seconds })

/** Every row of every table, as text (bytea as hex): what a copy of the database holds. */
async function storeContents(store: Db): Promise<string> {
  const tables = await sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`.execute(store)
  const parts: string[] = []
  for (const { name } of tables.rows) {
    const rows = await sql<{ row: string }>`SELECT to_jsonb(t)::text AS row FROM ${sql.table(name)} t`.execute(store)
    for (const r of rows.rows) parts.push(r.row)
  }
  return parts.join('\n')
}

/** The ways a token could sit in the store: itself, or its bytes in hex (a bytea). */
function assertAbsent(contents: string, secret: string, what: string) {
  assert.ok(!contents.includes(secret), `${what} is in the store`)
  assert.ok(!contents.includes(Buffer.from(secret, 'utf8').toString('hex')), `${what} is in the store as hex`)
}

async function messages(harness: TestHarness, to: string): Promise<{ subject: string; text: string }[]> {
  const res = await harness.admin.get(`/admin/v1/outbox?to=${encodeURIComponent(to)}`)
  assert.equal(res.status, 200, res.text)
  return res.body.messages
}

const LINK = /https?:\/\/\S+\/portal\/reset-password\?token=([A-Za-z0-9_%-]+)/

/** An account with a portal login that asked for a reset: its email, the link's path and token, and the message's stored row. */
async function askedForReset(): Promise<{ email: string; path: string; token: string; messageId: string }> {
  const email = newEmail('links')
  await new PortalClient(h.baseUrl).signUp(email)
  const sent = await new PortalClient(h.baseUrl).submit('/portal/forgot-password', '/portal/forgot-password', { email })
  assert.equal(sent.status, 200)
  const [message] = await messages(h, email)
  assert.equal(message!.subject, 'Reset your password')
  const match = LINK.exec(message!.text)
  assert.ok(match, message!.text)
  const url = new URL(match[0])
  const row = await db().selectFrom('outbox').select('message_id').where('to_address', '=', email).where('subject', '=', 'Reset your password').executeTakeFirstOrThrow()
  return { email, path: url.pathname + url.search, token: url.searchParams.get('token')!, messageId: row.message_id }
}

const storedLink = (messageId: string) =>
  db().selectFrom('outbox').select(['body', 'body_sealed', 'link_at', 'link_sealed', 'link_ended']).where('message_id', '=', messageId).executeTakeFirstOrThrow()

test('a copy of the store holds no live link and no email body in clear; operators still read the link, and it works', async () => {
  const { email, path, token, messageId } = await askedForReset()
  const contents = await storeContents(db())
  assert.ok(contents.includes(email), 'the scan reads the rows (the login holds the address)')
  assertAbsent(contents, token, 'the reset token')
  assert.ok(!contents.includes('reset-password?token='), 'a reset link is in the store')
  // The welcome and reset texts are sealed as well, not only the link.
  assert.ok(!contents.includes('Someone asked to reset the password'), 'the reset email body is in the store')
  assert.ok(!contents.includes('Welcome! An advertiser account was opened'), 'the welcome email body is in the store')

  const row = await storedLink(messageId)
  assert.equal(row.body, null)
  assert.ok(row.body_sealed instanceof Buffer && row.link_sealed instanceof Buffer)
  assert.equal(row.link_ended, null)
  // Through the operator API the message reads whole, its link included, and the link works.
  const [message] = await messages(h, email)
  assert.match(message!.text, /^Someone asked to reset the password of your advertiser account\./)
  assert.ok(message!.text.includes(`/portal/reset-password?token=${token}`))
  assert.equal((await new PortalClient(h.baseUrl).get(path)).status, 200)
})

test('a used link is removed from the stored copy and from what operators read', async () => {
  const { email, path, token, messageId } = await askedForReset()
  const browser = new PortalClient(h.baseUrl)
  const form = await browser.get(path)
  assert.equal((await browser.post('/portal/reset-password', { token, password: 'a new long password' }, form)).status, 303)

  const row = await storedLink(messageId)
  assert.equal(row.link_sealed, null, 'the sealed link is gone from the row')
  assert.equal(row.link_ended, 'used')
  const [message] = await messages(h, email)
  assert.ok(!message!.text.includes(token))
  assert.match(message!.text, /Set a new password here \(the link works once, for one hour\): \[link removed: it was used\]\n/)
  assert.match(message!.text, /If it was not you, ignore this email/)
})

test('an expired link reads as expired at once; the expiry job then removes its stored copy', async () => {
  const { email, path, token, messageId } = await askedForReset()
  assert.equal((await advance(3600)).status, 200)
  assert.equal((await new PortalClient(h.baseUrl).get(path)).status, 410)
  const [message] = await messages(h, email)
  assert.ok(!message!.text.includes(token), 'an expired link is not shown, even before the job runs')
  assert.match(message!.text, /\[link removed: it expired\]/)
  assert.ok((await storedLink(messageId)).link_sealed instanceof Buffer, 'the job has not run yet (it runs daily at 00:30 UTC)')

  const run = await h.admin.post('/admin/v1/jobs/expiry/run')
  assert.equal(run.status, 200, run.text)
  assert.ok(run.body.result.emailed_links_removed >= 1)
  const row = await storedLink(messageId)
  assert.equal(row.link_sealed, null)
  assert.equal(row.link_ended, 'expired')
  assert.match((await messages(h, email))[0]!.text, /\[link removed: it expired\]/)
})

test('rows written before sealing: the migration removes their links, start-up seals their bodies', async () => {
  // A store as the previous version left it (migrations through 0031), holding clear messages.
  const before = '0031_ledger_partitions'
  let pg: { url: string; drop: () => Promise<void> } | null = null
  if (STORE === 'postgres') pg = await createDatabase(process.env.TEST_DATABASE_URL!)
  const old = await openStore({ databaseUrl: pg?.url ?? null, dataDir: '', inMemory: true, migrateThrough: before })
  const to = newEmail('legacy')
  const legacyToken = 'LegacyToken_0123456789abcdefghijklmnopqrstuv'
  const reset = `Set a new password here (the link works once, for one hour): http://ads.example/portal/reset-password?token=${legacyToken}\n\nIf it was not you, ignore this email.`
  await sql`INSERT INTO outbox (message_id, to_address, subject, body, sent_at, delivery, error) VALUES
    ('msg_legacy_invoice', ${to}, 'Invoice inv_1', 'Total: $0.01', '2026-11-01T06:00:00Z', 'stored', NULL),
    ('msg_legacy_reset', ${to}, 'Reset your password', ${reset}, '2026-11-01T07:00:00Z', 'stored', NULL)`.execute(old.db)
  const dump = old.dump ? await old.dump() : undefined
  await old.close()

  const upgraded = await startService(pg ? { DATABASE_URL: pg.url } : {}, dump ? { loadDataDir: dump } : {})
  try {
    const store = upgraded.service.store.db
    const rows = await store.selectFrom('outbox').select(['message_id', 'body', 'body_sealed']).where('to_address', '=', to).orderBy('message_id').execute()
    assert.deepEqual(rows.map((r) => [r.message_id, r.body, r.body_sealed instanceof Buffer]), [
      ['msg_legacy_invoice', null, true],
      ['msg_legacy_reset', null, true],
    ])
    const contents = await storeContents(store)
    assertAbsent(contents, legacyToken, 'the old token')
    assert.ok(!contents.includes('Total: $0.01'))
    const read = await fetch(`${upgraded.baseUrl}/admin/v1/outbox?to=${encodeURIComponent(to)}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    const body = (await read.json()) as { messages: { subject: string; text: string }[] }
    assert.deepEqual(
      body.messages.map((m) => [m.subject, m.text]),
      [
        ['Reset your password', 'Set a new password here (the link works once, for one hour): [link removed: emails are now sealed at rest]\n\nIf it was not you, ignore this email.'],
        ['Invoice inv_1', 'Total: $0.01'],
      ],
    )
  } finally {
    await upgraded.close()
    await pg?.drop()
  }
})
