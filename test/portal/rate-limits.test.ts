import assert from 'node:assert/strict'
import { test } from 'node:test'
import { useService } from '../helpers/api.ts'
import { portalAdvertiser, type PortalAdvertiser } from '../helpers/portal.ts'

/**
 * The portal's actions spend the API's per-account budget (issue 34), over
 * real HTTP on both stores: a script driving the portal (export requests,
 * webhook resends, stats, campaign actions) stops at the same per-minute
 * budget as one driving /v1, and the two channels share it. Over budget a
 * portal page is an HTML 429 with Retry-After and the RateLimit headers.
 */
const LIMIT = 8
const h = useService({}, { read_rate_limit_per_min: LIMIT })

const EXPORT_FORM = { start: '2026-10-26T00:00', end: '2026-11-02T00:00', campaign: '', schema_version: '' }

/** The start of a fresh one-minute window (the service clock is manual and the windows are whole minutes). */
async function nextWindow(): Promise<void> {
  assert.equal((await h.admin.post('/admin/v1/clock', { advance_seconds: 60 })).status, 200)
}

const exportCount = async (adv: PortalAdvertiser) => ((await adv.api.get('/v1/exports?limit=100')).body.exports as unknown[]).length

function assertOverBudgetPage(res: { status: number; headers: Headers; words: string }, what: string): void {
  assert.equal(res.status, 429, `${what}: ${res.words.slice(0, 300)}`)
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/, what)
  assert.match(res.headers.get('retry-after') ?? '', /^\d+$/, what)
  assert.ok(Number(res.headers.get('retry-after')) >= 1 && Number(res.headers.get('retry-after')) <= 60, what)
  assert.equal(res.headers.get('ratelimit-policy'), `"requests";q=${LIMIT};w=60`, what)
  assert.match(res.headers.get('ratelimit') ?? '', /^"requests";r=0;t=\d+$/, what)
  assert.match(res.words, /Too many requests/, what)
  assert.match(res.words, new RegExp(`This account has made more than ${LIMIT} requests in a minute, through the portal and the API together\\. Try again in \\d+ seconds?\\.`), what)
}

test('a script requesting exports through the portal stops at the API’s budget; nothing is queued past it', async () => {
  const adv = await portalAdvertiser(h)
  await nextWindow()
  const page = await adv.browser.get('/portal/exports')
  assert.equal(page.status, 200)
  assert.equal(page.headers.get('ratelimit'), `"requests";r=${LIMIT - 1};t=60`)
  const statuses: number[] = []
  for (let i = 0; i < LIMIT + 3; i++) {
    const res = await adv.browser.post('/portal/exports', EXPORT_FORM, page)
    statuses.push(res.status)
    if (res.status === 429) assertOverBudgetPage(res, `export request ${i}`)
  }
  assert.deepEqual(statuses, [...Array(LIMIT - 1).fill(303), 429, 429, 429, 429])
  await nextWindow()
  assert.equal(await exportCount(adv), LIMIT - 1, 'only the requests within the budget were queued')
})

test('the portal and the API share one budget per account; other accounts are not affected; the next window is open again', async () => {
  const adv = await portalAdvertiser(h)
  const other = await portalAdvertiser(h)
  await nextWindow()
  for (let i = 0; i < LIMIT - 2; i++) assert.equal((await adv.api.get('/v1/account')).status, 200)
  const stats = await adv.browser.get('/portal/stats')
  assert.equal(stats.status, 200)
  assert.equal(stats.headers.get('ratelimit'), `"requests";r=1;t=60`)
  assert.equal((await adv.browser.post('/portal/exports', EXPORT_FORM, stats)).status, 303)

  // The budget is spent: every portal action and the API answer 429 for this account.
  assertOverBudgetPage(await adv.browser.get('/portal/stats'), 'stats')
  assertOverBudgetPage(await adv.browser.post('/portal/exports', EXPORT_FORM, stats), 'export request')
  assertOverBudgetPage(await adv.browser.post('/portal/webhooks/whe_unknown/deliveries/whm_unknown/resend', {}, stats), 'webhook resend')
  assertOverBudgetPage(await adv.browser.get('/portal/campaigns'), 'campaign list')
  assertOverBudgetPage(await adv.browser.get('/portal'), 'overview')
  const api = await adv.api.get('/v1/account')
  assert.equal(api.status, 429)
  assert.equal(api.headers.get('ratelimit'), `"requests";r=0;t=60`)

  assert.equal((await other.browser.get('/portal/stats')).status, 200, 'another account has its own budget')
  assert.equal((await other.api.get('/v1/account')).status, 200)

  await nextWindow()
  assert.equal((await adv.browser.get('/portal/stats')).status, 200)
  assert.equal(await exportCount(adv), 1)
  // Within the budget the resend reaches its service: an unknown delivery is the pages' 404.
  assert.equal((await adv.browser.post('/portal/webhooks/whe_unknown/deliveries/whm_unknown/resend', {}, stats)).status, 404)
})

test('portal use alone exhausts the API budget of the account', async () => {
  const adv = await portalAdvertiser(h)
  await nextWindow()
  for (let i = 0; i < LIMIT; i++) assert.equal((await adv.browser.get('/portal/key')).status, 200, `page ${i}`)
  const api = await adv.api.get('/v1/account')
  assert.equal(api.status, 429)
  assert.equal(api.body.detail, `rate limit exceeded: ${LIMIT} requests per minute`)
})

test('a campaign action over budget changes nothing; creating a campaign spends the create budget, not this one', async () => {
  const adv = await portalAdvertiser(h)
  await nextWindow()
  const form = await adv.browser.get('/portal/campaigns/new')
  assert.equal(form.status, 200)
  const fields = {
    idempotency_key: /name="idempotency_key" value="([^"]+)"/.exec(form.text)![1]!,
    name: 'Budget test',
    ad_line: 'Ship faster with Acme CI',
    brand: '',
    cpm_usd: '2.50',
    blocks: '3',
    destination_url: 'https://acme.dev/ci',
    target_surface: 'extension',
    target_countries: '',
    icon_url: '',
    kind: 'impression',
    pace_minutes: '',
  }
  for (let i = 0; i < LIMIT - 1; i++) assert.equal((await adv.api.get('/v1/account')).status, 200)
  // The budget is spent, yet "Create campaign" goes through: it spends the create budget, as POST /v1/campaigns does.
  const created = await adv.browser.post('/portal/campaigns/new', fields, form)
  assert.equal(created.status, 303, created.words.slice(0, 500))
  const campaignId = /\/portal\/campaigns\/([^?]+)\?notice=created/.exec(created.location ?? '')![1]!
  // "Show my place in the auction" is a read: over budget.
  assertOverBudgetPage(await adv.browser.post('/portal/campaigns/new', { ...fields, action: 'quote' }, form), 'quote')
  assertOverBudgetPage(await adv.browser.post(`/portal/campaigns/${campaignId}/pause`, {}, form), 'pause')
  await nextWindow()
  assert.equal((await adv.api.get(`/v1/campaigns/${campaignId}`)).body.status, 'active', 'the pause over budget did not happen')
})
