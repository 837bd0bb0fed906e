import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService } from '../helpers/api.ts'
import { advance, decide, deliver, offersWritten, privateCountry } from '../helpers/serving.ts'
import { chartData, chartLabel, fieldError, inputValue, selectedOption, visibleText } from '../helpers/html.ts'
import { portalAdvertiser, signInAgain, type PortalAdvertiser } from '../helpers/portal.ts'

// The clock starts Monday 2026-11-02 09:00 UTC (test/helpers/service.ts).
const h = useService({}, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null })

async function newCampaign(adv: PortalAdvertiser, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await adv.api.post('/v1/campaigns', campaignBody(overrides))
  assert.equal(res.status, 201, res.text)
  return res.body.campaign_id
}

const options = (html: string, name: string) =>
  [...(new RegExp(`<select id="f-${name}"[\\s\\S]*?</select>`).exec(html)?.[0] ?? '').matchAll(/<option value(?:="([^"]*)")?[^>]*>([^<]*)</g)].map((m) => [m[1] ?? '', m[2]])

test('the stats page opens on today by the hour, says where the closed days end and the live part begins, and offers presets', async () => {
  const adv = await portalAdvertiser(h)
  const page = await adv.browser.get('/portal/stats')
  assert.equal(page.status, 200)
  assert.match(page.text, /<title>Stats · Advertiser portal<\/title>/)
  assert.equal(page.text.match(/<h1/g)?.length, 1)
  assert.match(page.text, /<a href="\/portal\/stats" aria-current="page">Stats<\/a>/)
  assert.match(page.text, /<form method="get" action="\/portal\/stats"/)
  for (const [id, label] of [['granularity', 'Granularity'], ['start', 'Start'], ['end', 'End'], ['campaign_id', 'Campaign']]) {
    assert.match(page.text, new RegExp(`<label for="f-${id}">${label}</label>`))
  }
  assert.match(page.text, /<button type="submit">Show<\/button>/)
  assert.equal(selectedOption(page.text, 'granularity'), 'hour')
  assert.equal(selectedOption(page.text, 'campaign_id'), '')

  // Today, by the hour: the same window as GET /v1/stats from today's midnight to tomorrow's.
  const now = h.svc.clock.now()
  const today = now.toISOString().slice(0, 10)
  assert.equal(inputValue(page.text, 'start'), today)
  assert.equal(inputValue(page.text, 'end'), today)
  // The hours so far (through the one in progress), not the rest of the day.
  const hours = chartData(page.text, 'stats-impressions')
  assert.equal(hours.length, now.getUTCHours() + 1)
  assert.match(hours[hours.length - 1]![0], /\(so far: this hour is not over\)$/)
  assert.match(page.text, /No delivery in this period/)
  assert.match(visibleText(page.text), /Billable impressions 0 0 attested: the view carried a token from a signed-in account Spend \$0\.00 Clicks 0 Unique viewers 0/)

  // The presets, Today marked; each a shareable link with its dates.
  const presets = [...page.text.matchAll(/<li><a href="(\/portal\/stats\?[^"]*)"( aria-current="true")?>([^<]+)<\/a><\/li>/g)].map((m) => [m[3], m[2] ? 'current' : '', m[1]!.replaceAll('&amp;', '&')])
  const day = (offset: number) => new Date(Date.parse(today) + offset * 86_400_000).toISOString().slice(0, 10)
  assert.deepEqual(presets, [
    ['Today', 'current', `/portal/stats?granularity=hour&start=${today}&end=${today}&campaign_id=`],
    ['Last 7 days', '', `/portal/stats?granularity=day&start=${day(-6)}&end=${today}&campaign_id=`],
    ['Last 30 days', '', `/portal/stats?granularity=day&start=${day(-29)}&end=${today}&campaign_id=`],
    ['This month', '', `/portal/stats?granularity=day&start=${today.slice(0, 8)}01&end=${today}&campaign_id=`],
  ])
  assert.match(visibleText(page.text), new RegExp(`From ${today} 00:00 UTC on, figures are live`))

  // Last 7 days: closed days, then the live part from today's midnight.
  const week = await adv.browser.get(presets[1]![2]!)
  assert.equal(week.status, 200)
  assert.match(week.text, /<a href="[^"]*" aria-current="true">Last 7 days<\/a>/)
  const days = chartData(week.text, 'stats-impressions')
  assert.deepEqual(
    days.map(([t]) => t),
    [day(-6), day(-5), day(-4), day(-3), day(-2), day(-1), `${today} (so far: today is not over)`],
  )
  const status = await adv.api.get('/v1/stats?last_days=1')
  const closedThrough = new Date(Date.parse(status.body.end) - 1).toISOString().slice(0, 10)
  assert.match(
    visibleText(week.text),
    new RegExp(`The last closed day is ${closedThrough}; it ended at ${day(0)} 00:00 UTC\\. Figures up to then are final\\. From ${day(0)} 00:00 UTC on, figures are live`),
  )
  // An older window is all closed.
  const old = await adv.browser.get(`/portal/stats?granularity=day&start=${day(-20)}&end=${day(-10)}`)
  assert.match(visibleText(old.text), /All of this period is closed: its figures are final\./)
  assert.doesNotMatch(old.text, /aria-current="true"/)
})

test('unique viewers count clicks too: a click whose view was never reported is a viewer without a recorded view, and the page says so', async () => {
  const adv = await portalAdvertiser(h)
  const country = privateCountry()
  await newCampaign(adv, { target_countries: [country], cpm_usd: 5 })
  const offer = await decide(h.anonymous, { country })
  assert.ok(offer)
  assert.equal((await h.anonymous.get(`/serve/v1/impressions/${offer.impression_id}/click`)).status, 302)
  await offersWritten(h)
  const page = await adv.browser.get('/portal/stats')
  const text = visibleText(page.text)
  assert.match(text, /Billable impressions 0 .* Unique viewers 1 People with a recorded view or click, each counted once/)
  assert.match(text, /Unique viewers \(1\) are more than the recorded views \(0\) here: a click counts its viewer even when the view behind it was never reported, for example a click before the ten seconds were up\./)
  assert.match(text, /Recorded views Billed plus not billed\. 0/)
})

test('delivery shows in the totals and charts with the numbers of /v1/stats, by hour, day and month, for all or one campaign', async () => {
  const adv = await portalAdvertiser(h)
  const country = privateCountry()
  const first = await newCampaign(adv, { name: 'First', target_countries: [country], cpm_usd: 5, impressions: 2000 })
  const second = await newCampaign(adv, { name: 'Second', target_countries: [country], cpm_usd: 4, impressions: 2000 })
  assert.equal(await deliver(h, country, 4), 4) // all to First: the higher bid
  await adv.api.post(`/v1/campaigns/${first}/pause`)
  await advance(h, 3_600)
  assert.equal(await deliver(h, country, 2), 2) // to Second
  await signInAgain(adv)

  const now = h.svc.clock.now().toISOString().slice(0, 10)
  const query = `granularity=hour&start=${now}&end=${now}`
  const page = await adv.browser.get(`/portal/stats?${query}&campaign_id=`)
  assert.equal(page.status, 200)
  const api = await adv.api.get(`/v1/stats?granularity=hour&start=${now}T00:00:00.000Z&end=${new Date(Date.parse(now) + 86_400_000).toISOString()}`)
  assert.equal(api.status, 200, api.text)
  assert.equal(api.body.totals.billable_impressions, 6)
  const text = visibleText(page.text)
  assert.match(text, /Billable impressions 6 0 attested: the view carried a token from a signed-in account Spend \$0\.028 Clicks 0/, '4 × $5 + 2 × $4 per thousand')
  const hours = chartData(page.text, 'stats-impressions')
  assert.equal(hours.length, 11, 'the hours so far: 00:00 through 10:00, the hour in progress')
  for (const point of api.body.points) {
    const label = `${point.bucket.slice(0, 10)} ${point.bucket.slice(11, 16)} UTC`
    assert.equal(hours.find(([t]) => t.startsWith(label))?.[1], String(point.billable_impressions))
  }
  assert.deepEqual(hours.find(([t]) => t === `${now} 09:00 UTC`), [`${now} 09:00 UTC`, '4'])
  assert.deepEqual(hours.find(([t]) => t.startsWith(`${now} 10:00 UTC`)), [`${now} 10:00 UTC (so far: this hour is not over)`, '2'])
  assert.deepEqual(chartData(page.text, 'stats-spend').find(([t]) => t === `${now} 09:00 UTC`), [`${now} 09:00 UTC`, '$0.02'])
  assert.match(chartLabel(page.text, 'stats-impressions'), /6 in total; highest 4 at .* 09:00 UTC/)
  assert.equal(selectedOption(page.text, 'granularity'), 'hour')
  assert.equal(inputValue(page.text, 'start'), now)
  assert.equal(inputValue(page.text, 'end'), now)
  assert.deepEqual(options(page.text, 'campaign_id'), [['', 'All campaigns'], [second, 'Second'], [first, 'First']])

  // One campaign.
  const one = await adv.browser.get(`/portal/stats?${query}&campaign_id=${second}`)
  assert.equal(one.status, 200)
  assert.equal(selectedOption(one.text, 'campaign_id'), second)
  assert.match(visibleText(one.text), /Billable impressions 2 0 attested: the view carried a token from a signed-in account Spend \$0\.008/)
  assert.equal(chartData(one.text, 'stats-impressions').find(([t]) => t.startsWith(`${now} 10:00 UTC`))?.[1], '2')
  assert.deepEqual(chartData(one.text, 'stats-impressions').find(([t]) => t === `${now} 09:00 UTC`), [`${now} 09:00 UTC`, '0'])

  // By month: one bucket.
  const month = await adv.browser.get(`/portal/stats?granularity=month&start=${now.slice(0, 8)}01&end=${now}`)
  assert.equal(month.status, 200)
  assert.deepEqual(chartData(month.text, 'stats-impressions'), [[`${now.slice(0, 7)} (so far: this month is not over)`, '6']])
})

test('a window over the limit shows the API\'s refusal next to the field, never JSON', async () => {
  const adv = await portalAdvertiser(h)
  const api = await adv.api.get('/v1/stats?granularity=hour&start=2026-09-01T00:00:00Z&end=2026-10-11T00:00:00Z')
  assert.equal(api.status, 400)
  assert.deepEqual(api.body.detail, { field: 'end', reason: 'range_too_large', granularity: 'hour', max_days: 31 })

  const page = await adv.browser.get('/portal/stats?granularity=hour&start=2026-09-01&end=2026-10-10')
  assert.equal(page.status, 400)
  assert.match(page.headers.get('content-type') ?? '', /text\/html/)
  assert.equal(fieldError(page.text, 'end'), 'Hourly points cover at most 31 days: choose a later Start, an earlier End or a coarser Granularity.')
  assert.match(page.text, /<a href="#f-end">Hourly points cover at most 31 days/)
  assert.equal(inputValue(page.text, 'start'), '2026-09-01', 'the form keeps what was asked')
  assert.equal(selectedOption(page.text, 'granularity'), 'hour')
  assert.doesNotMatch(page.text, /<figure class="chart"/)

  const backwards = await adv.browser.get('/portal/stats?start=2026-10-10&end=2026-10-01')
  assert.equal(backwards.status, 400)
  assert.equal(fieldError(backwards.text, 'end'), 'End must be on or after Start.')

  const badDate = await adv.browser.get('/portal/stats?start=2026-02-30&granularity=week')
  assert.equal(badDate.status, 400)
  assert.equal(fieldError(badDate.text, 'start'), 'Enter a date as YYYY-MM-DD, for example 2026-11-02.')
  assert.equal(fieldError(badDate.text, 'granularity'), 'Choose by hour, by day or by month.')
})

test('a live scan over the operator\'s limit is refused like the API, with the window that fits', async () => {
  const adv = await portalAdvertiser(h)
  const country = privateCountry()
  await newCampaign(adv, { target_countries: [country], cpm_usd: 9 })
  assert.equal(await deliver(h, country, 3), 3)
  const today = h.svc.clock.now().toISOString().slice(0, 10)
  const tomorrow = new Date(Date.parse(today) + 86_400_000).toISOString().slice(0, 10)
  await h.config({ stats_max_live_events: 2 })
  try {
    // Today and tomorrow by the hour: today's nine events are over the limit; tomorrow alone fits.
    const api = await adv.api.get(`/v1/stats?granularity=hour&start=${today}T00:00:00Z&end=${new Date(Date.parse(tomorrow) + 86_400_000).toISOString()}`)
    assert.equal(api.status, 400)
    assert.equal(api.body.detail.reason, 'window_too_costly')
    const page = await adv.browser.get(`/portal/stats?granularity=hour&start=${today}&end=${tomorrow}`)
    assert.equal(page.status, 400)
    assert.equal(
      fieldError(page.text, 'start'),
      `This window needs a live scan of about ${api.body.detail.estimated_events.toLocaleString('en-US')} events, more than the 2 allowed at once. Choose a shorter window.`,
    )
    const retry = api.body.detail.retry_with
    assert.ok(retry, 'the API names a window that fits')
    const link = /<a href="([^"]*)">Show the window that fits instead<\/a>/.exec(page.text)?.[1]
    assert.ok(link, 'and the page offers it')
    const params = new URLSearchParams(link.replaceAll('&amp;', '&').split('?')[1])
    assert.deepEqual(Object.fromEntries(params), { granularity: 'hour', start: retry.start.slice(0, 10), end: tomorrow, campaign_id: '' })
    const fits = await adv.browser.get(link.replaceAll('&amp;', '&'))
    assert.equal(fits.status, 200)
  } finally {
    await h.config({ stats_max_live_events: 5_000_000 })
  }
})

test('another account\'s campaign is refused at the Campaign field (404), and reporting switched off is said on the page (503)', async () => {
  const adv = await portalAdvertiser(h)
  const other = await portalAdvertiser(h)
  const theirs = await newCampaign(other)
  const page = await adv.browser.get(`/portal/stats?campaign_id=${theirs}`)
  assert.equal(page.status, 404)
  assert.equal(fieldError(page.text, 'campaign_id'), 'No campaign of this account has that id.')
  assert.ok(!options(page.text, 'campaign_id').some(([, text]) => text !== theirs && text !== 'All campaigns'), 'no other campaign leaks into the list')

  assert.equal((await h.admin.put('/admin/v1/components/reporting', { state: 'disabled' })).status, 200)
  try {
    const off = await adv.browser.get('/portal/stats')
    assert.equal(off.status, 503)
    assert.match(off.headers.get('content-type') ?? '', /text\/html/)
    assert.match(visibleText(off.text), /Reporting is temporarily unavailable; retry later\./)
    assert.equal((await adv.api.get('/v1/stats')).status, 503)
  } finally {
    assert.equal((await h.admin.put('/admin/v1/components/reporting', { state: 'operational' })).status, 200)
  }
})

test('without a session the stats page sends to sign-in', async () => {
  const res = await fetch(`${h.baseUrl}/portal/stats?granularity=hour`, { redirect: 'manual' })
  assert.equal(res.status, 303)
  assert.equal(res.headers.get('location'), `/portal/login?next=${encodeURIComponent('/portal/stats?granularity=hour')}`)
})
