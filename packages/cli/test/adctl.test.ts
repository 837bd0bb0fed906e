/**
 * The real `adctl` binary against a started service (embedded store, or PostgreSQL with
 * TEST_STORE=postgres): login, the quote before a create, lists, watch until a campaign is
 * exhausted by serving traffic, stats, an export verified (and a tampered one refused), webhooks,
 * the API's refusals and every exit code of operations.md section 8.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { sql } from 'kysely'
import { useService, type Advertiser } from '../../../test/helpers/api.ts'
import { advance, deliver, offersWritten, privateCountry } from '../../../test/helpers/serving.ts'
import { adctl, freshConfigHome, start } from './run.ts'

const h = useService({ WEBHOOKS_ALLOW_LOOPBACK: 'true' }, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null, country_targeting_enabled: true })
const servers: Server[] = []
after(() => servers.forEach((s) => s.close()))

/** An advertiser and the environment that makes adctl act as them (credentials in the environment). */
async function as(adv?: Advertiser): Promise<{ adv: Advertiser; env: Record<string, string> }> {
  const a = adv ?? (await h.advertiser())
  return { adv: a, env: { ADCTL_API_URL: h.baseUrl, ADCTL_USER_ID: a.userId, ADCTL_API_KEY: a.apiKey, XDG_CONFIG_HOME: freshConfigHome() } }
}

const line = ['--line', 'Ship faster with Acme CI', '--destination', 'https://acme.dev/ci', '--cpm', '2.50', '--impressions', '1000']
/** An order of its own country (privateCountry), so no test's campaign takes another's traffic. */
const buy = (country = privateCountry()) => [...line, '--countries', country]

test('login checks the credentials and stores them with mode 0600; account reads them; logout forgets them', async () => {
  const adv = await h.advertiser()
  const home = freshConfigHome()
  const env = { ADCTL_API_URL: h.baseUrl, XDG_CONFIG_HOME: home }
  const file = join(home, 'adctl', 'credentials.json')

  const refused = await adctl(['login', '--user-id', adv.userId, '--api-key', 'sk_live_wrong'], env)
  assert.equal(refused.code, 3, refused.stderr)
  assert.match(refused.stderr, /invalid credentials/)
  assert.equal(existsSync(file), false)

  const noTerminal = await adctl(['login'], env)
  assert.equal(noTerminal.code, 2, noTerminal.stderr)
  assert.match(noTerminal.stderr, /--user-id is required/)

  const login = await adctl(['login', '--user-id', adv.userId, '--api-key', adv.apiKey], env)
  assert.equal(login.code, 0, login.stderr)
  assert.match(login.stdout, new RegExp(`Logged in as ${adv.userId}`))
  assert.equal(statSync(file).mode & 0o777, 0o600)
  assert.equal(statSync(join(home, 'adctl')).mode & 0o777, 0o700)
  assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { profiles: { default: { api_url: h.baseUrl, user_id: adv.userId, api_key: adv.apiKey } } })

  // The next command goes to the URL login stored, with no ADCTL_API_URL (issue 51).
  const stored = await adctl(['account', '--json'], { XDG_CONFIG_HOME: home })
  assert.equal(stored.code, 0, stored.stderr)
  assert.equal(JSON.parse(stored.stdout).user_id, adv.userId)

  const account = await adctl(['account', '--json'], env)
  assert.equal(account.code, 0, account.stderr)
  assert.equal(JSON.parse(account.stdout).user_id, adv.userId, 'stdout is exactly the JSON answer')
  const text = await adctl(['account'], env)
  assert.match(text.stdout, /User id\s+usr_/)

  assert.equal((await adctl(['logout'], env)).code, 0)
  assert.equal(existsSync(file), false)
  const gone = await adctl(['account'], env)
  assert.equal(gone.code, 3)
  assert.match(gone.stderr, /No credentials/)
})

test('create shows the auction quote, asks (or takes --yes), buys; list, show, pause, resume, rename, rewrite, cancel', async () => {
  const { adv, env } = await as()
  const order = buy()
  const unasked = await adctl(['campaigns', 'create', ...order], env)
  assert.equal(unasked.code, 2, unasked.stderr)
  assert.match(unasked.stdout, /Auction quote for 1,000 impressions at \$2\.50 CPM/)
  assert.match(unasked.stderr, /Pass --yes/)
  assert.equal((await adv.get('/v1/campaigns')).body.campaigns.length, 0, 'nothing bought without a yes')

  const bought = await adctl(['campaigns', 'create', ...order, '--name', 'CLI launch', '--yes'], env)
  assert.equal(bought.code, 0, bought.stderr)
  assert.match(bought.stdout, /Rank\s+1 \(next to serve\)/)
  const id = /Bought: (cmp_\w+)/.exec(bought.stdout)?.[1]
  assert.ok(id, bought.stdout)

  const json = await adctl(['campaigns', 'create', ...order, '--idempotency-key', 'cli-1', '--yes', '--json'], env)
  assert.equal(json.code, 0, json.stderr)
  const doc = JSON.parse(json.stdout)
  assert.equal(doc.quote.rank, 2)
  assert.equal(doc.campaign.replayed, false)
  const replay = JSON.parse((await adctl(['campaigns', 'create', ...order, '--idempotency-key', 'cli-1', '--yes', '--json'], env)).stdout)
  assert.equal(replay.campaign.campaign_id, doc.campaign.campaign_id)
  assert.equal(replay.campaign.replayed, true)

  const listed = JSON.parse((await adctl(['campaigns', 'list', '--json', '--limit', '1'], env)).stdout)
  assert.deepEqual(new Set(listed.campaigns.map((c: { campaign_id: string }) => c.campaign_id)), new Set([id, doc.campaign.campaign_id]))
  const table = await adctl(['campaigns', 'list'], env)
  assert.match(table.stdout, /ID\s+Name\s+Status\s+Bid CPM\s+Delivered\s+Spend/)
  assert.match(table.stdout, new RegExp(`${id}\\s+CLI launch\\s+active\\s+\\$2\\.50\\s+0 / 1,000\\s+\\$0\\.00`))

  assert.match((await adctl(['campaigns', 'show', id], env)).stdout, /Delivered\s+0 of 1,000/)
  assert.match((await adctl(['campaigns', 'preview', id], env)).stdout, /\/preview\/\S+\nValid until /)
  assert.match((await adctl(['campaigns', 'pause', id], env)).stdout, /paused/)
  assert.match((await adctl(['campaigns', 'resume', id], env)).stdout, /active/)
  assert.match((await adctl(['campaigns', 'rename', id, 'CLI launch, renamed'], env)).stdout, /CLI launch, renamed/)
  assert.match((await adctl(['campaigns', 'rewrite', id, 'Ship sooner with Acme CI'], env)).stdout, /Ship sooner with Acme CI/)
  assert.equal((await adctl(['campaigns', 'cancel', id], env)).code, 2, 'cancel asks, and there is no terminal')
  const cancelled = await adctl(['campaigns', 'cancel', id, '--yes', '--json'], env)
  assert.equal(JSON.parse(cancelled.stdout).status, 'cancelled_user')

  const again = await adctl(['campaigns', 'pause', id], env)
  assert.equal(again.code, 1)
  assert.match(again.stderr, /^adctl: /)
})

test('a wrong order names each flag and its rule at once (exit 2), a topic typo gets the nearest topic; an API refusal names the flag too (exit 1)', async () => {
  const { adv, env } = await as()
  const refused = await adctl(['campaigns', 'create', ...line.slice(0, 4), '--cpm', '0.01', '--impressions', '1500', '--topics', 'pyhton,cobol-on-mars', '--kind', 'view', '--yes'], env)
  assert.equal(refused.code, 2, refused.stderr)
  const lines = refused.stderr.trimEnd().split('\n')
  assert.ok(lines.every((l) => l.startsWith('adctl: error: ')), refused.stderr)
  assert.deepEqual(lines, [
    'adctl: error: --cpm: must be at least $0.50 (the bid floor; $0.01 is below it)',
    'adctl: error: --impressions: must be whole blocks: a multiple of 1,000, at least 1,000 (got "1500"; or give --blocks)',
    'adctl: error: --topics: "pyhton" is not a topic; did you mean "python"?',
    'adctl: error: --topics: "cobol-on-mars" is not a topic (the topics: GET /serve/v1/topics)',
    'adctl: error: --kind: must be impression or click (got "view")',
  ])
  assert.equal(refused.stdout, '')
  assert.equal((await adv.get('/v1/campaigns')).body.campaigns.length, 0, 'nothing asked, nothing bought')

  const json = await adctl(['campaigns', 'create', ...line.slice(0, 4), '--cpm', '0.01', '--impressions', '1000', '--yes', '--json'], env)
  assert.equal(json.code, 2)
  assert.equal(json.stdout, '')
  const error = JSON.parse(json.stderr).error
  assert.equal(error.exit_code, 2)
  assert.deepEqual(error.problems, [{ flag: '--cpm', message: 'must be at least $0.50 (the bid floor; $0.01 is below it)', field: 'cpm_usd', reason: 'below_minimum' }])

  // What only the API can judge comes back named by its flag: --group-by topic needs one --campaign.
  const byTopic = await adctl(['stats', '--group-by', 'topic'], env)
  assert.equal(byTopic.code, 1, byTopic.stderr)
  assert.match(byTopic.stderr, /^adctl: error: --campaign: --group-by topic needs exactly one --campaign \(required_with_group_by_topic\)\nadctl: error: request id: \S+\n$/)
  const notFound = await adctl(['campaigns', 'show', 'cmp_nope'], env)
  assert.equal(notFound.code, 1)
  assert.match(notFound.stderr, /^adctl: error: campaign not found \(HTTP 404, not_found\)\n/)

  const topical = JSON.parse((await adctl(['campaigns', 'create', ...buy(), '--topics', 'python,pytest', '--yes', '--json'], env)).stdout)
  assert.deepEqual(topical.quote.based_on.topics, ['pytest', 'python'])
  assert.match((await adctl(['campaigns', 'show', topical.campaign.campaign_id], env)).stdout, /Topics\s+pytest, python/)
})

test('exit codes: 2 for bad usage (an unknown command, a bad flag), 3 for no credentials or a 401', async () => {
  const { env } = await as()
  for (const args of [['ledger', 'audit'], ['ledger', 'verify', '--from', '2026-11-02'], ['ledger', 'verify', '--from', '2026-11-02', '--to', 'yesterday'], ['campaigns', 'create', '--line', 'x'], ['quote', '--cpm', 'cheap'], ['campaigns', 'create', ...line.slice(0, 6), '--impressions', '1500']]) {
    const run = await adctl(args, env)
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`)
    assert.equal(run.stdout, '')
  }
  assert.equal((await adctl(['account'], { ADCTL_API_URL: h.baseUrl, XDG_CONFIG_HOME: freshConfigHome() })).code, 3)
  assert.equal((await adctl(['account', '--api-key', 'sk_live_wrong'], env)).code, 3)
  assert.equal((await adctl(['--help'], env)).code, 0)
})

test('watch follows delivery until the campaign is exhausted by serving traffic; stats show it as a table and sparklines', async () => {
  const { adv, env } = await as()
  const country = privateCountry()
  const bought = JSON.parse((await adctl(['campaigns', 'create', ...buy(country), '--yes', '--json'], env)).stdout)
  const id: string = bought.campaign.campaign_id
  await advance(h, 1)
  const watching = start(['campaigns', 'watch', id, '--interval', '1', '--until-done', '--json'], env)
  const text = start(['campaigns', 'watch', id, '--interval', '1', '--until-done'], env)
  let delivered = 0
  while (delivered < 1000) delivered += await deliver(h, country, 100)
  await offersWritten(h)
  assert.equal((await adv.get(`/v1/campaigns/${id}`)).body.status, 'completed')
  const bound = setTimeout(() => [watching, text].forEach((w) => w.child.kill()), 30_000)
  const [run, plain] = await Promise.all([watching.done, text.done])
  clearTimeout(bound)
  assert.equal(run.code, 0, run.stderr)
  const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l))
  assert.ok(lines.length >= 2, 'a JSON line per change')
  const last = lines[lines.length - 1]
  assert.equal(last.status, 'completed')
  assert.equal(last.impressions_served, 1000)
  assert.equal(plain.code, 0, plain.stderr)
  assert.match(plain.stdout, /1,000 \/ 1,000 impressions · spend \$2\.50 · completed/)

  const now = h.svc.clock.nowMs()
  const from = new Date(now - (now % 86_400_000)).toISOString()
  const to = new Date(now - (now % 86_400_000) + 86_400_000).toISOString()
  const stats = await adctl(['stats', '--from', from, '--to', to, '--granularity', 'hour', '--campaign', id], env)
  assert.equal(stats.code, 0, stats.stderr)
  assert.match(stats.stdout, /Bucket\s+Impressions\s+Clicks\s+Viewers\s+Spend/)
  assert.match(stats.stdout, /Impressions\s+[▁▂▃▄▅▆▇█]+\s+total 1,000/)
  assert.match(stats.stdout, /Spend\s+[▁▂▃▄▅▆▇█]+\s+total \$2\.50/)
  const json = JSON.parse((await adctl(['stats', '--from', from, '--to', to, '--granularity', 'hour', '--campaign', id, '--json'], env)).stdout)
  assert.equal(json.totals.billable_impressions, 1000)
})

test('exports create --wait --out downloads and verifies the SHA-256; a download that does not match exits 4 and writes nothing', async () => {
  const { env } = await as()
  const country = privateCountry()
  await adctl(['campaigns', 'create', ...buy(country), '--yes'], env)
  await advance(h, 1)
  assert.equal(await deliver(h, country, 3), 3)
  await offersWritten(h)
  const now = h.svc.clock.nowMs()
  const window = ['--from', new Date(now - 3_600_000).toISOString(), '--to', new Date(now + 1000).toISOString()]
  const out = join(freshConfigHome(), 'ledger.csv')
  const made = await adctl(['exports', 'create', ...window, '--wait', '--out', out], env)
  assert.equal(made.code, 0, made.stderr)
  assert.match(made.stdout, /3 rows, [\d,]+ bytes, SHA-256 verified/)
  const id = /(exp_\w+)/.exec(made.stdout)?.[1]
  assert.ok(id)
  const job = JSON.parse((await adctl(['exports', 'list', '--json'], env)).stdout).exports[0]
  assert.equal(job.id, id)
  assert.equal(createHash('sha256').update(readFileSync(out)).digest('hex'), job.sha256)

  const again = await adctl(['exports', 'download', id, '--out', `${out}.2`, '--json'], env)
  assert.equal(JSON.parse(again.stdout).verified, true)

  // A stand-in in front of the service that changes one byte of every download.
  const tamper = createServer(async (req, res) => {
    const upstream = await fetch(h.baseUrl + req.url, { method: req.method, headers: Object.fromEntries(Object.entries(req.headers).filter(([, v]) => typeof v === 'string')) as Record<string, string> })
    let body = Buffer.from(await upstream.arrayBuffer())
    if (req.url?.endsWith('/download')) body = Buffer.concat([body, Buffer.from('x')])
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'text/plain' }).end(body)
  })
  servers.push(tamper)
  await new Promise<void>((resolve) => tamper.listen(0, '127.0.0.1', resolve))
  const port = (tamper.address() as { port: number }).port
  const bad = await adctl(['exports', 'download', id, '--out', `${out}.3`], { ...env, ADCTL_API_URL: `http://127.0.0.1:${port}` })
  assert.equal(bad.code, 4, bad.stderr)
  assert.match(bad.stderr, /SHA-256 mismatch/)
  assert.equal(existsSync(`${out}.3`), false)
})

test('webhooks add shows the secret once; list; remove', async () => {
  const { env } = await as()
  const receiver = createServer((_req, res) => res.writeHead(200).end())
  servers.push(receiver)
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`
  const added = await adctl(['webhooks', 'add', '--url', url, '--events', 'export.ready,campaign.exhausted'], env)
  assert.equal(added.code, 0, added.stderr)
  assert.match(added.stdout, /Signing secret .*whsec_/)
  const id = /Added (whe_\w+)/.exec(added.stdout)?.[1]
  assert.ok(id)
  assert.match((await adctl(['webhooks', 'list'], env)).stdout, new RegExp(`${id}\\s+${url.replace(/[/.]/g, '\\$&')}\\s+campaign.exhausted, export.ready`))
  const now = h.svc.clock.nowMs()
  await adctl(['exports', 'create', '--from', new Date(now - 3_600_000).toISOString(), '--to', new Date(now).toISOString()], env)
  let shown = ''
  for (let i = 0; i < 100 && !/export\.ready\s+delivered/.test(shown); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    shown = (await adctl(['webhooks', 'show', id], env)).stdout
  }
  assert.match(shown, /^\S+\s+export\.ready\s+delivered\s+1\s/m)
  const delivery = /^(\S+)\s+export\.ready/m.exec(shown)?.[1] ?? ''
  const resent = await adctl(['webhooks', 'resend', id, delivery], env)
  assert.equal(resent.code, 0, resent.stderr)
  assert.match(resent.stdout, new RegExp(`^Resending ${delivery} to ${id}\\.`))
  assert.equal((await adctl(['webhooks', 'remove', id], env)).code, 0)
  assert.deepEqual(JSON.parse((await adctl(['webhooks', 'list', '--json'], env)).stdout), { endpoints: [] })
})

test('ledger verify proves closed days (exit 0, figures and roots) and names the day of a changed row (exit 4)', async () => {
  // Last in the file: it moves the service clock days ahead.
  const { adv, env } = await as()
  const country = privateCountry()
  await adctl(['campaigns', 'create', ...buy(country), '--yes'], env)
  const moveTo = async (iso: string) => assert.equal((await h.admin.post('/admin/v1/clock', { now: iso })).status, 200)
  await moveTo('2026-12-01T09:00:00Z')
  assert.equal(await deliver(h, country, 3), 3)
  await moveTo('2026-12-02T09:00:00Z')
  assert.equal(await deliver(h, country, 2), 2)
  await moveTo('2026-12-03T00:20:00Z')

  const verified = await adctl(['ledger', 'verify', '--from', '2026-12-01', '--to', '2026-12-02'], env)
  assert.equal(verified.code, 0, verified.stderr)
  assert.match(verified.stdout, /^Verified 2026-12-01 to 2026-12-02: 2 closed days with rows\./)
  assert.match(verified.stdout, /Billable impressions\s+5/)
  assert.match(verified.stdout, /2026-12-01\s+\d+\s+3\s+\$0\.0075\s+\$0\.00\s+[0-9a-f]{12}…/)
  const days = await adctl(['ledger', 'days', '--from', '2026-12-01', '--to', '2026-12-02'], env)
  assert.equal(days.code, 0, days.stderr)
  assert.match(days.stdout, /^Closed through 2026-12-02;/)
  assert.match(days.stdout, /2026-12-02\s+\d+\s+2\s+0\s+\$0\.005\s+[0-9a-f]{64}/)

  // The Monday invoice takes both days; verify checks what it took.
  await moveTo('2026-12-07T07:00:00Z')
  const invoices = JSON.parse((await adctl(['invoices', 'list', '--json'], env)).stdout).invoices
  assert.equal(invoices.length, 1)
  const shown = await adctl(['invoices', 'show', invoices[0].invoice_id], env)
  assert.match(shown.stdout, /2026-12-01\s+\$0\.0075\s+[0-9a-f]{64}/)
  assert.match(shown.stdout, /2026-12-02\s+\$0\.005\s+[0-9a-f]{64}/)
  const json = JSON.parse((await adctl(['ledger', 'verify', '--from', '2026-12-01', '--to', '2026-12-02', '--json'], env)).stdout)
  assert.equal(json.verified, true)
  assert.equal(json.figures.billable_impressions, 5)
  assert.equal(json.figures.invoiced_micros, 12_500)
  assert.equal(json.figures.invoices_checked, 1)

  const db = h.svc.service.store.db
  const row = await db.selectFrom('ledger_events').select('event_id').where('user_id', '=', adv.userId).where('event_type', '=', 'impression').where('occurred_at', '>=', new Date('2026-12-02T00:00:00Z')).executeTakeFirstOrThrow()
  await sql`UPDATE ledger_events SET debit_micros = debit_micros + 1 WHERE event_id = ${row.event_id}`.execute(db)
  const caught = await adctl(['ledger', 'verify', '--from', '2026-12-01', '--to', '2026-12-02'], env)
  assert.equal(caught.code, 4, caught.stderr)
  assert.match(caught.stderr, /^adctl: error: NOT verified: figures mismatch on 2026-12-02: /)
  assert.equal(caught.stdout, '')
})
