import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService } from '../helpers/api.ts'
import { advance, deliver, privateCountry } from '../helpers/serving.ts'
import { chartData, chartLabel, fieldError, inputValue, visibleText } from '../helpers/html.ts'
import { portalAdvertiser, signInAgain, type PortalAdvertiser } from '../helpers/portal.ts'

// The clock starts Monday 2026-11-02 09:00 UTC (test/helpers/service.ts).
const PUBLIC_URL = 'http://portal.example.test'
const h = useService({ PUBLIC_URL }, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null })

const BORDERLINE_LINE = 'Instant loans for freelancers' // lending: accepted, held for review

async function newCampaign(adv: PortalAdvertiser, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await adv.api.post('/v1/campaigns', campaignBody(overrides))
  assert.equal(res.status, 201, res.text)
  return res.body.campaign_id
}

const apiCampaign = async (adv: PortalAdvertiser, id: string) => {
  const res = await adv.api.get(`/v1/campaigns/${id}`)
  assert.equal(res.status, 200, res.text)
  return res.body
}

const buttons = (html: string) => [...html.matchAll(/<button[^>]*>([\s\S]*?)<\/button>/g)].map((m) => visibleText(m[1]!))

test('the campaign page shows status, order, blocks, the creative and an empty delivery chart', async () => {
  const adv = await portalAdvertiser(h)
  const id = await newCampaign(adv, { name: 'Autumn launch', brand: 'Acme', impressions: 3000, cpm_usd: 2.5 })
  const page = await adv.browser.get(`/portal/campaigns/${id}`)
  assert.equal(page.status, 200)
  assert.match(page.headers.get('content-type') ?? '', /text\/html/)
  assert.match(page.text, /<title>Autumn launch · Advertiser portal<\/title>/)
  assert.equal(page.text.match(/<h1/g)?.length, 1)
  assert.match(page.text, /<h1>Autumn launch<\/h1>/)
  const text = visibleText(page.text)
  assert.match(text, /Status Active/)
  assert.match(text, /Served \/ bought 0 \/ 3,000/)
  assert.match(text, /Spend \$0\.00/)
  assert.match(text, /Bid \(CPM, USD\) \$2\.50 per 1,000 impressions/)
  assert.match(text, /Kind Impression/)
  assert.match(text, /Target surface Editor extension/)
  assert.match(text, /Target countries Everywhere/)
  // Blocks: index, status, served/target, started, exhausted.
  assert.match(text, /1 Serving 0 \/ 1,000 2026-11-02 09:00 UTC —/)
  assert.match(text, /2 Queued 0 \/ 1,000 — —/)
  assert.match(text, /3 Queued 0 \/ 1,000 — —/)
  assert.match(text, /Ship faster with Acme CI https:\/\/acme\.dev\/ci Acme Approved/)
  assert.deepEqual(buttons(page.text).filter((b) => b !== 'Sign out'), ['Pause', 'Preview', 'Cancel campaign', 'Rename', 'Rewrite ad line', 'Share report'])
  assert.equal(inputValue(page.text, 'name'), 'Autumn launch')
  assert.equal(inputValue(page.text, 'ad_line'), 'Ship faster with Acme CI')
  assert.match(page.text, /<label for="f-name">Name<\/label>/)
  assert.match(page.text, /<label for="f-ad_line">Ad line<\/label>/)

  // A young campaign is drawn by the hour, from the hour it was created; nothing delivered yet.
  assert.match(page.text, /<svg class="timeline" width="100%" height="280" role="group" aria-label="/)
  assert.match(page.text, /No delivery in this period/)
  assert.match(chartLabel(page.text, 'delivery-impressions'), /^Billable impressions by hour, .*: no delivery in this period\. The last is in progress \(so far: this hour is not over\)\.$/)
  const hours = chartData(page.text, 'delivery-impressions')
  assert.deepEqual(hours[0], ['2026-11-02 09:00 UTC (so far: this hour is not over)', '0'])
  assert.ok(hours.every(([, v]) => v === '0'))
  assert.ok(!/style=/.test(page.text), 'no inline style (CSP)')
  assert.ok(!/<script>/.test(page.text), 'no inline script (CSP)')
})

test('delivery changes the counts and the chart, by the hour and then by the day, with the numbers of /v1/stats', async () => {
  const adv = await portalAdvertiser(h)
  const country = privateCountry()
  // A bid above the other tests' campaigns (they serve everywhere), so this one wins its country's auctions.
  const id = await newCampaign(adv, { target_countries: [country], impressions: 2000, cpm_usd: 4 })
  const created = new Date((await apiCampaign(adv, id)).created_at)
  assert.equal(await deliver(h, country, 3), 3)

  let page = await adv.browser.get(`/portal/campaigns/${id}`)
  let text = visibleText(page.text)
  assert.match(text, /Served \/ bought 3 \/ 2,000/)
  // 3 × $4 / 1,000 = $0.012 delivered: the card and the chart write spend the same way, exactly (format.ts usdSpend).
  assert.match(text, /Spend \$0\.012 /)
  assert.match(text, /1 Serving 3 \/ 1,000/)
  const hourStart = `${created.toISOString().slice(0, 13)}:00`.replace('T', ' ')
  // The hour in progress is said to be so in the data (and drawn lighter).
  const impressions = chartData(page.text, 'delivery-impressions').map(([t, v]) => [t.replace(/ \(so far: this hour is not over\)$/, ''), v])
  assert.deepEqual(impressions.find(([t]) => t === `${hourStart} UTC`), [`${hourStart} UTC`, '3'])
  assert.deepEqual(
    chartData(page.text, 'delivery-spend').find(([t]) => t.startsWith(`${hourStart} UTC`)),
    [`${hourStart} UTC (so far: this hour is not over)`, '$0.012'],
  )
  assert.match(page.text, /<rect class="bar primary partial shape"/)
  assert.match(chartLabel(page.text, 'delivery-impressions'), /3 in total; highest 3 at /)
  assert.doesNotMatch(page.text, /No delivery in this period/)

  // The same numbers as GET /v1/stats over the chart's window, with the campaign as the filter.
  const start = new Date(created)
  start.setUTCMinutes(0, 0, 0)
  const end = new Date(h.svc.clock.now())
  end.setUTCMinutes(0, 0, 0)
  end.setUTCHours(end.getUTCHours() + 1)
  const stats = await adv.api.get(`/v1/stats?granularity=hour&campaign_id=${id}&start=${start.toISOString()}&end=${end.toISOString()}`)
  assert.equal(stats.status, 200, stats.text)
  assert.equal(stats.body.totals.billable_impressions, 3)
  assert.equal(impressions.length, (end.getTime() - start.getTime()) / 3_600_000, 'one row per hour of the window, empty hours included')
  for (const point of stats.body.points) {
    const label = `${point.bucket.slice(0, 10)} ${point.bucket.slice(11, 16)} UTC`
    assert.deepEqual(impressions.find(([t]) => t === label), [label, String(point.billable_impressions)])
  }

  // Two days later the chart is by the day, from the day of creation through today.
  await advance(h, 2 * 86_400 + 3_600)
  assert.equal(await deliver(h, country, 2), 2)
  await signInAgain(adv) // two idle days ended the session
  page = await adv.browser.get(`/portal/campaigns/${id}`)
  text = visibleText(page.text)
  assert.match(text, /Served \/ bought 5 \/ 2,000/)
  const days = chartData(page.text, 'delivery-impressions')
  const today = h.svc.clock.now().toISOString().slice(0, 10)
  assert.equal(days[0]![0], created.toISOString().slice(0, 10))
  assert.deepEqual(days[0], [created.toISOString().slice(0, 10), '3'])
  assert.deepEqual(days[days.length - 1], [`${today} (so far: today is not over)`, '2'])
  assert.equal(days.length, 3)
  assert.deepEqual(chartData(page.text, 'delivery-spend')[days.length - 1], [`${today} (so far: today is not over)`, '$0.008'])
  assert.match(chartLabel(page.text, 'delivery-impressions'), /^Billable impressions by day, .*5 in total/)
})

test('pause, resume, rename and rewrite the line through the forms', async () => {
  const adv = await portalAdvertiser(h)
  const id = await newCampaign(adv, { name: 'Before' })
  const path = `/portal/campaigns/${id}`
  await adv.browser.get(path)

  const paused = await adv.browser.post(`${path}/pause`)
  assert.equal(paused.status, 303)
  assert.equal(paused.location, `${path}?notice=campaign_paused`)
  assert.equal((await apiCampaign(adv, id)).status, 'paused')
  let page = await adv.browser.get(paused.location!)
  assert.match(visibleText(page.text), /Campaign paused\./)
  assert.match(visibleText(page.text), /Status Paused/)
  assert.ok(buttons(page.text).includes('Resume') && !buttons(page.text).includes('Pause'))

  const resumed = await adv.browser.post(`${path}/resume`)
  assert.equal(resumed.status, 303)
  assert.equal((await apiCampaign(adv, id)).status, 'active')

  const renamed = await adv.browser.post(`${path}/rename`, { name: '  Winter sale  ' })
  assert.equal(renamed.status, 303)
  assert.equal(renamed.location, `${path}?notice=campaign_renamed`)
  assert.equal((await apiCampaign(adv, id)).name, 'Winter sale')

  const rewritten = await adv.browser.post(`${path}/ad-line`, { ad_line: 'Deploy previews with Acme CD' })
  assert.equal(rewritten.status, 303)
  let campaign = await apiCampaign(adv, id)
  assert.equal(campaign.ad_line, 'Deploy previews with Acme CD')
  assert.equal(campaign.creatives[0].ad_line, 'Deploy previews with Acme CD')
  page = await adv.browser.get(rewritten.location!)
  assert.match(visibleText(page.text), /Ad line rewritten\./)

  // Refusals are shown beside the field, with what was typed, never as JSON.
  const empty = await adv.browser.post(`${path}/rename`, { name: '' })
  assert.equal(empty.status, 400)
  assert.match(empty.headers.get('content-type') ?? '', /text\/html/)
  assert.equal(fieldError(empty.text, 'name'), 'Enter a name.')
  assert.match(empty.text, /<a href="#f-name">Enter a name\.<\/a>/, 'the summary at the top links to the field')
  const long = await adv.browser.post(`${path}/rename`, { name: 'x'.repeat(121) })
  assert.equal(long.status, 400)
  assert.equal(fieldError(long.text, 'name'), 'Use at most 120 characters.')
  assert.equal(inputValue(long.text, 'name'), 'x'.repeat(121), 'the form keeps what was typed')
  const blank = await adv.browser.post(`${path}/rename`, { name: '\u200b\u200b' })
  assert.equal(blank.status, 400)
  assert.equal(fieldError(blank.text, 'name'), 'Enter a name with visible characters, not only spaces.')

  const short = await adv.browser.post(`${path}/ad-line`, { ad_line: 'ok' })
  assert.equal(short.status, 400)
  assert.equal(fieldError(short.text, 'ad_line'), 'Use at least 3 characters.')
  assert.equal(inputValue(short.text, 'ad_line'), 'ok')
  const unsafe = await adv.browser.post(`${path}/ad-line`, { ad_line: 'Free CASINO bonus tonight' })
  assert.equal(unsafe.status, 400)
  assert.equal(fieldError(unsafe.text, 'ad_line'), 'The content-safety screen refused this line (gambling). Write a different line.')
  campaign = await apiCampaign(adv, id)
  assert.equal(campaign.name, 'Winter sale', 'refused edits change nothing')
  assert.equal(campaign.ad_line, 'Deploy previews with Acme CD')

  // A borderline line is accepted and waits for review.
  assert.equal((await adv.browser.post(`${path}/ad-line`, { ad_line: BORDERLINE_LINE })).status, 303)
  page = await adv.browser.get(path)
  assert.match(visibleText(page.text), new RegExp(`${BORDERLINE_LINE} .* Pending review`))
})

test('cancel asks first; after it the page offers no lifecycle button and a stale form gets the 409 on the page', async () => {
  const adv = await portalAdvertiser(h)
  const id = await newCampaign(adv)
  const path = `/portal/campaigns/${id}`
  const confirm = await adv.browser.get(`${path}/cancel`)
  assert.equal(confirm.status, 200)
  assert.match(confirm.text, /<h1>Cancel this campaign\?<\/h1>/)
  assert.ok(buttons(confirm.text).includes('Yes, cancel campaign'))
  assert.match(confirm.text, /<form method="get" action="[^"]*"|href="\/portal\/campaigns\//)
  assert.equal((await apiCampaign(adv, id)).status, 'active', 'the confirmation page changes nothing')

  const cancelled = await adv.browser.post(`${path}/cancel`)
  assert.equal(cancelled.status, 303)
  assert.equal(cancelled.location, `${path}?notice=campaign_cancelled`)
  assert.equal((await apiCampaign(adv, id)).status, 'cancelled_user')
  const page = await adv.browser.get(cancelled.location!)
  assert.match(visibleText(page.text), /Status Cancelled/)
  assert.deepEqual(buttons(page.text).filter((b) => b !== 'Sign out'), ['Preview', 'Rename', 'Share report'])

  for (const action of ['pause', 'resume', 'cancel']) {
    const stale = await adv.browser.post(`${path}/${action}`)
    assert.equal(stale.status, 409, action)
    assert.match(stale.headers.get('content-type') ?? '', /text\/html/)
    assert.match(stale.text, /<p class="form-error" role="alert">/)
  }
  assert.match(visibleText((await adv.browser.post(`${path}/pause`)).text), /A cancelled campaign cannot be paused\./)
  const rewrite = await adv.browser.post(`${path}/ad-line`, { ad_line: 'Too late for a new line' })
  assert.equal(rewrite.status, 409)
  assert.match(visibleText(rewrite.text), /A cancelled campaign has no live ad line to rewrite\./)
  const again = await adv.browser.get(`${path}/cancel`)
  assert.equal(again.status, 200)
  assert.ok(!buttons(again.text).includes('Yes, cancel campaign'))
  assert.match(visibleText(again.text), /already cancelled/)
})

test('"Share report" and "Stop sharing" set and clear report_uuid', async () => {
  const adv = await portalAdvertiser(h)
  const id = await newCampaign(adv)
  const path = `/portal/campaigns/${id}`
  await adv.browser.get(path)
  assert.equal((await apiCampaign(adv, id)).report_uuid, null)

  const shared = await adv.browser.post(`${path}/share`)
  assert.equal(shared.status, 303)
  assert.equal(shared.location, `${path}?notice=report_shared#share`, "back at the public report's section")
  const uuid = (await apiCampaign(adv, id)).report_uuid
  assert.match(uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a random (v4) UUID')
  let page = await adv.browser.get(shared.location!)
  assert.match(page.text, new RegExp(`<a href="${PUBLIC_URL}/reports/${uuid}">Public report</a>`))
  assert.ok(buttons(page.text).includes('Stop sharing') && !buttons(page.text).includes('Share report'))

  assert.equal((await adv.browser.post(`${path}/share`)).status, 303)
  assert.equal((await apiCampaign(adv, id)).report_uuid, uuid, 'sharing again keeps the address')

  const other = await newCampaign(adv)
  await adv.browser.post(`/portal/campaigns/${other}/share`)
  assert.notEqual((await apiCampaign(adv, other)).report_uuid, uuid)

  const stopped = await adv.browser.post(`${path}/unshare`)
  assert.equal(stopped.status, 303)
  assert.equal(stopped.location, `${path}?notice=report_unshared#share`)
  assert.equal((await apiCampaign(adv, id)).report_uuid, null)
  page = await adv.browser.get(path)
  assert.doesNotMatch(page.text, /Public report<\/a>/)
  assert.ok(buttons(page.text).includes('Share report'))
})

test('"Preview" makes a preview like the API and links to its page', async () => {
  const adv = await portalAdvertiser(h)
  const id = await newCampaign(adv, { ad_line: 'Preview me on both surfaces' })
  await adv.browser.get(`/portal/campaigns/${id}`)
  const res = await adv.browser.post(`/portal/campaigns/${id}/preview`)
  assert.equal(res.status, 200)
  const url = /<a href="([^"]+\/preview\/pv_[A-Za-z0-9]+)">/.exec(res.text)?.[1]
  assert.ok(url, 'the page links to the preview_url')
  assert.ok(url.startsWith(`${PUBLIC_URL}/preview/`))
  const preview = await fetch(h.baseUrl + new URL(url).pathname)
  assert.equal(preview.status, 200)
  assert.match(await preview.text(), /Preview me on both surfaces/)
})

test('write prerequisites are refused on the page (403); taking a report down stays allowed', async () => {
  const adv = await portalAdvertiser(h)
  const id = await newCampaign(adv)
  const path = `/portal/campaigns/${id}`
  await adv.browser.get(path)
  assert.equal((await adv.browser.post(`${path}/share`)).status, 303)
  assert.equal((await h.admin.post(`/admin/v1/accounts/${adv.userId}/writes`, { enabled: false })).status, 200)

  const api = await adv.api.post(`/v1/campaigns/${id}/pause`)
  assert.equal(api.status, 403)
  for (const [action, form] of [['pause', {}], ['rename', { name: 'New name' }], ['share', {}]] as const) {
    const res = await adv.browser.post(`${path}/${action}`, form)
    assert.equal(res.status, 403, action)
    assert.match(res.headers.get('content-type') ?? '', /text\/html/)
    assert.match(visibleText(res.text), /Campaign writes are disabled for this account\. See what is missing/)
    assert.match(res.text, /<a href="\/portal">See what is missing<\/a>/)
  }
  const campaign = await apiCampaign(adv, id)
  assert.equal(campaign.status, 'active')
  assert.notEqual(campaign.name, 'New name')
  assert.equal((await adv.browser.post(`${path}/unshare`)).status, 303)
  assert.equal((await apiCampaign(adv, id)).report_uuid, null)
})

test('a rejected creative shows the operator\'s reason, also in the API', async () => {
  const adv = await portalAdvertiser(h)
  const id = await newCampaign(adv, { ad_line: BORDERLINE_LINE })
  let creative = (await apiCampaign(adv, id)).creatives[0]
  assert.equal(creative.moderation_status, 'pending')
  assert.equal(creative.moderation_reason, null, 'while pending, the screening category is for operators only')
  let page = await adv.browser.get(`/portal/campaigns/${id}`)
  assert.match(visibleText(page.text), /Pending review/)

  const reason = 'Lending offers need the lender licence number in the line'
  const decided = await h.admin.post(`/admin/v1/campaigns/${id}/moderation`, { status: 'rejected', reason })
  assert.equal(decided.status, 200, decided.text)
  creative = (await apiCampaign(adv, id)).creatives[0]
  assert.equal(creative.moderation_status, 'rejected')
  assert.equal(creative.moderation_reason, reason)
  assert.equal((await adv.api.get(`/v1/creatives/${creative.creative_id}`)).body.moderation_reason, reason)
  page = await adv.browser.get(`/portal/campaigns/${id}`)
  assert.match(visibleText(page.text), new RegExp(`Rejected Reason: ${reason}`))

  assert.equal((await h.admin.post(`/admin/v1/campaigns/${id}/moderation`, { status: 'approved' })).status, 200)
  assert.equal((await apiCampaign(adv, id)).creatives[0].moderation_reason, null, 'an approval clears the reason')
})

test('a form posted without its CSRF token (or with a wrong one) is refused with 403 and changes nothing', async () => {
  const adv = await portalAdvertiser(h)
  const id = await newCampaign(adv)
  const path = `/portal/campaigns/${id}`
  await adv.browser.get(path)
  for (const csrf of [null, 'not-the-token'] as const) {
    for (const [action, form] of [['pause', {}], ['rename', { name: 'Forged' }], ['share', {}], ['cancel', {}]] as const) {
      const res = await adv.browser.post(`${path}/${action}`, form, csrf)
      assert.equal(res.status, 403, `${action} with csrf ${csrf}`)
      assert.match(res.headers.get('content-type') ?? '', /text\/html/)
      assert.match(visibleText(res.text), /This form has expired or did not come from this site/)
    }
  }
  const campaign = await apiCampaign(adv, id)
  assert.equal(campaign.status, 'active')
  assert.notEqual(campaign.name, 'Forged')
  assert.equal(campaign.report_uuid, null)
})

test('another account\'s campaign, or an unknown one, is the 404 page', async () => {
  const owner = await portalAdvertiser(h)
  const other = await portalAdvertiser(h)
  const id = await newCampaign(owner)
  for (const target of [id, 'cmp_doesnotexist']) {
    const path = `/portal/campaigns/${target}`
    for (const get of [path, `${path}/cancel`]) {
      const res = await other.browser.get(get)
      assert.equal(res.status, 404, get)
      assert.match(res.text, /<h1>Page not found<\/h1>/)
    }
    for (const [action, form] of [['pause', {}], ['resume', {}], ['cancel', {}], ['rename', { name: 'Mine now' }], ['ad-line', { ad_line: 'Mine now too' }], ['preview', {}], ['share', {}], ['unshare', {}]] as const) {
      const res = await other.browser.post(`${path}/${action}`, form)
      assert.equal(res.status, 404, `${action} on ${target}`)
      assert.match(res.headers.get('content-type') ?? '', /text\/html/)
    }
  }
  // A refusal at the edge (input rules) on a foreign campaign is still the 404, not the owner's page.
  const edge = await other.browser.post(`/portal/campaigns/${id}/rename`, { name: 'a\u0001b' })
  assert.equal(edge.status, 404)
  const campaign = await apiCampaign(owner, id)
  assert.equal(campaign.status, 'active')
  assert.notEqual(campaign.name, 'Mine now')
  assert.equal(campaign.report_uuid, null)
})

test('without a session the campaign page sends to sign-in and back', async () => {
  const adv = await portalAdvertiser(h)
  const id = await newCampaign(adv)
  const res = await fetch(`${h.baseUrl}/portal/campaigns/${id}`, { redirect: 'manual' })
  assert.equal(res.status, 303)
  assert.equal(res.headers.get('location'), `/portal/login?next=${encodeURIComponent(`/portal/campaigns/${id}`)}`)
})

test('a click campaign\'s page counts in clicks (bought, delivered, left) and shows clicks and CTR', async () => {
  const adv = await portalAdvertiser(h)
  const country = privateCountry()
  // $400 per 1,000 clicks at the prior's 1 % CTR is worth $4.00 per 1,000 impressions: it outbids the file's untargeted campaigns.
  const id = await newCampaign(adv, { name: 'Click launch', kind: 'click', impressions: 2000, cpm_usd: 400, target_countries: [country] })
  const offers = await Promise.all(Array.from({ length: 4 }, (_, i) => adv.api.post('/serve/v1/decisions', { surface: 'extension', country, viewer_id: `page-click-${process.pid}-${i}` })))
  await advance(h, 10)
  for (const o of offers) assert.equal((await adv.api.post(`/serve/v1/impressions/${o.body.impression_id}/view`, { dwell_ms: 10_000 })).status, 204)
  assert.equal((await adv.api.get(new URL(offers[0]!.body.click_url).pathname)).status, 302)
  const page = await adv.browser.get(`/portal/campaigns/${id}`)
  assert.equal(page.status, 200)
  const text = visibleText(page.text)
  assert.match(text, /Served \/ bought 1 \/ 2,000 Billable clicks/)
  assert.match(text, /Clicks \/ CTR 1 \/ 25\.00 % Clicks over 4 billable impressions/)
  assert.match(text, /Spend \$0\.40 Delivered value so far, of at most \$800\.00/)
  assert.match(text, /Blocks of 1,000 clicks, delivered in order/)
  assert.match(text, /1 Serving 1 \/ 1,000/)
  assert.match(text, /Kind Click/)
  assert.match(text, /Bid \(CPM, USD\) \$400\.00 per 1,000 clicks/)
  assert.match(text, /Bought 2,000 clicks in 2 blocks/)
  const cancel = visibleText((await adv.browser.get(`/portal/campaigns/${id}/cancel`)).text)
  assert.match(cancel, /The 1 clicks delivered so far \(\$0\.40\) are billed; the other 1,999 never are\./)
})
