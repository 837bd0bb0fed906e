import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, Client, freshIp, useService } from '../helpers/api.ts'
import { Scrape } from '../helpers/metrics.ts'
import { PortalClient } from '../helpers/portal.ts'
import { advance, deliver, privateCountry } from '../helpers/serving.ts'
import { ADMIN_TOKEN } from '../helpers/service.ts'
import { publicReportReader, reportWeight, type ReportSource } from '../../src/services/public-report.ts'
import { loadSettings } from '../../src/platform/env.ts'

/**
 * The shareable report (operations.md section 5) over real HTTP: shared and
 * revoked from the portal, public, without cookies or account data, with the
 * delivery of the same statistics as /v1/stats.
 */
const h = useService()

/** A view of a report from an address of its own, unless `from` names one (the public reads' budget is per address). */
const view = (reportUuid: string, headers: Record<string, string> = {}, from = freshIp()) =>
  fetch(`${h.baseUrl}/reports/${reportUuid}`, { headers: { 'x-forwarded-for': from, ...headers } })

/** Views of public reports so far, by where their figures came from (adapi_public_report_views_total). */
async function reportViews(): Promise<{ store: number; kept: number }> {
  const res = await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  const scrape = new Scrape(await res.text())
  return { store: scrape.value('adapi_public_report_views_total', { figures: 'store' }), kept: scrape.value('adapi_public_report_views_total', { figures: 'kept' }) }
}

async function sharedCampaign() {
  const portal = new PortalClient(h.baseUrl)
  const email = `report-${process.pid}-${Math.random().toString(36).slice(2)}@example.dev`
  const userId = await portal.signUp(email)
  for (const [path, body] of [
    ['write-approval', { approved: true }],
    ['terms', { accepted: true }],
    ['billing', { mode: 'weekly_autopay', card_number: '4242424242424242' }],
  ] as const) assert.equal((await h.admin.post(`/admin/v1/accounts/${userId}/${path}`, body)).status, 200)
  const apiKey = (await h.admin.post(`/admin/v1/accounts/${userId}/rotate-key`)).body.api_key as string
  const adv = new Client(h, { 'x-service-user-id': userId, 'x-service-api-key': apiKey })
  const country = privateCountry()
  const created = await adv.post('/v1/campaigns', campaignBody({ name: 'Spring push', brand: 'Acme CI', cpm_usd: 90, target_countries: [country] }))
  assert.equal(created.status, 201, created.text)
  const campaignId: string = created.body.campaign_id
  const share = await portal.post(`/portal/campaigns/${campaignId}/share`, {}, await portal.get(`/portal/campaigns/${campaignId}`))
  assert.equal(share.status, 303, share.text.slice(0, 300))
  const reportUuid: string = (await adv.get(`/v1/campaigns/${campaignId}`)).body.report_uuid
  return { portal, adv, email, userId, apiKey, campaignId, reportUuid, country }
}

test('a shared report shows the campaign and its delivery, never account data, sets no cookie and is revalidated by ETag', async () => {
  const s = await sharedCampaign()
  assert.match(s.reportUuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  assert.equal(await deliver(h, s.country, 3), 3)

  const res = await view(s.reportUuid)
  assert.equal(res.status, 200)
  const html = await res.text()
  assert.match(html, /<h1>Spring push<\/h1>/)
  assert.match(html, /Acme CI/)
  assert.match(html, /<span class="ad">Ad · Acme CI · Ship faster with Acme CI<\/span>/, 'the ad as the status line prints it, disclosed (issue 51)')
  // The chart starts where its caption says, at the campaign's start, not a day before it (issue 51).
  assert.match(html, /since the campaign started/)
  assert.deepEqual([...html.matchAll(/<text class="tick" x="[^"]*" y="266"[^>]*>([^<]+)<\/text>/g)].map((m) => m[1])[0], 'Nov 2, 09:00')
  assert.match(html, /3 <span class="muted">of 3,000<\/span>/)
  assert.match(html, new RegExp(`Country ${s.country}`))
  for (const secret of [s.email, s.userId, s.apiKey, s.campaignId, '$90', '90.00', 'billing']) assert.ok(!html.includes(secret), `the report shows ${secret}`)
  assert.equal(res.headers.getSetCookie().length, 0, 'no cookie on a public page')
  assert.equal(res.headers.get('x-robots-tag'), 'noindex')
  assert.equal(res.headers.get('cache-control'), 'public, no-cache')
  assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/)
  const etag = res.headers.get('etag')!
  assert.equal((await view(s.reportUuid, { 'if-none-match': etag })).status, 304)
  // New delivery changes the page once the figures are read again (a minute later), so the old ETag no longer matches.
  assert.equal(await deliver(h, s.country, 1), 1)
  await advance(h, 60)
  const next = await view(s.reportUuid, { 'if-none-match': etag })
  assert.equal(next.status, 200)
  assert.match(await next.text(), /4 <span class="muted">of 3,000<\/span>/)
})

test('"Stop sharing" makes the old address 404 at once; sharing again gives a new uuid', async () => {
  const s = await sharedCampaign()
  const page = await s.portal.get(`/portal/campaigns/${s.campaignId}`)
  assert.match(page.text, new RegExp(`/reports/${s.reportUuid}`))
  assert.equal((await s.portal.post(`/portal/campaigns/${s.campaignId}/unshare`, {}, page)).status, 303)
  assert.equal((await s.adv.get(`/v1/campaigns/${s.campaignId}`)).body.report_uuid, null)
  const gone = await view(s.reportUuid)
  assert.equal(gone.status, 404)
  assert.match(await gone.text(), /<title>Page not found/)
  assert.equal((await s.portal.post(`/portal/campaigns/${s.campaignId}/share`, {}, await s.portal.get(`/portal/campaigns/${s.campaignId}`))).status, 303)
  const again = (await s.adv.get(`/v1/campaigns/${s.campaignId}`)).body.report_uuid
  assert.ok(again && again !== s.reportUuid)
  assert.equal((await view(again)).status, 200)
})

test('unknown, malformed and never-shared report ids are 404', async () => {
  for (const id of [crypto.randomUUID(), 'not-a-uuid', "1' OR '1'='1", crypto.randomUUID().toUpperCase()]) {
    assert.equal((await view(encodeURIComponent(id))).status, 404, id)
  }
})

test('one source gets 429 with Retry-After after the public reads\' per-address limit; other sources still read the report', async () => {
  const s = await sharedCampaign()
  const from = freshIp()
  // Rapid views from one address: the budget of GET /v1/status (120 a minute), unknown uuids included.
  const answers = await Promise.all(Array.from({ length: 120 }, (_, i) => view(i % 2 ? s.reportUuid : crypto.randomUUID(), {}, from)))
  assert.deepEqual([...new Set(answers.map((r) => r.status))].sort(), [200, 404])
  const limited = await view(s.reportUuid, {}, from)
  assert.equal(limited.status, 429)
  assert.ok(Number(limited.headers.get('retry-after')) >= 1, 'Retry-After')
  assert.match(limited.headers.get('content-type')!, /^text\/html/)
  assert.match(await limited.text(), /Too many requests/)
  assert.equal((await fetch(`${h.baseUrl}/v1/status`, { headers: { 'x-forwarded-for': from } })).status, 429, 'the same budget as GET /v1/status')
  assert.equal((await view(s.reportUuid)).status, 200, 'another address is not affected')
  // The next minute's window admits the address again.
  await advance(h, 60)
  assert.equal((await view(s.reportUuid, {}, from)).status, 200)
})

test('a report\'s figures are read once for the life of its ETag: 60 parallel views and every repeat within the minute reuse them', async () => {
  const s = await sharedCampaign()
  assert.equal(await deliver(h, s.country, 2), 2)
  const before = await reportViews()
  const burst = await Promise.all(Array.from({ length: 60 }, () => view(s.reportUuid)))
  assert.ok(burst.every((r) => r.status === 200))
  const etag = burst[0]!.headers.get('etag')!
  assert.ok(burst.every((r) => r.headers.get('etag') === etag), 'one page, one ETag')
  let after = await reportViews()
  assert.deepEqual([after.store - before.store, after.kept - before.kept], [1, 59], 'the stats reads ran for one view; the other 59 shared them')

  // Delivery within the minute does not re-read: the same page, so a revalidation is 304.
  assert.equal(await deliver(h, s.country, 1), 1)
  await advance(h, 30)
  for (let i = 0; i < 5; i++) assert.equal((await view(s.reportUuid, { 'if-none-match': etag })).status, 304)
  after = await reportViews()
  assert.deepEqual([after.store - before.store, after.kept - before.kept], [1, 64])

  // A minute after the read (the advance in deliver counts too), the figures are read again: the new delivery, a new ETag.
  await advance(h, 20)
  const fresh = await view(s.reportUuid, { 'if-none-match': etag })
  assert.equal(fresh.status, 200)
  assert.notEqual(fresh.headers.get('etag'), etag)
  assert.match(await fresh.text(), /3 <span class="muted">of 3,000<\/span>/)
  after = await reportViews()
  assert.deepEqual([after.store - before.store, after.kept - before.kept], [2, 64])
})

test('"Stop sharing" answers 404 at once even while the report\'s figures are kept', async () => {
  const s = await sharedCampaign()
  const first = await view(s.reportUuid)
  assert.equal(first.status, 200)
  const etag = first.headers.get('etag')!
  assert.equal((await view(s.reportUuid)).status, 200)
  assert.equal((await s.portal.post(`/portal/campaigns/${s.campaignId}/unshare`, {}, await s.portal.get(`/portal/campaigns/${s.campaignId}`))).status, 303)
  const before = await reportViews()
  assert.equal((await view(s.reportUuid)).status, 404)
  assert.equal((await view(s.reportUuid, { 'if-none-match': etag })).status, 404, 'not even a 304 to a cache that holds the page')
  assert.deepEqual(await reportViews(), before, 'no figures served')
})

test('the kept figures are bounded by weight: past the bound, the least recently viewed report is read again', async () => {
  const [a, b, c] = [await sharedCampaign(), await sharedCampaign(), await sharedCampaign()]
  const ctx = { db: h.svc.service.store.db, clock: h.svc.clock, settings: loadSettings({}) }
  // Three reports of one shape (campaigns of the same hour): a bound of two and a half holds two of them.
  const weight = reportWeight(await publicReportReader(ctx)(a.reportUuid))
  const sources: ReportSource[] = []
  const read = publicReportReader(ctx, (from) => sources.push(from), Math.floor(2.5 * weight))
  await read(a.reportUuid)
  await read(b.reportUuid)
  await read(a.reportUuid)
  assert.deepEqual(sources.splice(0), ['store', 'store', 'kept'])
  await read(c.reportUuid) // over the bound: b, the least recently viewed, goes
  await read(a.reportUuid)
  await read(c.reportUuid)
  await read(b.reportUuid)
  assert.deepEqual(sources.splice(0), ['store', 'kept', 'kept', 'store'])
})
