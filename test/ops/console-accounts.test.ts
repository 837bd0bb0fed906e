import assert from 'node:assert/strict'
import { test } from 'node:test'
import { useService } from '../helpers/api.ts'
import { auditEntries, OPERATOR, signedInOperator, type OpsClient } from '../helpers/ops.ts'

/**
 * The console's accounts pages over real HTTP: search, and every account
 * action an operator has. Each action's effect is checked through the
 * token API, and each writes an audit entry naming the operator, with the
 * account before and after and no secret in it.
 */
const h = useService()
let n = 0
const email = (tag = 'acct') => `${tag}-${process.pid}-${n++}@Example.dev`

/** Submits a form of the account page and expects the redirect back to it with `notice`. */
async function act(ops: OpsClient, userId: string, action: string, fields: Record<string, string>, notice: string): Promise<void> {
  const res = await ops.act(`/ops/accounts/${userId}`, `/ops/accounts/${userId}/${action}`, fields)
  assert.equal(res.status, 303, `${action}: ${res.status} ${res.words.slice(0, 400)}`)
  assert.equal(res.location, `/ops/accounts/${userId}?notice=${notice}`)
}

const view = async (userId: string) => {
  const res = await h.admin.get(`/admin/v1/accounts/${userId}`)
  assert.equal(res.status, 200, res.text)
  return res.body
}

/** The newest entry about `userId`: one per action, by the signed-in operator, from its address. */
async function lastEntry(userId: string, action: string, ops: OpsClient) {
  const [entry] = await auditEntries(h, { target_id: userId })
  assert.equal(entry.action, action)
  assert.deepEqual(entry.actor.kind, 'operator')
  assert.equal(entry.actor.email, OPERATOR.email)
  assert.equal(entry.target.kind, 'account')
  assert.equal(entry.source_address, ops.ip)
  return entry
}

test('"Pending approval only" lists the accounts still waiting for write approval, alone or with a search', async () => {
  const ops = await signedInOperator(h)
  const waiting = (await h.admin.post('/admin/v1/accounts', { email: email('waiting') })).body.user_id
  const approved = await h.advertiser()
  const all = await ops.get('/ops/accounts')
  assert.match(all.words, /Show the accounts pending approval/)
  const pending = await ops.get('/ops/accounts?pending=on')
  assert.equal(pending.status, 200)
  assert.match(pending.words, /Accounts pending approval, newest first/)
  assert.ok(pending.text.includes(`/ops/accounts/${waiting}`), 'the waiting account is listed')
  assert.ok(!pending.text.includes(approved.userId), 'an approved account is not')
  assert.match(pending.text, /name="pending" value="on" checked/, 'the box stays ticked')
  const searched = await ops.get(`/ops/accounts?pending=on&query=${waiting}`)
  assert.ok(searched.text.includes(`/ops/accounts/${waiting}`))
  assert.match((await ops.get(`/ops/accounts?pending=on&query=${approved.userId}`)).words, /No account is waiting for approval/)
  await h.admin.post(`/admin/v1/accounts/${waiting}/write-approval`, { approved: true })
  assert.ok(!(await ops.get('/ops/accounts?pending=on')).text.includes(`/ops/accounts/${waiting}`), 'approved: off the list')
})

test('search finds accounts by part of the email (any case) and by exact user id, in the console and the API', async () => {
  const ops = await signedInOperator(h)
  const address = email('findme')
  const created = await h.admin.post('/admin/v1/accounts', { email: address })
  const userId = created.body.user_id
  const other = await h.advertiser()

  const byEmail = await ops.get(`/ops/accounts?query=${encodeURIComponent(address.slice(0, 12).toUpperCase())}`)
  assert.equal(byEmail.status, 200)
  assert.ok(byEmail.text.includes(`/ops/accounts/${userId}`))
  assert.ok(!byEmail.text.includes(other.userId))
  const byId = await ops.get(`/ops/accounts?query=${userId}`)
  assert.ok(byId.text.includes(address))
  assert.ok(!byId.text.includes(other.userId))
  assert.match((await ops.get('/ops/accounts?query=nobody-has-this')).words, /No account matches/)
  // `%` and `_` are literal characters, not wildcards.
  assert.match((await ops.get('/ops/accounts?query=%25')).words, /No account matches/)

  const api = await h.admin.get(`/admin/v1/accounts?query=${encodeURIComponent(address.toLowerCase())}`)
  assert.deepEqual(api.body.accounts.map((a: any) => a.user_id), [userId])
  assert.deepEqual((await h.admin.get(`/admin/v1/accounts?query=${userId}`)).body.accounts.map((a: any) => a.email), [address])
  // Paging: newest first, one account per page, the cursor leads on.
  const first = await h.admin.get('/admin/v1/accounts?limit=1')
  assert.equal(first.body.accounts.length, 1)
  const second = await h.admin.get(`/admin/v1/accounts?limit=1&cursor=${first.body.next_cursor}`)
  assert.notEqual(second.body.accounts[0].user_id, first.body.accounts[0].user_id)
  assert.equal((await h.admin.get('/admin/v1/accounts?cursor=bogus')).status, 400)
})

test('access switches: approve writes, terms, writes off and on, each audited with before and after', async () => {
  const ops = await signedInOperator(h)
  const adv = await h.advertiser({ approved: false, terms: false })
  const page = await ops.get(`/ops/accounts/${adv.userId}`)
  assert.equal(page.status, 200)
  assert.match(page.words, /Campaign writes pending approval/)

  await act(ops, adv.userId, 'write-approval', { value: 'true' }, 'write_approval')
  assert.equal((await view(adv.userId)).access.write_approved, true)
  let entry = await lastEntry(adv.userId, 'account.write_approval', ops)
  assert.equal(entry.before.write_approved, false)
  assert.equal(entry.after.write_approved, true)
  assert.match((await ops.get(`/ops/accounts/${adv.userId}?notice=write_approval`)).words, /Write approval is updated/)

  await act(ops, adv.userId, 'terms', { value: 'true' }, 'terms')
  assert.equal((await view(adv.userId)).access.campaign_writes, 'operational')
  entry = await lastEntry(adv.userId, 'account.terms', ops)
  assert.deepEqual([entry.before.terms_accepted, entry.after.terms_accepted], [false, true])

  await act(ops, adv.userId, 'writes', { value: 'false' }, 'writes')
  assert.equal((await view(adv.userId)).access.campaign_writes, 'disabled')
  assert.equal((await adv.get('/v1/account')).body.access.campaign_writes, 'disabled')
  await act(ops, adv.userId, 'writes', { value: 'true' }, 'writes')
  entry = await lastEntry(adv.userId, 'account.writes', ops)
  assert.deepEqual([entry.before.writes_enabled, entry.after.writes_enabled], [false, true])

  const bad = await ops.act(`/ops/accounts/${adv.userId}`, `/ops/accounts/${adv.userId}/writes`, { value: 'maybe' })
  assert.equal(bad.status, 400)
  assert.match(bad.words, /enabled: Enter a boolean/)
})

test('billing: enroll a card (only its last four digits reach the log), a refused card at its field, Net 30, holds', async () => {
  const ops = await signedInOperator(h)
  const adv = await h.advertiser({ billing: 'none' })
  const card = '4242424242424242'
  await act(ops, adv.userId, 'billing/card', { card_number: card }, 'billing')
  assert.equal((await view(adv.userId)).billing_profile.payment_method.last4, '4242')
  const entry = await lastEntry(adv.userId, 'account.billing_enroll', ops)
  assert.equal(entry.before.card, null)
  assert.deepEqual(entry.after.card, { brand: 'visa', last4: '4242' })
  assert.ok(!JSON.stringify(entry).includes(card), 'never the card number')

  const refused = await ops.act(`/ops/accounts/${adv.userId}`, `/ops/accounts/${adv.userId}/billing/card`, { card_number: '4000000000000002' })
  assert.equal(refused.status, 400)
  assert.equal(refused.fieldError('card_number'), 'The payment processor refused this card.')
  assert.ok(!refused.text.includes('4000000000000002'), 'a refused card number is not shown again')
  const malformed = await ops.act(`/ops/accounts/${adv.userId}`, `/ops/accounts/${adv.userId}/billing/card`, { card_number: 'abc' })
  assert.equal(malformed.fieldError('card_number'), 'This is not in the expected format.')

  const limit = await ops.act(`/ops/accounts/${adv.userId}`, `/ops/accounts/${adv.userId}/billing/net30`, { credit_limit_cents: '-5' })
  assert.equal(limit.status, 400)
  assert.equal(limit.fieldError('credit_limit_cents'), 'Enter 0 or more.')
  assert.match(limit.text, /value="-5"/, 'the typed value is kept')
  await act(ops, adv.userId, 'billing/net30', { credit_limit_cents: '250000' }, 'billing')
  const net30 = await view(adv.userId)
  assert.equal(net30.billing_profile.effective_billing_mode, 'net30_invoice')
  assert.equal(net30.billing_profile.credit_limit_cents, 250_000)

  await act(ops, adv.userId, 'hold', { hold: 'paused' }, 'hold')
  assert.deepEqual((await view(adv.userId)).collection, { status: 'paused', hold: 'paused' })
  await act(ops, adv.userId, 'hold', { hold: 'disabled' }, 'hold')
  assert.equal((await adv.get('/v1/account')).body.access.billing_reason, 'billing_disabled')
  await act(ops, adv.userId, 'hold', { hold: 'none' }, 'hold')
  assert.deepEqual((await view(adv.userId)).collection, { status: 'ready', hold: null })
  const hold = await lastEntry(adv.userId, 'account.collection_hold', ops)
  assert.deepEqual([hold.before.collection_hold, hold.after.collection_hold], ['disabled', null])
})

test('credits: errors at the field, then a posted credit shows in the balance and the log', async () => {
  const ops = await signedInOperator(h)
  const adv = await h.advertiser()
  const page = `/ops/accounts/${adv.userId}`
  const words = await ops.act(page, `${page}/credits`, { amount_cents: 'five', memo: 'goodwill' })
  assert.equal(words.status, 400)
  assert.equal(words.fieldError('amount_cents'), 'Enter a whole number.')
  assert.match(words.text, /value="goodwill"/)
  assert.equal((await ops.act(page, `${page}/credits`, { amount_cents: '0', memo: 'goodwill' })).fieldError('amount_cents'), 'Enter 1 or more.')
  assert.equal((await ops.act(page, `${page}/credits`, { amount_cents: '500', memo: '' })).fieldError('memo'), 'Enter a value.')
  assert.equal((await h.admin.get(`/admin/v1/audit?target_id=${adv.userId}&action=account.credit`)).body.entries.length, 0, 'refusals change nothing and record nothing')

  await act(ops, adv.userId, 'credits', { amount_cents: '500', memo: 'goodwill' }, 'credit')
  assert.equal((await view(adv.userId)).balance.credits_cents, 500)
  const entry = await lastEntry(adv.userId, 'account.credit', ops)
  assert.deepEqual([entry.before.credits_available_cents, entry.after.credits_available_cents], [0, 500])
  assert.equal(entry.after.credit.memo, 'goodwill')
  assert.equal(entry.after.credit.amount_cents, 500)
})

test('rotate key: the new key is shown once, the old one stops working, and neither reaches the log', async () => {
  const ops = await signedInOperator(h)
  const adv = await h.advertiser()
  const rotated = await ops.act(`/ops/accounts/${adv.userId}`, `/ops/accounts/${adv.userId}/rotate-key`)
  assert.equal(rotated.status, 200)
  assert.equal(rotated.headers.get('cache-control'), 'no-store')
  const key = /<code id="api-key"[^>]*>([^<]+)<\/code>/.exec(rotated.text)?.[1]
  assert.match(key ?? '', /^sk_live_[0-9A-Za-z]{43}$/)
  assert.equal((await adv.get('/v1/account')).status, 401, 'the old key stopped working')
  const fresh = await h.anonymous.get('/v1/account', { headers: { 'x-service-user-id': adv.userId, 'x-service-api-key': key! } })
  assert.equal(fresh.status, 200)
  assert.ok(!(await ops.get(`/ops/accounts/${adv.userId}`)).text.includes(key!), 'the account page shows only the prefix')

  const entry = await lastEntry(adv.userId, 'account.rotate_key', ops)
  assert.notEqual(entry.before.key_prefix, entry.after.key_prefix, 'the log shows that the key changed')
  assert.ok(key!.startsWith(entry.after.key_prefix))
  const everything = JSON.stringify(await auditEntries(h, { limit: '200' }))
  for (const secret of [key!, adv.apiKey, OPERATOR.password]) assert.ok(!everything.includes(secret), 'no secret in the audit log')
})

test('an unknown account is a 404 page; the API says the same', async () => {
  const ops = await signedInOperator(h)
  const res = await ops.get('/ops/accounts/usr_unknown')
  assert.equal(res.status, 404)
  assert.match(res.words, /account not found/)
  assert.match(res.words, /Go to the operator console/)
  assert.equal((await h.admin.get('/admin/v1/accounts/usr_unknown')).status, 404)
})
