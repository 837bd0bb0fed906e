/**
 * What a newcomer tripped on with adctl (issue 51), with the real binary against a started service:
 * logins stored with their URL as named profiles, the service unreachable (exit 5, JSON on stderr),
 * --blocks, the surface a quote priced, --dry-run sending nothing, the account's owed figures
 * labelled, stats including today, and `ledger verify` refusing to pass having verified nothing.
 */
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { useService } from '../../../test/helpers/api.ts'
import { advance, deliver, offersWritten, privateCountry } from '../../../test/helpers/serving.ts'
import { adctl, freshConfigHome } from './run.ts'

const h = useService({}, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null, country_targeting_enabled: true })
const servers: Server[] = []
after(() => Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))))

/** A loopback server that records every request and answers 500: what --dry-run must never reach. */
async function recorder(): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = []
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`)
    res.writeHead(500).end()
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}

/** A port nothing listens on (a server opened and closed). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

test('login stores the URL with the key; profiles keep logins apart; a stored key never goes to another URL', async () => {
  const [main, other] = [await h.advertiser(), await h.advertiser()]
  const home = freshConfigHome()
  const env = { XDG_CONFIG_HOME: home }
  assert.equal((await adctl(['login', '--api-url', h.baseUrl, '--user-id', main.userId, '--api-key', main.apiKey], env)).code, 0)
  const staging = await adctl(['login', '--profile', 'staging', '--api-url', h.baseUrl, '--user-id', other.userId, '--api-key', other.apiKey], env)
  assert.equal(staging.code, 0, staging.stderr)
  assert.match(staging.stdout, /Stored as profile staging .*--profile staging/)

  assert.equal(JSON.parse((await adctl(['account', '--json'], env)).stdout).user_id, main.userId, 'default profile, its stored URL')
  assert.equal(JSON.parse((await adctl(['account', '--json', '--profile', 'staging'], env)).stdout).user_id, other.userId)
  assert.equal(JSON.parse((await adctl(['account', '--json'], { ...env, ADCTL_PROFILE: 'staging' })).stdout).user_id, other.userId)
  const listed = JSON.parse((await adctl(['profiles', '--json'], env)).stdout)
  assert.deepEqual(listed.profiles, [
    { name: 'default', api_url: h.baseUrl, user_id: main.userId, current: true },
    { name: 'staging', api_url: h.baseUrl, user_id: other.userId, current: false },
  ])
  assert.ok(!JSON.stringify(listed).includes(main.apiKey), 'never the key')

  const missing = await adctl(['account', '--profile', 'prod'], env)
  assert.equal(missing.code, 3)
  assert.match(missing.stderr, /^adctl: error: No credentials in profile prod: run `adctl login --profile prod`/)

  // Another service: the stored key stays home, nothing is sent.
  const elsewhere = await recorder()
  const refused = await adctl(['account', '--api-url', elsewhere.url], env)
  assert.equal(refused.code, 3, refused.stderr)
  assert.match(refused.stderr, new RegExp(`the stored login is for ${h.baseUrl}, not ${elsewhere.url}`))
  assert.deepEqual(elsewhere.seen, [])

  assert.equal((await adctl(['logout', '--profile', 'staging'], env)).code, 0)
  assert.deepEqual(Object.keys(JSON.parse(readFileSync(join(home, 'adctl', 'credentials.json'), 'utf8')).profiles), ['default'])

  // A file written by adctl 0.1 ({ user_id, api_key }) still logs in, to whatever URL is given.
  const legacy = freshConfigHome()
  mkdirSync(join(legacy, 'adctl'), { mode: 0o700 })
  writeFileSync(join(legacy, 'adctl', 'credentials.json'), JSON.stringify({ user_id: main.userId, api_key: main.apiKey }), { mode: 0o600 })
  assert.equal(JSON.parse((await adctl(['account', '--json'], { XDG_CONFIG_HOME: legacy, ADCTL_API_URL: h.baseUrl })).stdout).user_id, main.userId)
})

test('a service that does not answer is exit 5, said in words, and as JSON on stderr with --json', async () => {
  const adv = await h.advertiser()
  const env = { ADCTL_API_URL: `http://127.0.0.1:${await closedPort()}`, ADCTL_USER_ID: adv.userId, ADCTL_API_KEY: adv.apiKey, XDG_CONFIG_HOME: freshConfigHome() }
  const text = await adctl(['campaigns', 'pause', 'cmp_x'], env)
  assert.equal(text.code, 5, text.stderr)
  assert.match(text.stderr, /^adctl: error: the service did not answer \(network_error\): could not reach http:\/\/127\.0\.0\.1:\d+\/v1: .*ECONNREFUSED/)
  assert.match(text.stderr, /\nadctl: error: Is it running at http:\/\/127\.0\.0\.1:\d+\?/)
  const json = await adctl(['campaigns', 'pause', 'cmp_x', '--json'], env)
  assert.equal(json.code, 5)
  assert.equal(json.stdout, '')
  const error = JSON.parse(json.stderr).error
  assert.equal(error.exit_code, 5)
  assert.equal(error.reason, 'network_error')
  assert.equal(error.status, 0)
})

test('--blocks buys blocks of 1,000 (not with --impressions); quote says which surface it priced', async () => {
  const adv = await h.advertiser()
  const env = { ADCTL_API_URL: h.baseUrl, ADCTL_USER_ID: adv.userId, ADCTL_API_KEY: adv.apiKey, XDG_CONFIG_HOME: freshConfigHome() }
  const order = ['--line', 'Ship faster with Acme CI', '--destination', 'https://acme.dev/ci', '--cpm', '2.50', '--countries', privateCountry()]
  const bought = await adctl(['campaigns', 'create', ...order, '--blocks', '3', '--yes'], env)
  assert.equal(bought.code, 0, bought.stderr)
  assert.match(bought.stdout, /^Auction quote for 3 blocks \(3,000 impressions\) at \$2\.50 CPM:/)
  const id = /Bought: (cmp_\w+)/.exec(bought.stdout)?.[1] ?? ''
  assert.equal((await adv.get(`/v1/campaigns/${id}`)).body.impressions, 3000)
  const both = await adctl(['campaigns', 'create', ...order, '--blocks', '3', '--impressions', '3000', '--yes'], env)
  assert.equal(both.code, 2)
  assert.match(both.stderr, /^adctl: error: --blocks: cannot be combined with --impressions/)

  const quote = await adctl(['quote', '--cpm', '2.5', '--blocks', '2'], env)
  assert.equal(quote.code, 0, quote.stderr)
  const surfaces = (await adv.get('/v1/account')).body.config.surface_split_enabled ? 'extension' : 'both \\(extension and terminal, one bid\\)'
  assert.match(quote.stdout, new RegExp(`^Auction quote for 2 blocks \\(2,000 impressions\\) at \\$2\\.50 CPM:\\nSurface\\s+${surfaces} \\(no --surface given: the service's default\\)`))
})

test('--dry-run shows the request and sends nothing, not even with no credentials to send', async () => {
  const nothing = await recorder()
  const env = { ADCTL_API_URL: nothing.url, XDG_CONFIG_HOME: freshConfigHome() }
  const create = await adctl(['campaigns', 'create', '--line', 'Ship faster', '--destination', 'https://acme.dev', '--cpm', '2.5', '--blocks', '2', '--idempotency-key', 'k1', '--dry-run'], env)
  assert.equal(create.code, 0, create.stderr)
  assert.match(create.stdout, new RegExp(`^Dry run: nothing was sent\\. Without --dry-run adctl would send:\\nPOST ${nothing.url}/v1/campaigns\\n\\{`))
  const json = await adctl(['campaigns', 'create', '--line', 'Ship faster', '--destination', 'https://acme.dev', '--cpm', '2.5', '--blocks', '2', '--idempotency-key', 'k1', '--dry-run', '--json'], env)
  assert.deepEqual(JSON.parse(json.stdout), {
    dry_run: true,
    request: { method: 'POST', url: `${nothing.url}/v1/campaigns`, body: { ad_line: 'Ship faster', destination_url: 'https://acme.dev', cpm_usd: 2.5, impressions: 2000, idempotency_key: 'k1' } },
  })
  for (const [args, method, path] of [
    [['campaigns', 'pause', 'cmp_1'], 'POST', '/v1/campaigns/cmp_1/pause'],
    [['campaigns', 'cancel', 'cmp_1'], 'DELETE', '/v1/campaigns/cmp_1'],
    [['campaigns', 'rename', 'cmp_1', 'New name'], 'PATCH', '/v1/campaigns/cmp_1'],
    [['exports', 'create', '--from', '2026-11-01', '--to', '2026-11-02'], 'POST', '/v1/exports'],
    [['webhooks', 'add', '--url', 'https://hooks.acme.dev/x'], 'POST', '/v1/webhook-endpoints'],
    [['webhooks', 'remove', 'whe_1'], 'DELETE', '/v1/webhook-endpoints/whe_1'],
  ] as const) {
    const run = await adctl([...args, '--dry-run', '--json'], env)
    assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`)
    const doc = JSON.parse(run.stdout)
    assert.equal(doc.request.method, method)
    assert.equal(doc.request.url, `${nothing.url}${path}`)
  }
  assert.deepEqual(nothing.seen, [], 'nothing reached the service')
})

test('account labels each figure: owed is what is owed; stats include today; ledger verify with nothing verified exits 1 unless --allow-empty', async () => {
  const adv = await h.advertiser()
  const env = { ADCTL_API_URL: h.baseUrl, ADCTL_USER_ID: adv.userId, ADCTL_API_KEY: adv.apiKey, XDG_CONFIG_HOME: freshConfigHome() }
  const account = await adctl(['account'], env)
  assert.equal(account.code, 0, account.stderr)
  assert.match(account.stdout, /Owed\s+\$0\.00 = unpaid invoices \$0\.00 \+ delivered, not yet invoiced \$0\.00\n/)
  assert.match(account.stdout, /Invoiced to date\s+\$0\.00 \(paid \$0\.00\)\n/)

  // adctl's today is this computer's (UTC): the service clock joins it (last in the file: it moves the clock weeks on).
  assert.equal((await h.admin.post('/admin/v1/clock', { now: new Date().toISOString() })).status, 200)
  const country = privateCountry()
  const created = JSON.parse((await adctl(['campaigns', 'create', '--line', 'Ship faster with Acme CI', '--destination', 'https://acme.dev', '--cpm', '2.5', '--blocks', '1', '--countries', country, '--yes', '--json'], env)).stdout)
  await advance(h, 1)
  assert.equal(await deliver(h, country, 4), 4)
  await offersWritten(h)
  const stats = await adctl(['stats', '--campaign', created.campaign.campaign_id, '--json'], env)
  assert.equal(stats.code, 0, stats.stderr)
  const doc = JSON.parse(stats.stdout)
  assert.equal(doc.totals.billable_impressions, 4, 'today counts')
  const today = new Date().toISOString().slice(0, 10)
  assert.equal(Date.parse(doc.end) - Date.parse(doc.start), 7 * 86_400_000, 'seven days, the last of them today')
  assert.equal(new Date(Date.parse(doc.end) - 1).toISOString().slice(0, 10), today)

  const empty = await adctl(['ledger', 'verify', '--from', '2026-01-01', '--to', '2026-01-02'], env)
  assert.equal(empty.code, 1, empty.stderr)
  assert.match(empty.stderr, /^adctl: error: Nothing verified: no closed day with ledger rows from 2026-01-01 to 2026-01-02\..* Pass --allow-empty/)
  assert.equal(empty.stdout, '')
  const allowed = await adctl(['ledger', 'verify', '--from', '2026-01-01', '--to', '2026-01-02', '--allow-empty'], env)
  assert.equal(allowed.code, 0, allowed.stderr)
  assert.match(allowed.stdout, /^Nothing verified: no closed day with ledger rows/)
})
