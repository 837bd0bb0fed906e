import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:net'
import { test } from 'node:test'
import { loadSettings, SettingsError } from '../../src/platform/env.ts'
import { Client, campaignBody, useService, type Advertiser, type TestHarness } from '../helpers/api.ts'
import { deliver, privateCountry } from '../helpers/serving.ts'
import { startSmtpServer } from '../helpers/smtp.ts'

// Invoice email through the outbox (docs/decisions/0170-outbox-first-email.md, docs/billing.md (decision 0173)): with SMTP, without, and with a dead SMTP server.

const { port: smtpPort, received } = await startSmtpServer()

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

const withSmtp = useService({ SMTP_URL: `smtp://127.0.0.1:${smtpPort}` }, { create_rate_limit_per_min: 1000 })
const withoutSmtp = useService({}, { create_rate_limit_per_min: 1000 })
const deadSmtp = useService({ SMTP_URL: `smtp://127.0.0.1:${await closedPort()}` }, { create_rate_limit_per_min: 1000 })

const address = () => `billing-${randomBytes(4).toString('hex')}@example.dev`

/** A writing advertiser on weekly auto-pay; `billing_email` when given. */
async function advertiser(h: TestHarness, email: string, billingEmail?: string): Promise<Advertiser> {
  const created = await h.admin.post('/admin/v1/accounts', { email, ...(billingEmail ? { billing_email: billingEmail } : {}) })
  assert.equal(created.status, 201, created.text)
  const { user_id, api_key } = created.body
  assert.equal((await h.admin.post(`/admin/v1/accounts/${user_id}/write-approval`, { approved: true })).status, 200)
  assert.equal((await h.admin.post(`/admin/v1/accounts/${user_id}/terms`, { accepted: true })).status, 200)
  const billing = await h.admin.post(`/admin/v1/accounts/${user_id}/billing`, { mode: 'weekly_autopay', card_number: '4242424242424242' })
  assert.equal(billing.status, 200, billing.text)
  const client = new Client(h, { 'x-service-user-id': user_id, 'x-service-api-key': api_key }) as Advertiser
  client.userId = user_id
  client.apiKey = api_key
  return client
}

/** Delivers three impressions at $4 CPM (1.2 cents) and moves past Monday 06:00: the invoice is finalized. */
async function finalizeAnInvoice(h: TestHarness, adv: Advertiser): Promise<any> {
  const country = privateCountry()
  const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 10_000, cpm_usd: 4 }))
  assert.equal(res.status, 201, res.text)
  assert.equal(await deliver(h, country, 3), 3)
  const moved = await h.admin.post('/admin/v1/clock', { now: '2026-11-09T06:00:00Z' })
  assert.equal(moved.status, 200, moved.text)
  const invoices = await h.admin.get(`/admin/v1/accounts/${adv.userId}/invoices`)
  assert.equal(invoices.status, 200, invoices.text)
  assert.equal(invoices.body.invoices.length, 1)
  return invoices.body.invoices[0]
}

async function outbox(h: TestHarness, to: string): Promise<any[]> {
  const res = await h.admin.get(`/admin/v1/outbox?to=${encodeURIComponent(to)}`)
  assert.equal(res.status, 200, res.text)
  return res.body.messages
}

test('with SMTP_URL the invoice email reaches the SMTP server and the billing contact, and the outbox lists it as sent', async () => {
  const h = withSmtp
  const billingEmail = address()
  const accountEmail = address()
  const adv = await advertiser(h, accountEmail, billingEmail)
  const invoice = await finalizeAnInvoice(h, adv)
  assert.equal(invoice.amount_cents, 1)
  // The set-password link of an operator-made account goes to the account's email, through SMTP too, then the approval's.
  const welcome = received.filter((m) => m.to.includes(accountEmail))
  assert.equal(welcome.length, 2)
  assert.match(welcome[0]!.raw, /Subject: Your advertiser account is ready: set your password/)
  assert.match(welcome[0]!.raw, /\/portal\/reset-password\?token=/)
  assert.match(welcome[1]!.raw, /Subject: Your advertiser account is approved/)

  const mail = received.filter((m) => m.to.includes(billingEmail))
  assert.equal(mail.length, 1)
  assert.match(mail[0]!.raw, /Total: +\$0\.01/)
  assert.match(mail[0]!.raw, /Delivered value: +\$0\.012/)
  assert.match(mail[0]!.raw, new RegExp(invoice.invoice_id))

  const [message, ...rest] = await outbox(h, billingEmail)
  assert.equal(rest.length, 0)
  assert.equal(message.to, billingEmail)
  assert.equal(message.delivery, 'sent')
  assert.match(message.subject, new RegExp(`^Invoice ${invoice.invoice_id}: \\$0\\.01 for 2026-11-02 to 2026-11-09$`))
  assert.match(message.text, /Period: +2026-11-02 09:00 UTC to 2026-11-09 06:00 UTC/)
  assert.match(message.text, /Credits applied: +\$0\.00/)
  // Written when the invoice is finalized, before the card is charged.
  assert.match(message.text, /Status: open\. \$0\.01 will be charged to the card on file\./)
  assert.equal(message.sent_at, '2026-11-09T06:00:00.000Z')
})

test('without SMTP_URL the invoice email is kept in the outbox, addressed to the account email', async () => {
  const h = withoutSmtp
  const email = address()
  const adv = await advertiser(h, email)
  const invoice = await finalizeAnInvoice(h, adv)
  // Newest first: the invoice, then the set-password link the account was sent when the operator made it.
  const messages = await outbox(h, email)
  assert.deepEqual(messages.map((m) => m.subject.split(':')[0]), [`Invoice ${invoice.invoice_id}`, 'Your advertiser account is approved', 'Your advertiser account is ready'])
  assert.equal(messages[0].delivery, 'stored')
  assert.match(messages[0].text, new RegExp(invoice.invoice_id))
  assert.deepEqual(await outbox(h, address()), [])
})

test('an SMTP server that refuses connections fails only the delivery: the invoice is finalized, the message kept as failed', async () => {
  const h = deadSmtp
  const email = address()
  const adv = await advertiser(h, email)
  const invoice = await finalizeAnInvoice(h, adv)
  assert.equal(invoice.status, 'paid')
  const messages = await outbox(h, email)
  assert.deepEqual(messages.map((m) => m.subject.split(':')[0]), [`Invoice ${invoice.invoice_id}`, 'Your advertiser account is approved', 'Your advertiser account is ready'])
  assert.ok(messages.every((m) => m.delivery === 'failed'))
  const rows = await h.svc.service.store.db.selectFrom('outbox').select('error').where('to_address', '=', email).execute()
  assert.ok(rows.every((row) => row.error && row.error.length > 0))
})

test('GET /admin/v1/outbox needs `to`', async () => {
  const h = withoutSmtp
  const missing = await h.admin.get('/admin/v1/outbox')
  assert.equal(missing.status, 400, missing.text)
  assert.deepEqual(missing.body.detail, { field: 'to', reason: 'required' })
  const empty = await h.admin.get('/admin/v1/outbox?to=')
  assert.equal(empty.status, 400, empty.text)
  assert.equal(empty.body.detail.field, 'to')
  assert.equal((await h.anonymous.get('/admin/v1/outbox?to=a%40example.dev')).status, 401)
})

test('SMTP_URL must be an smtp:// or smtps:// URL: a bad value stops start-up naming it', () => {
  assert.equal(loadSettings({ SMTP_URL: 'smtp://127.0.0.1:2525' }).smtpUrl, 'smtp://127.0.0.1:2525')
  assert.equal(loadSettings({ SMTP_URL: 'smtps://user:secret@mail.example.dev:465' }).smtpUrl, 'smtps://user:secret@mail.example.dev:465')
  assert.equal(loadSettings({}).smtpUrl, null)
  for (const bad of ['http://mail.example.dev', 'mail.example.dev:25', 'smtp://', 'smtps://user:hunter2@']) {
    assert.throws(
      () => loadSettings({ SMTP_URL: bad }),
      (err: unknown) => err instanceof SettingsError && err.message.startsWith('SMTP_URL:') && !err.message.includes('hunter2'),
      bad,
    )
  }
})
