/**
 * `npm run demo`: the terminal surface end to end on one machine. Starts the service on the
 * embedded store (in memory, system clock), creates an approved demo advertiser with three
 * terminal campaigns through the operator and advertiser APIs, and prints the one command that
 * shows the rotating ads in this terminal, and where the portal shows their delivery live.
 * Ctrl-C stops it (nothing is kept).
 *
 * The three campaigns bid 3.00, 2.50 and 2.00 USD CPM; the two best are paced to two impressions
 * a minute (1,000 over 500 minutes), the third is not: the best bid wins whenever it is not
 * ahead of its pace, then the next, and the third fills the rest (it shows first, while the
 * paced ones have delivered nothing yet), so a line kept on screen sees all three take turns.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadSettings } from '../src/platform/env.ts'
import { createService } from '../src/start/service.ts'

const root = new URL('..', import.meta.url).pathname

/** PORT, else 8080 when free, else any free port. */
async function pickPort(): Promise<number> {
  const tryPort = (port: number) =>
    new Promise<number | null>((resolve) => {
      const s = createServer()
      s.once('error', () => resolve(null))
      s.listen(port, '127.0.0.1', () => {
        const address = s.address()
        s.close(() => resolve(address && typeof address === 'object' ? address.port : null))
      })
    })
  return (await tryPort(Number(process.env.PORT ?? 8080))) ?? (await tryPort(0))!
}

const port = await pickPort()
const adminToken = process.env.ADMIN_TOKEN ?? `demo-${randomBytes(12).toString('hex')}`
// The development attester (docs/attestation.md): the demo's status line gets Privacy Pass tokens, so its views bill as attested.
const attester = process.env.ATTESTER_JWKS_URL || process.env.ATTESTER_JWKS_FILE ? {} : { ATTESTER: 'dev' }
const settings = loadSettings({ ...process.env, ...attester, PORT: String(port), ADMIN_TOKEN: adminToken, CLOCK: 'system', LOG_LEVEL: process.env.LOG_LEVEL ?? 'error' })
const service = await createService(settings, { inMemory: true })
await service.app.listen({ port, host: '127.0.0.1' })
const base = `http://127.0.0.1:${port}`

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(base + path, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return text ? JSON.parse(text) : null
}
const operator = { authorization: `Bearer ${adminToken}` }

const email = `demo-${randomBytes(3).toString('hex')}@example.dev`
const account = await call('POST', '/admin/v1/accounts', operator, { email })
await call('POST', `/admin/v1/accounts/${account.user_id}/write-approval`, operator, { approved: true })
await call('POST', `/admin/v1/accounts/${account.user_id}/terms`, operator, { accepted: true })
await call('POST', `/admin/v1/accounts/${account.user_id}/billing`, operator, { mode: 'weekly_autopay', card_number: '4242424242424242' })
const advertiser = { 'x-service-user-id': account.user_id, 'x-service-api-key': account.api_key }
const campaigns = [
  { brand: 'Acme CI', ad_line: 'Green builds in half the time, cached per branch', destination_url: 'https://acme.example/ci', cpm_usd: 3, pace_minutes: 500 },
  { brand: 'Quill', ad_line: 'Review pull requests without leaving the terminal', destination_url: 'https://quill.example/', cpm_usd: 2.5, pace_minutes: 500 },
  { brand: null, ad_line: 'Postgres backups you restore in one command', destination_url: 'https://backups.example/', cpm_usd: 2, pace_minutes: null },
]
for (const [i, c] of campaigns.entries()) {
  await call('POST', '/v1/campaigns', advertiser, {
    name: `Demo ${i + 1}`,
    ...(c.brand ? { brand: c.brand } : {}),
    ad_line: c.ad_line,
    destination_url: c.destination_url,
    cpm_usd: c.cpm_usd,
    impressions: 1000,
    ...(c.pace_minutes ? { pace_minutes: c.pace_minutes } : {}),
    target_surface: 'terminal',
    idempotency_key: `demo-${i}`,
  })
}
// The account was made by an operator: its owner sets a password from the emailed link.
const outbox = await call('GET', `/admin/v1/outbox?to=${encodeURIComponent(email)}`, operator)
const link = /https?:\/\/\S+reset-password\?token=\S+/.exec(JSON.stringify(outbox.messages[0]?.text ?? ''))?.[0]?.replace(/\\n.*$/, '').replace(/["\\]+$/, '')

const stateDir = mkdtempSync(join(tmpdir(), 'thinking-line-demo-'))
const bin = join(root, 'packages/status-line/bin/thinking-line.js')
// A development attester's JWT for a demo user (valid an hour): the refresher trades it for tokens.
const jwt: string | undefined = 'ATTESTER' in attester ? (await call('POST', '/dev/attest', {}, { subject: 'demo-user' })).jwt : undefined
const attest = jwt ? `THINKING_LINE_ATTEST_TOKEN=${jwt} ` : ''
const command = `while sleep 1; do printf '\\r\\033[K%s' "$(${attest}THINKING_LINE_URL=${base} THINKING_LINE_STATE_DIR=${stateDir} node ${bin} --prefix 'demo')"; done`
console.log(`
The service: ${base} (embedded store in memory, system clock; Ctrl-C stops it and keeps nothing)
Demo advertiser ${email} (${account.user_id}) with three terminal campaigns.

Rotating ads in a terminal (each ad stays 10 s, then its view is reported, with a Privacy Pass token
from the development attester once the refresher has fetched some, and the next one shows):

  ${command}

Their delivery, live, in the portal: ${base}/portal/campaigns
  (set the demo advertiser's password first: ${link ?? `${base}/portal/forgot-password`})
Operator console: ${base}/ops/setup with the token ${adminToken}
`)

const stop = async () => {
  await service.close()
  process.exit(0)
}
process.once('SIGINT', () => void stop())
process.once('SIGTERM', () => void stop())
