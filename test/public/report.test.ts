import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, Client, useService } from '../helpers/api.ts'
import { PortalClient } from '../helpers/portal.ts'
import { deliver, privateCountry } from '../helpers/serving.ts'

/**
 * The shareable report (operations.md section 5) over real HTTP: shared and
 * revoked from the portal, public, without cookies or account data, with the
 * delivery of the same statistics as /v1/stats.
 */
const h = useService()

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

  const res = await fetch(`${h.baseUrl}/reports/${s.reportUuid}`)
  assert.equal(res.status, 200)
  const html = await res.text()
  assert.match(html, /<h1>Spring push<\/h1>/)
  assert.match(html, /Acme CI/)
  assert.match(html, /Ship faster with Acme CI…/, 'the ad line as the status line renders it')
  assert.match(html, /3 <span class="muted">of 3,000<\/span>/)
  assert.match(html, new RegExp(`Country ${s.country}`))
  for (const secret of [s.email, s.userId, s.apiKey, s.campaignId, '$90', '90.00', 'billing']) assert.ok(!html.includes(secret), `the report shows ${secret}`)
  assert.equal(res.headers.getSetCookie().length, 0, 'no cookie on a public page')
  assert.equal(res.headers.get('x-robots-tag'), 'noindex')
  assert.equal(res.headers.get('cache-control'), 'public, no-cache')
  assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/)
  const etag = res.headers.get('etag')!
  assert.equal((await fetch(`${h.baseUrl}/reports/${s.reportUuid}`, { headers: { 'if-none-match': etag } })).status, 304)
  // New delivery changes the page, so the old ETag no longer matches.
  assert.equal(await deliver(h, s.country, 1), 1)
  assert.equal((await fetch(`${h.baseUrl}/reports/${s.reportUuid}`, { headers: { 'if-none-match': etag } })).status, 200)
})

test('"Stop sharing" makes the old address 404 at once; sharing again gives a new uuid', async () => {
  const s = await sharedCampaign()
  const page = await s.portal.get(`/portal/campaigns/${s.campaignId}`)
  assert.match(page.text, new RegExp(`/reports/${s.reportUuid}`))
  assert.equal((await s.portal.post(`/portal/campaigns/${s.campaignId}/unshare`, {}, page)).status, 303)
  assert.equal((await s.adv.get(`/v1/campaigns/${s.campaignId}`)).body.report_uuid, null)
  const gone = await fetch(`${h.baseUrl}/reports/${s.reportUuid}`)
  assert.equal(gone.status, 404)
  assert.match(await gone.text(), /<title>Page not found/)
  assert.equal((await s.portal.post(`/portal/campaigns/${s.campaignId}/share`, {}, await s.portal.get(`/portal/campaigns/${s.campaignId}`))).status, 303)
  const again = (await s.adv.get(`/v1/campaigns/${s.campaignId}`)).body.report_uuid
  assert.ok(again && again !== s.reportUuid)
  assert.equal((await fetch(`${h.baseUrl}/reports/${again}`)).status, 200)
})

test('unknown, malformed and never-shared report ids are 404', async () => {
  for (const id of [crypto.randomUUID(), 'not-a-uuid', "1' OR '1'='1", crypto.randomUUID().toUpperCase()]) {
    assert.equal((await fetch(`${h.baseUrl}/reports/${encodeURIComponent(id)}`)).status, 404, id)
  }
})
