import assert from 'node:assert/strict'
import { test } from 'node:test'
import { useService } from '../helpers/api.ts'
import { signedInOperator } from '../helpers/ops.ts'
import { newEmail, outboxTo, PortalClient } from '../helpers/portal.ts'
import { startSmtpServer } from '../helpers/smtp.ts'

/**
 * The approval email (issue 51): "we review new accounts within one business
 * day" ends in an email, with the next step, through a real SMTP server in
 * this process. The next step follows what still blocks writes after the
 * approval; approving again sends nothing; the console's approval sends it too.
 */
const { port: smtpPort, received } = await startSmtpServer()

const h = useService({ SMTP_URL: `smtp://127.0.0.1:${smtpPort}` })

const approve = async (userId: string, approved = true) => {
  const res = await h.admin.post(`/admin/v1/accounts/${userId}/write-approval`, { approved })
  assert.equal(res.status, 200, res.text)
}
const approvalMails = (to: string) => received.filter((m) => m.to.includes(to) && /Subject: Your advertiser account is approved/.test(m.raw))
/** The text as SMTP carried it: quoted-printable soft breaks undone, `=XX` decoded. */
const plain = (raw: string) =>
  raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/\r\n/g, '\n')

test('a new account, approved: one email through SMTP with the next step (the terms) and its link; approving again sends none', async () => {
  const email = newEmail('approved')
  const userId = await new PortalClient(h.baseUrl).signUp(email)
  assert.equal(approvalMails(email).length, 0, 'nothing before the approval')

  await approve(userId)
  const mails = approvalMails(email)
  assert.equal(mails.length, 1)
  const text = plain(mails[0]!.raw)
  assert.match(text, /An operator approved your advertiser account/)
  assert.ok(text.includes(`Your user id: ${userId}`))
  assert.match(text, /Next step: read and accept the API terms\.\n\S+\/portal\/terms\n/)
  const base = /\n(https?:\/\/\S+)\/portal\/terms\n/.exec(text)?.[1]
  assert.ok(base, 'the terms link is a full address')
  assert.ok(text.trimEnd().endsWith(`the portal lists every step and ticks those done: ${base}/portal`), 'and the overview, on the same service')

  // The outbox keeps it too, as every message.
  const outbox = await outboxTo(h, email)
  assert.equal(outbox.filter((m) => m.subject === 'Your advertiser account is approved').length, 1)

  // A retried or repeated approval changes nothing and sends nothing.
  await approve(userId)
  assert.equal(approvalMails(email).length, 1)
})

test('terms and billing done before the approval: the next step is the first campaign', async () => {
  const email = newEmail('ready')
  const userId = await new PortalClient(h.baseUrl).signUp(email)
  assert.equal((await h.admin.post(`/admin/v1/accounts/${userId}/terms`, { accepted: true })).status, 200)
  assert.equal((await h.admin.post(`/admin/v1/accounts/${userId}/billing`, { mode: 'weekly_autopay', card_number: '4242424242424242' })).status, 200)
  await approve(userId)
  const [mail] = approvalMails(email)
  assert.ok(mail, 'sent')
  assert.match(plain(mail.raw), /Next step: create your first campaign\.\n\S+\/portal\/campaigns\/new/)
})

test('terms accepted, no billing: the next step is billing', async () => {
  const email = newEmail('billing-next')
  const userId = await new PortalClient(h.baseUrl).signUp(email)
  assert.equal((await h.admin.post(`/admin/v1/accounts/${userId}/terms`, { accepted: true })).status, 200)
  await approve(userId)
  assert.match(plain(approvalMails(email)[0]!.raw), /Next step: set up billing, a card for weekly auto-pay or a request for Net 30 invoicing\.\n\S+\/portal\/billing/)
})

test('approved in the console: the same email; withdrawn, nothing; approved again, a new one', async () => {
  const email = newEmail('console-approved')
  const userId = await new PortalClient(h.baseUrl).signUp(email)
  const ops = await signedInOperator(h)
  const approved = await ops.act(`/ops/accounts/${userId}`, `/ops/accounts/${userId}/write-approval`, { value: 'true' })
  assert.equal(approved.status, 303, approved.words.slice(0, 300))
  assert.equal(approvalMails(email).length, 1)
  await approve(userId, false)
  assert.equal(approvalMails(email).length, 1, 'a withdrawal sends no approval email')
  await approve(userId)
  assert.equal(approvalMails(email).length, 2)
})
