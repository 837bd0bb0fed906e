import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, freshIp, useService, type Advertiser } from '../helpers/api.ts'
import { decide, privateCountry, view, type Decision } from '../helpers/serving.ts'

/**
 * The public leaderboard over real HTTP (operations.md section 5, issue 22):
 * which campaigns count (opted in, with a brand), spellings merged, ties by
 * name, 100 rows at most, the 30-day window on the service clock, counts
 * from the daily rollups only (a delivery counts once its day is closed),
 * and caching (ETag, 304), no cookies. The clock starts Monday 2026-11-02
 * 09:00 UTC and only moves forward: the tests run in order.
 */
const h = useService({}, { country_targeting_enabled: true, create_rate_limit_per_min: 1000 })

interface Board {
  window_start: string
  window_end: string
  brands: { brand: string; impressions: number }[]
}

let owner: Advertiser | undefined
const advertiser = async () => (owner ??= await h.advertiser())

/** A campaign of its own country (so only it wins there); returns the country. */
async function campaign(brand: string | null, optin = true): Promise<string> {
  const country = privateCountry()
  const body = campaignBody({ target_countries: [country], impressions: 1000, optin_leaderboard: optin, ...(brand === null ? {} : { brand }) })
  const res = await (await advertiser()).post('/v1/campaigns', body)
  assert.equal(res.status, 201, res.text)
  return country
}

let viewers = 0
/** `n` billable impressions in each country: all decisions, ten seconds of service time, all views. */
async function deliver(countries: Record<string, number>): Promise<void> {
  const offers = await Promise.all(
    Object.entries(countries).flatMap(([country, n]) =>
      Array.from({ length: n }, () => decide(h.anonymous, { country, surface: 'extension', viewer_id: `board-${process.pid}-${viewers++}` })),
    ),
  )
  assert.ok(offers.every((o) => o !== null), 'every decision is filled')
  await h.admin.post('/admin/v1/clock', { advance_seconds: 10 })
  for (const status of await Promise.all((offers as Decision[]).map((o) => view(h.anonymous, o.impression_id, 10_000)))) assert.equal(status, 204)
}

async function moveTo(iso: string): Promise<void> {
  const res = await h.admin.post('/admin/v1/clock', { now: iso })
  assert.equal(res.status, 200, res.text)
}

/** Each read from an address of its own: the public reads have a per-address budget (tested below). */
async function get(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(h.baseUrl + path, { headers: { 'x-forwarded-for': freshIp(), ...headers } })
  return { status: res.status, headers: res.headers, text: await res.text() }
}

async function board(): Promise<Board> {
  const res = await get('/leaderboard.json')
  assert.equal(res.status, 200, res.text)
  assert.match(res.headers.get('content-type')!, /^application\/json/)
  return JSON.parse(res.text) as Board
}

const find = (b: Board, brand: string) => b.brands.find((r) => r.brand === brand)

test('a delivery counts once its day is rolled up; opted-out and brandless campaigns never count', async () => {
  const optedIn = await campaign('Opted In Co')
  const optedOut = await campaign('Opted Out Co', false)
  const brandless = await campaign(null)
  await deliver({ [optedIn]: 3, [optedOut]: 2, [brandless]: 2 })

  // Today (2026-11-02) is not closed: the board ends at today's midnight and does not count it yet.
  let b = await board()
  assert.equal(b.window_end, '2026-11-02T00:00:00.000Z')
  assert.equal(b.window_start, '2026-10-03T00:00:00.000Z')
  assert.equal(find(b, 'Opted In Co'), undefined)
  // Running the rollups now changes nothing: only closed days are rolled up, and the board reads only the rollups.
  assert.equal((await h.admin.post('/admin/v1/jobs/rollups/run')).status, 200)
  assert.equal(find(await board(), 'Opted In Co'), undefined)

  await moveTo('2026-11-03T00:20:00Z') // the 00:15 rollup closed 2026-11-02
  b = await board()
  assert.deepEqual({ start: b.window_start, end: b.window_end }, { start: '2026-10-04T00:00:00.000Z', end: '2026-11-03T00:00:00.000Z' })
  assert.deepEqual(find(b, 'Opted In Co'), { brand: 'Opted In Co', impressions: 3 })
  assert.equal(find(b, 'Opted Out Co'), undefined)
  for (const r of b.brands) {
    assert.ok(r.brand.trim().length > 0, 'every row names a brand')
    assert.ok(Number.isInteger(r.impressions) && r.impressions > 0)
  }
  assert.equal(b.brands.reduce((n, r) => n + r.impressions, 0), 3, 'the opted-out and brandless deliveries count nowhere')

  const page = await get('/leaderboard')
  assert.equal(page.status, 200)
  assert.match(page.text, /<td class="brand-name">Opted In Co<\/td>/)
  assert.doesNotMatch(page.text, /Opted Out Co/)
  assert.match(page.text, /2026-10-04<\/time> to <time[^>]*>2026-11-02<\/time>/)
})

test('spellings that differ in case or spaces are one brand, shown as spelled where it delivered most', async () => {
  const most = await campaign(' MERGE co ')
  const second = await campaign('Merge Co')
  const third = await campaign('merge CO')
  await deliver({ [most]: 3, [second]: 2, [third]: 1 })
  await moveTo('2026-11-04T00:20:00Z')
  const merged = (await board()).brands.filter((r) => r.brand.toLowerCase() === 'merge co')
  assert.deepEqual(merged, [{ brand: 'MERGE co', impressions: 6 }])
})

test('equal counts are ordered by name, whatever the letter case; the rest by impressions', async () => {
  const bravo = await campaign('Tie Bravo')
  const alpha = await campaign('tie alpha')
  const charlie = await campaign('Tie Charlie')
  await deliver({ [bravo]: 2, [alpha]: 2, [charlie]: 2 })
  await moveTo('2026-11-05T00:20:00Z')
  const b = await board()
  const names = b.brands.map((r) => r.brand)
  const ties = names.filter((n) => /^tie /i.test(n))
  assert.deepEqual(ties, ['tie alpha', 'Tie Bravo', 'Tie Charlie'])
  assert.equal(names.indexOf('Tie Bravo') - names.indexOf('tie alpha'), 1)
  for (let i = 1; i < b.brands.length; i++) {
    const [p, r] = [b.brands[i - 1]!, b.brands[i]!]
    assert.ok(p.impressions > r.impressions || (p.impressions === r.impressions && p.brand.toLowerCase() < r.brand.toLowerCase()), `${p.brand} before ${r.brand}`)
  }
})

test('the window: 30 whole UTC days up to the last closed day, sliding back while the rollups have not closed yesterday', async () => {
  const country = await campaign('Window Co')
  await deliver({ [country]: 2 }) // on 2026-11-05

  // 00:05: yesterday (11-05) is not rolled up yet (the run is at 00:15): the window still ends at 11-05 00:00.
  await moveTo('2026-11-06T00:05:00Z')
  let b = await board()
  assert.deepEqual({ start: b.window_start, end: b.window_end }, { start: '2026-10-06T00:00:00.000Z', end: '2026-11-05T00:00:00.000Z' })
  assert.equal(find(b, 'Window Co'), undefined)
  const behind = await get('/leaderboard')
  assert.match(behind.text, /The daily totals after 2026-11-04 are not closed yet/)

  await moveTo('2026-11-06T00:16:00Z')
  b = await board()
  assert.equal(b.window_end, '2026-11-06T00:00:00.000Z')
  assert.deepEqual(find(b, 'Window Co'), { brand: 'Window Co', impressions: 2 })
  assert.doesNotMatch((await get('/leaderboard')).text, /not closed yet/)

  // 11-05 is the first day of the window ending 12-05, and outside the one ending 12-06.
  await moveTo('2026-12-05T00:20:00Z')
  b = await board()
  assert.equal(b.window_start, '2026-11-05T00:00:00.000Z')
  assert.deepEqual(find(b, 'Window Co'), { brand: 'Window Co', impressions: 2 })
  await moveTo('2026-12-06T00:20:00Z')
  b = await board()
  assert.equal(b.window_start, '2026-11-06T00:00:00.000Z')
  assert.equal(find(b, 'Window Co'), undefined)
})

test('both addresses carry an ETag and Cache-Control, answer 304 to a matching If-None-Match, set no cookie and send the security headers', async () => {
  const country = await campaign('Etag Co')
  await deliver({ [country]: 1 })
  await moveTo('2026-12-07T00:20:00Z')
  let previous = ''
  for (const path of ['/leaderboard.json', '/leaderboard']) {
    const first = await get(path)
    assert.equal(first.status, 200)
    const etag = first.headers.get('etag')!
    assert.match(etag, /^"[\w-]+"$/)
    assert.notEqual(etag, previous, 'the page and the JSON differ')
    previous = etag
    assert.equal(first.headers.get('cache-control'), 'public, max-age=60')
    assert.equal(first.headers.getSetCookie().length, 0)
    assert.equal(first.headers.get('x-content-type-options'), 'nosniff')
    assert.match(first.headers.get('content-security-policy')!, /default-src 'none'/)
    assert.match(first.text, /Etag Co/)

    const again = await get(path, { 'if-none-match': etag })
    assert.equal(again.status, 304)
    assert.equal(again.text, '')
    assert.equal(again.headers.get('etag'), etag)
    assert.equal((await get(path, { 'if-none-match': `"other", W/${etag}` })).status, 304)
    assert.equal((await get(path, { 'if-none-match': '"other"' })).status, 200)
  }
  // The next closed day with new delivery changes the figures, so the tag.
  const before = (await get('/leaderboard.json')).headers.get('etag')
  await deliver({ [country]: 1 })
  await moveTo('2026-12-08T00:20:00Z')
  const after = await get('/leaderboard.json')
  assert.notEqual(after.headers.get('etag'), before)
  assert.deepEqual(find(JSON.parse(after.text) as Board, 'Etag Co'), { brand: 'Etag Co', impressions: 2 })
})

test('the public reads share one per-address budget: the JSON answers 429 in the API envelope, the page as a page', async () => {
  const ip = freshIp()
  const from = { 'x-forwarded-for': ip }
  for (let i = 0; i < 120; i++) assert.equal((await fetch(`${h.baseUrl}/leaderboard.json`, { headers: from })).status, 200)
  const json = await fetch(`${h.baseUrl}/leaderboard.json`, { headers: from })
  assert.equal(json.status, 429)
  assert.match(json.headers.get('content-type')!, /^application\/json/)
  assert.match(((await json.json()) as { detail: string }).detail, /rate limit exceeded/)
  assert.ok(Number(json.headers.get('retry-after')) >= 1)
  const page = await fetch(`${h.baseUrl}/leaderboard`, { headers: from })
  assert.equal(page.status, 429)
  assert.match(page.headers.get('content-type')!, /^text\/html/)
  assert.equal((await fetch(`${h.baseUrl}/v1/status`, { headers: from })).status, 429, 'the same budget as GET /v1/status')
  assert.equal((await fetch(`${h.baseUrl}/leaderboard.json`, { headers: { 'x-forwarded-for': freshIp() } })).status, 200, 'other addresses are not affected')
})

test('at most 100 brands', async () => {
  const countries: Record<string, number> = {}
  for (let i = 0; i <= 100; i++) countries[await campaign(`Cap ${String(i).padStart(3, '0')}`)] = 1
  await deliver(countries)
  await moveTo('2026-12-09T00:20:00Z')
  const b = await board()
  assert.equal(b.brands.length, 100)
  const others = b.brands.filter((r) => !r.brand.startsWith('Cap ')).length
  const caps = b.brands.filter((r) => r.brand.startsWith('Cap ')).map((r) => r.brand)
  // Every cap brand has one impression: the first ones by name make the cut.
  assert.deepEqual(
    caps,
    Array.from({ length: 100 - others }, (_, i) => `Cap ${String(i).padStart(3, '0')}`),
  )
  const page = await get('/leaderboard')
  assert.equal(page.text.match(/<td class="brand-name">/g)?.length, 100)
})
