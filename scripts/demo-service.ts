/**
 * What the demos share (`npm run demo`, `npm run demo:editor`): the service on the embedded store
 * (in memory, system clock, the development attester unless one is configured) on PORT, else
 * 8080 when free, else any free port; an approved demo advertiser (terms, test card) made
 * through the operator API; its three campaigns on one surface through the advertiser API; and
 * the emailed link that sets the advertiser's password for the portal.
 *
 * The three campaigns bid 3.00, 2.50 and 2.00 USD CPM; the two best are paced to two impressions
 * a minute (1,000 over 500 minutes), the third is not: the best bid wins whenever it is not
 * ahead of its pace, then the next, and the third fills the rest (it shows first, while the
 * paced ones have delivered nothing yet), so an ad line kept on screen sees all three take turns.
 */
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:net'
import { loadSettings } from '../src/platform/env.ts'
import { createService, type Service } from '../src/start/service.ts'

/** PORT, else 8080 when free, else any free port. */
export async function pickPort(preferred = Number(process.env.PORT ?? 8080)): Promise<number> {
  const tryPort = (port: number) =>
    new Promise<number | null>((resolve) => {
      const s = createServer()
      s.once('error', () => resolve(null))
      s.listen(port, '127.0.0.1', () => {
        const address = s.address()
        s.close(() => resolve(address && typeof address === 'object' ? address.port : null))
      })
    })
  return (await tryPort(preferred)) ?? (await tryPort(0))!
}

export interface DemoCampaign {
  brand: string | null
  ad_line: string
  destination_url: string
  cpm_usd: number
  pace_minutes: number | null
  target_topics?: string[]
}

/** The terminal demo's three campaigns. */
export const TERMINAL_CAMPAIGNS: DemoCampaign[] = [
  { brand: 'Acme CI', ad_line: 'Green builds in half the time, cached per branch', destination_url: 'https://acme.example/ci', cpm_usd: 3, pace_minutes: 500 },
  { brand: 'Quill', ad_line: 'Review pull requests without leaving the terminal', destination_url: 'https://quill.example/', cpm_usd: 2.5, pace_minutes: 500 },
  { brand: null, ad_line: 'Postgres backups you restore in one command', destination_url: 'https://backups.example/', cpm_usd: 2, pace_minutes: null },
]

export interface DemoService {
  service: Service
  /** http://127.0.0.1:PORT */
  base: string
  adminToken: string
  email: string
  userId: string
  /** The emailed link that sets the demo advertiser's password, when found. */
  passwordLink: string | null
  /** Whether the development attester is on (ATTESTER=dev). */
  devAttester: boolean
  /** One JSON call to the service (operator or advertiser headers); throws on a status >= 400. */
  call(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<ReturnType<typeof JSON.parse>>
  /** Stops the service (nothing is kept). */
  close(): Promise<void>
}

export async function startDemoService(surface: 'terminal' | 'extension', campaigns: DemoCampaign[]): Promise<DemoService> {
  const port = await pickPort()
  const adminToken = process.env.ADMIN_TOKEN ?? `demo-${randomBytes(12).toString('hex')}`
  // The development attester (docs/attestation.md): clients get Privacy Pass tokens, so their views bill as attested.
  const attester = process.env.ATTESTER_JWKS_URL || process.env.ATTESTER_JWKS_FILE ? {} : { ATTESTER: 'dev' }
  const settings = loadSettings({ ...process.env, ...attester, PORT: String(port), ADMIN_TOKEN: adminToken, CLOCK: 'system', LOG_LEVEL: process.env.LOG_LEVEL ?? 'error' })
  const service = await createService(settings, { inMemory: true })
  await service.app.listen({ port, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${port}`

  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
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
  for (const [i, c] of campaigns.entries()) {
    await call('POST', '/v1/campaigns', advertiser, {
      name: `Demo ${i + 1}`,
      ...(c.brand ? { brand: c.brand } : {}),
      ad_line: c.ad_line,
      destination_url: c.destination_url,
      cpm_usd: c.cpm_usd,
      impressions: 1000,
      ...(c.pace_minutes ? { pace_minutes: c.pace_minutes } : {}),
      ...(c.target_topics ? { target_topics: c.target_topics } : {}),
      target_surface: surface,
      idempotency_key: `demo-${i}`,
    })
  }
  // The account was made by an operator: its owner sets a password from the emailed link.
  const outbox = await call('GET', `/admin/v1/outbox?to=${encodeURIComponent(email)}`, operator)
  const link = /https?:\/\/\S+reset-password\?token=\S+/.exec(JSON.stringify(outbox.messages[0]?.text ?? ''))?.[0]?.replace(/\\n.*$/, '').replace(/["\\]+$/, '')

  return {
    service,
    base,
    adminToken,
    email,
    userId: account.user_id,
    passwordLink: link ?? null,
    devAttester: 'ATTESTER' in attester,
    call,
    close: () => service.close(),
  }
}
