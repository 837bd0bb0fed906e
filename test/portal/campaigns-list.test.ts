import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService } from '../helpers/api.ts'
import { deliver, privateCountry } from '../helpers/serving.ts'
import { decode, visibleText } from '../helpers/html.ts'
import { portalAdvertiser, PortalClient, type PageReply } from '../helpers/portal.ts'

const h = useService({}, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null })

const PAGE_SIZE = 20

interface Row {
  href: string
  name: string
  cells: string[]
}

/** The campaign rows of the list: the name link and each cell's text. */
function rows(page: PageReply): Row[] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(page.text)?.[1] ?? ''
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((tr) => {
    const link = /<a href="([^"]+)">([^<]*)<\/a>/.exec(tr[1]!)!
    const cells = [...tr[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((td) => visibleText(td[1]!).trim())
    return { href: decode(link[1]!), name: decode(link[2]!), cells }
  })
}

const nextLink = (page: PageReply) => {
  const m = /<a href="([^"]+)">Next page<\/a>/.exec(page.text)
  return m ? decode(m[1]!) : null
}

test('no campaigns yet: an empty state that links to the form, and the "New campaign" link', async () => {
  const adv = await portalAdvertiser(h)
  const page = await adv.browser.get('/portal/campaigns')
  assert.equal(page.status, 200)
  assert.match(page.text, /<title>Campaigns · Advertiser portal<\/title>/)
  assert.equal(page.text.match(/<h1>/g)?.length, 1)
  assert.match(page.text, /<a aria-current="page" href="\/portal\/campaigns">Campaigns<\/a>|<a href="\/portal\/campaigns" aria-current="page">Campaigns<\/a>/)
  assert.match(visibleText(page.text), /You have no campaigns yet/)
  assert.match(page.text, /<a href="\/portal\/campaigns\/new">Create your first campaign<\/a>/)
  assert.match(page.text, /<a class="button" href="\/portal\/campaigns\/new">\s*New campaign\s*<\/a>/)
  assert.equal(rows(page).length, 0)
  assert.equal(nextLink(page), null)
})

test('two pages, newest first, with the API\'s own cursor; each row: name link, status, bid, served/bought, spend, created', async () => {
  const adv = await portalAdvertiser(h)
  const country = privateCountry()
  const ids: string[] = []
  for (let i = 0; i < PAGE_SIZE + 3; i++) {
    const res = await adv.api.post('/v1/campaigns', campaignBody({ name: `Campaign ${String(i).padStart(2, '0')}`, target_countries: [country] }))
    assert.equal(res.status, 201, res.text)
    ids.push(res.body.campaign_id)
  }
  // Some delivery on the oldest (it has the same bid and was created first, so it wins the auction), and one paused.
  assert.equal(await deliver(h, country, 4), 4)
  assert.equal((await adv.api.post(`/v1/campaigns/${ids[PAGE_SIZE + 2]}/pause`)).status, 200)

  const first = await adv.browser.get('/portal/campaigns')
  assert.equal(first.status, 200)
  const firstRows = rows(first)
  assert.equal(firstRows.length, PAGE_SIZE)
  assert.deepEqual(
    firstRows.map((r) => r.href),
    ids.slice().reverse().slice(0, PAGE_SIZE).map((id) => `/portal/campaigns/${id}`),
    'newest first, linking to each campaign page',
  )
  assert.deepEqual(firstRows[0]!.cells, ['Campaign 22', 'Paused', '$2.50', '0 / 3,000', '$0.00', '2026-11-02 09:00 UTC'])
  assert.deepEqual(firstRows[1]!.cells.slice(1, 5), ['Active', '$2.50', '0 / 3,000', '$0.00'])

  // The cursor is the API's: the same service, the same page boundary.
  const api = await adv.api.get(`/v1/campaigns?limit=${PAGE_SIZE}`)
  const next = nextLink(first)
  assert.equal(next, `/portal/campaigns?cursor=${encodeURIComponent(api.body.next_cursor)}`)

  const second = await adv.browser.get(next!)
  assert.equal(second.status, 200)
  const secondRows = rows(second)
  assert.deepEqual(
    secondRows.map((r) => r.name),
    ['Campaign 02', 'Campaign 01', 'Campaign 00'],
  )
  // 4 billable impressions at $2.50 CPM: 10,000 micro-USD, one cent.
  assert.deepEqual(secondRows[2]!.cells.slice(1, 5), ['Active', '$2.50', '4 / 3,000', '$0.01'])
  assert.equal(nextLink(second), null, 'the last page has no next link')
  assert.match(second.text, /<a href="\/portal\/campaigns">Newest campaigns<\/a>/)
})

test('only the signed-in account\'s campaigns are listed', async () => {
  const mine = await portalAdvertiser(h)
  const theirs = await portalAdvertiser(h)
  const created = await theirs.api.post('/v1/campaigns', campaignBody({ name: 'Not yours' }))
  assert.equal(created.status, 201)
  const page = await mine.browser.get('/portal/campaigns')
  assert.equal(rows(page).length, 0)
  assert.doesNotMatch(page.text, /Not yours/)
  assert.equal(rows(await theirs.browser.get('/portal/campaigns')).length, 1)
})

test('names are text: markup in a name is shown, never run', async () => {
  const adv = await portalAdvertiser(h)
  assert.equal((await adv.api.post('/v1/campaigns', campaignBody({ name: '<script>alert(1)</script> & co' }))).status, 201)
  const page = await adv.browser.get('/portal/campaigns')
  assert.doesNotMatch(page.text, /<script>alert/)
  assert.equal(rows(page)[0]!.name, '<script>alert(1)</script> & co')
})

test('a cursor that is not one of this list\'s is a 400 page; signed out is a redirect to sign in', async () => {
  const adv = await portalAdvertiser(h)
  const bad = await adv.browser.get('/portal/campaigns?cursor=not-a-cursor')
  assert.equal(bad.status, 400)
  assert.match(bad.headers.get('content-type') ?? '', /text\/html/)
  const anonymous = new PortalClient(h.baseUrl)
  const away = await anonymous.get('/portal/campaigns')
  assert.equal(away.status, 303)
  assert.equal(away.location, `/portal/login?next=${encodeURIComponent('/portal/campaigns')}`)
})
