import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { test } from 'node:test'
import { sql } from 'kysely'
import { useService } from '../helpers/api.ts'
import { signedInOperator } from '../helpers/ops.ts'
import { latestEmail, newEmail, PASSWORD, PortalClient, setPasswordPath } from '../helpers/portal.ts'

/**
 * One account per email, compared case-insensitively (issue 34, email
 * squatting), over real HTTP on both stores: self-sign-up cannot take the
 * address of an operator-made account whose owner has not set a password
 * yet; the operator API (409) and the console (the error at Email) refuse a
 * second account; sign-in and the reset lookup ignore the letter case; the
 * store's unique index (migration 0034) decides races, and the migration
 * marks older duplicates deterministically.
 */
const h = useService()
const db = () => h.svc.service.store.db

/** `someone@example.dev` → `SomeOne@EXAMPLE.dev`-like: the same address in other letters. */
const recased = (email: string) => email.replace(/^(.)(.*)@(.*)$/, (_m, a: string, b: string, c: string) => `${a.toUpperCase()}${b}@${c.toUpperCase()}`)

const accountsWith = async (email: string) =>
  (await sql<{ user_id: string }>`SELECT user_id FROM accounts WHERE lower(email) = lower(${email})`.execute(db())).rows.map((r) => r.user_id)

const outboxCount = async (to: string) => (await h.admin.get(`/admin/v1/outbox?to=${encodeURIComponent(to)}`)).body.messages.length as number

test('the squat: self-sign-up with the address of an operator-made account (no password yet), in any case, is refused like any taken address', async () => {
  const owner = newEmail('squat-owner')
  const created = await h.admin.post('/admin/v1/accounts', { email: owner })
  assert.equal(created.status, 201, created.text)

  const attacker = new PortalClient(h.baseUrl)
  for (const address of [owner, recased(owner), `  ${owner.toUpperCase()} `]) {
    const refused = await attacker.submit('/portal/signup', '/portal/signup', { email: address, password: 'the squatter password' })
    assert.equal(refused.status, 400, refused.words.slice(0, 300))
    assert.equal(refused.fieldError('email'), 'An account with this email already exists. Sign in, or reset its password.')
    assert.equal(attacker.cookies.get('portal_session'), undefined, 'no session')
  }
  assert.deepEqual(await accountsWith(owner), [created.body.user_id], 'no second account')

  // The answer is the one an address with a password gets: it tells no more than sign-up always told.
  const signedUp = newEmail('squat-known')
  await new PortalClient(h.baseUrl).signUp(signedUp)
  const known = await attacker.submit('/portal/signup', '/portal/signup', { email: recased(signedUp), password: 'the squatter password' })
  assert.equal(known.status, 400)
  assert.equal(known.fieldError('email'), 'An account with this email already exists. Sign in, or reset its password.')

  // The owner's set-password link still works and signs the owner in to the operator-made account.
  const browser = new PortalClient(h.baseUrl)
  const form = await browser.get(await setPasswordPath(h, owner))
  const set = await browser.post('/portal/reset-password', { token: /name="token" value="([^"]+)"/.exec(form.text)![1]!, password: PASSWORD }, form)
  assert.equal(set.status, 303, set.words.slice(0, 300))
  assert.ok((await browser.get('/portal')).text.includes(created.body.user_id))
})

test('the operator API refuses a second account for an address in any case: 409 naming the account, nothing created or emailed', async () => {
  const first = newEmail('operator-twice')
  const made = await h.admin.post('/admin/v1/accounts', { email: first })
  assert.equal(made.status, 201)
  const before = await outboxCount(recased(first))
  for (const email of [first, recased(first)]) {
    const again = await h.admin.post('/admin/v1/accounts', { email })
    assert.equal(again.status, 409, again.text)
    assert.deepEqual(again.body.detail, { field: 'email', reason: 'email_taken', user_id: made.body.user_id })
  }
  assert.equal(await outboxCount(recased(first)), before, 'no set-password link went out')
  assert.deepEqual(await accountsWith(first), [made.body.user_id])

  // A self-serve account's address is taken for the operator too.
  const selfServe = newEmail('self-then-operator')
  const userId = await new PortalClient(h.baseUrl).signUp(selfServe)
  const refused = await h.admin.post('/admin/v1/accounts', { email: selfServe.toUpperCase() })
  assert.equal(refused.status, 409)
  assert.deepEqual(refused.body.detail, { field: 'email', reason: 'email_taken', user_id: userId })
})

test('concurrent creations of one address in different cases: the store lets exactly one through', async () => {
  const email = newEmail('race')
  const variants = [email, email.toUpperCase(), recased(email), email, email.toUpperCase(), recased(email)]
  const answers = await Promise.all(variants.map((e) => h.admin.post('/admin/v1/accounts', { email: e })))
  assert.deepEqual(answers.map((a) => a.status).sort(), [201, 409, 409, 409, 409, 409], answers.map((a) => a.text).join('\n'))
  const winner = answers.find((a) => a.status === 201)!.body.user_id
  for (const a of answers.filter((r) => r.status === 409)) assert.equal(a.body.detail.reason, 'email_taken')
  assert.deepEqual(await accountsWith(email), [winner])

  // Sign-ups racing an operator creation: still one account.
  const raced = newEmail('race-signup')
  const browsers = [0, 1, 2].map(() => new PortalClient(h.baseUrl))
  const forms = await Promise.all(browsers.map((b) => b.get('/portal/signup')))
  const results = await Promise.all([
    ...browsers.map((b, i) => b.post('/portal/signup', { email: i === 0 ? raced : recased(raced), password: PASSWORD }, forms[i])),
    h.admin.post('/admin/v1/accounts', { email: raced.toUpperCase() }),
  ])
  assert.equal((await accountsWith(raced)).length, 1)
  assert.equal(results.filter((r) => r.status === 303 || r.status === 201).length, 1, results.map((r) => r.status).join(','))
})

test('the console creates an account, and refuses a second one for the address with the error next to Email', async () => {
  const ops = await signedInOperator(h)
  const email = newEmail('console-create')
  const page = await ops.get('/ops/accounts')
  assert.match(page.text, /<label for="f-email">Email<\/label>/)
  assert.ok(page.buttons.includes('Create account'))

  const created = await ops.post('/ops/accounts', { email, billing_email: '' }, page)
  assert.equal(created.status, 303, created.words.slice(0, 300))
  const userId = /^\/ops\/accounts\/(usr_[0-9A-Za-z]+)\?notice=account_created$/.exec(created.location ?? '')?.[1]
  assert.ok(userId, created.location ?? 'no location')
  assert.match((await ops.get(created.location!)).words, /The account is created/)
  assert.match((await latestEmail(h, email)).subject, /set your password/)

  const again = await ops.post('/ops/accounts', { email: recased(email), billing_email: '' }, await ops.get('/ops/accounts'))
  assert.equal(again.status, 409)
  assert.equal(again.fieldError('email'), `An account with this email already exists (${userId}). Emails are compared whatever their letter case.`)
  assert.match(again.text, /aria-invalid="true"/)
  assert.ok(again.text.includes(`value="${recased(email)}"`), 'the typed address is kept')
  assert.deepEqual(await accountsWith(email), [userId])

  const bad = await ops.post('/ops/accounts', { email: 'not an email', billing_email: '' }, await ops.get('/ops/accounts'))
  assert.equal(bad.status, 400)
  assert.equal(bad.fieldError('email'), 'Enter an email address like name@example.com.')
})

test('sign-in and the password-reset lookup ignore the letter case of the email', async () => {
  const email = newEmail('any-case')
  await new PortalClient(h.baseUrl).signUp(email)
  const browser = new PortalClient(h.baseUrl)
  const signedIn = await browser.submit('/portal/login', '/portal/login', { email: `  ${email.toUpperCase()} `, password: PASSWORD })
  assert.equal(signedIn.status, 303)

  const before = await outboxCount(email)
  const asked = await new PortalClient(h.baseUrl).submit('/portal/forgot-password', '/portal/forgot-password', { email: recased(email) })
  assert.equal(asked.status, 200)
  assert.equal(await outboxCount(email), before + 1)
  assert.equal((await latestEmail(h, email)).subject, 'Reset your password')
})

test('migration 0034: accounts that shared an address keep it; the oldest holds it, the later ones are marked; re-running changes nothing', async () => {
  const migration = await readFile(new URL('../../src/store/migrations/0034_account_email_unique.sql', import.meta.url), 'utf8')
  const address = newEmail('legacy')
  // The state before 0034: no index, no marks, and three accounts with one address in three cases.
  await sql`DROP INDEX accounts_email_lower`.execute(db())
  const rows = [
    { user_id: 'usr_legacy_b', email: recased(address), created_at: '2026-01-02T00:00:00Z' },
    { user_id: 'usr_legacy_a', email: address.toUpperCase(), created_at: '2026-01-02T00:00:00Z' },
    { user_id: 'usr_legacy_c', email: address, created_at: '2026-01-01T00:00:00Z' },
  ]
  for (const r of rows) {
    await sql`INSERT INTO accounts (user_id, email, created_at, api_key_hash, key_prefix, key_created_at)
      VALUES (${r.user_id}, ${r.email}, ${r.created_at}::timestamptz, ${Buffer.alloc(32)}, 'sk_live_legacy', ${r.created_at}::timestamptz)`.execute(db())
  }
  await sql.raw(migration).execute(db())
  const marks = async () =>
    (
      await sql<{ user_id: string; email_legacy_duplicate: boolean; email: string }>`SELECT user_id, email, email_legacy_duplicate FROM accounts
        WHERE user_id LIKE 'usr_legacy_%' ORDER BY user_id`.execute(db())
    ).rows
  // The oldest keeps the address; of the two made at one instant, the smaller user id comes first.
  const expected = [
    { user_id: 'usr_legacy_a', email: address.toUpperCase(), email_legacy_duplicate: true },
    { user_id: 'usr_legacy_b', email: recased(address), email_legacy_duplicate: true },
    { user_id: 'usr_legacy_c', email: address, email_legacy_duplicate: false },
  ]
  assert.deepEqual(await marks(), expected)
  const others = await sql<{ n: number }>`SELECT count(*)::int AS n FROM accounts WHERE email_legacy_duplicate`.execute(db())
  assert.equal(others.rows[0]!.n, 2, 'no account of the other tests is marked')

  await sql.raw(migration).execute(db())
  assert.deepEqual(await marks(), expected, 'idempotent')

  // The address is still taken, for the API and for sign-up.
  const refused = await h.admin.post('/admin/v1/accounts', { email: address })
  assert.equal(refused.status, 409)
  assert.equal(refused.body.detail.user_id, 'usr_legacy_c')
  const signup = await new PortalClient(h.baseUrl).submit('/portal/signup', '/portal/signup', { email: recased(address), password: PASSWORD })
  assert.equal(signup.status, 400)
  // And the index holds: a direct insert of the address is refused by the store.
  await assert.rejects(
    sql`INSERT INTO accounts (user_id, email, created_at, api_key_hash, key_prefix, key_created_at)
      VALUES ('usr_legacy_d', ${address.toUpperCase()}, now(), ${Buffer.alloc(32)}, 'sk_live_legacy', now())`.execute(db()),
    (err: { code?: string; constraint?: string }) => err.code === '23505' && err.constraint === 'accounts_email_lower',
  )
})
