import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { encodeCursor } from '../../src/domain/pagination.ts'

// Paged lists: GET /v1/campaigns and GET /v1/exports (every response is checked against the OpenAPI document).
const h = useService({}, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null })

async function createCampaigns(adv: Advertiser, n: number): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < n; i++) {
    const res = await adv.post('/v1/campaigns', campaignBody({ name: `c${i}`, start_paused: true }))
    assert.equal(res.status, 201, res.text)
    ids.push(res.body.campaign_id)
  }
  return ids
}

/** Follows next_cursor from the first page; returns each page's ids. */
async function pages(adv: Advertiser, path: string, list: 'campaigns' | 'exports', limit?: number): Promise<string[][]> {
  const out: string[][] = []
  let cursor: string | null = null
  do {
    const params = new URLSearchParams()
    if (limit !== undefined) params.set('limit', String(limit))
    if (cursor !== null) params.set('cursor', cursor)
    const query = params.size > 0 ? `?${params}` : ''
    const res = await adv.get(`${path}${query}`)
    assert.equal(res.status, 200, res.text)
    out.push(res.body[list].map((item: { campaign_id?: string; id?: string }) => item.campaign_id ?? item.id))
    cursor = res.body.next_cursor
    assert.ok(out.length < 100, 'paging ends')
  } while (cursor !== null)
  return out
}

test('GET /campaigns pages newest first through every campaign, with no duplicate or gap', async () => {
  const adv = await h.advertiser()
  const created = await createCampaigns(adv, 7)
  const newestFirst = [...created].reverse()
  const paged = await pages(adv, '/v1/campaigns', 'campaigns', 3)
  assert.deepEqual(paged.map((p) => p.length), [3, 3, 1])
  assert.deepEqual(paged.flat(), newestFirst)
  // An exact multiple: the last full page says there is no next one.
  assert.deepEqual((await pages(adv, '/v1/campaigns', 'campaigns', 7)).map((p) => p.length), [7])
  // Every item keeps its blocks.
  const first = await adv.get('/v1/campaigns?limit=1')
  assert.equal(first.body.campaigns[0].blocks.length, 3)
  assert.equal(typeof first.body.next_cursor, 'string')
})

test('GET /campaigns: a campaign created while paging neither repeats nor shifts an item', async () => {
  const adv = await h.advertiser()
  const created = await createCampaigns(adv, 4)
  const page1 = await adv.get('/v1/campaigns?limit=2')
  const [late] = await createCampaigns(adv, 1)
  const page2 = await adv.get(`/v1/campaigns?limit=2&cursor=${page1.body.next_cursor}`)
  const ids = [...page1.body.campaigns, ...page2.body.campaigns].map((c: { campaign_id: string }) => c.campaign_id)
  assert.deepEqual(ids, [...created].reverse())
  assert.equal(page2.body.next_cursor, null)
  assert.equal((await adv.get('/v1/campaigns?limit=1')).body.campaigns[0].campaign_id, late, 'a fresh first page shows it')
})

test('GET /campaigns: default page of 50, at most 200', async () => {
  const adv = await h.advertiser()
  const created = await createCampaigns(adv, 52)
  const first = await adv.get('/v1/campaigns')
  assert.equal(first.body.campaigns.length, 50)
  const rest = await adv.get(`/v1/campaigns?cursor=${encodeURIComponent(first.body.next_cursor)}`)
  assert.equal(rest.body.campaigns.length, 2)
  assert.equal(rest.body.next_cursor, null)
  const all = await adv.get('/v1/campaigns?limit=200')
  assert.deepEqual(all.body.campaigns.map((c: { campaign_id: string }) => c.campaign_id), [...created].reverse())
  assert.equal(all.body.next_cursor, null)
})

test('paged lists refuse bad limits, bad cursors and unknown parameters with 400 naming the input', async () => {
  const adv = await h.advertiser()
  await createCampaigns(adv, 2)
  const campaignsCursor = (await adv.get('/v1/campaigns?limit=1')).body.next_cursor as string
  const cases: [string, string, string][] = [
    ['limit=0', 'limit', 'below_minimum'],
    ['limit=201', 'limit', 'above_maximum'],
    ['limit=ten', 'limit', 'invalid_type'],
    ['limit=1.5', 'limit', 'invalid_type'],
    ['page=2', 'page', 'unknown_parameter'],
    ['cursor=', 'cursor', 'too_short'],
    ['cursor=not-a-cursor', 'cursor', 'malformed_cursor'],
    [`cursor=${encodeCursor('campaigns', [])}`, 'cursor', 'malformed_cursor'],
    [`cursor=${encodeCursor('campaigns', ['12'])}`, 'cursor', 'malformed_cursor'],
    [`cursor=${Buffer.from('{"a":1}').toString('base64url')}`, 'cursor', 'malformed_cursor'],
    [`cursor=${encodeCursor('exports', ['2026-11-02T09:00:00.000Z', 'exp_x'])}`, 'cursor', 'foreign_cursor'],
  ]
  for (const [query, field, reason] of cases) {
    const res = await adv.get(`/v1/campaigns?${query}`)
    assert.equal(res.status, 400, `${query}: ${res.text}`)
    assert.equal(res.body.detail.field, field, `${query}: ${res.text}`)
    assert.equal(res.body.detail.reason, reason, `${query}: ${res.text}`)
  }
  for (const query of [`cursor=${campaignsCursor}`, `cursor=${encodeCursor('exports', ['yesterday', 'exp_x'])}`, 'limit=0', 'sort=asc']) {
    const res = await adv.get(`/v1/exports?${query}`)
    assert.equal(res.status, 400, `${query}: ${res.text}`)
    assert.equal(res.body.detail.field, query.split('=')[0])
  }
})

test('a cursor is a position, never a way into another account', async () => {
  const adv = await h.advertiser()
  await createCampaigns(adv, 3)
  const cursor = (await adv.get('/v1/campaigns?limit=1')).body.next_cursor
  const other = await h.advertiser()
  const res = await other.get(`/v1/campaigns?cursor=${cursor}`)
  assert.equal(res.status, 200)
  assert.deepEqual(res.body, { campaigns: [], next_cursor: null })
})

test('GET /exports pages the account\'s export jobs newest first, as the status read shows each', async () => {
  const adv = await h.advertiser()
  const now = h.svc.clock.nowMs()
  const window = { start: new Date(now - 3_600_000).toISOString(), end: new Date(now).toISOString() }
  const queued: string[] = []
  // Three at one instant (ties are ordered by id), then two a second apart.
  for (let i = 0; i < 5; i++) {
    if (i >= 3) assert.equal((await h.admin.post('/admin/v1/clock', { advance_seconds: 1 })).status, 200)
    const res = await adv.post('/v1/exports', window)
    assert.equal(res.status, 202, res.text)
    queued.push(res.body.id)
  }
  const paged = await pages(adv, '/v1/exports', 'exports', 2)
  assert.deepEqual(paged.map((p) => p.length), [2, 2, 1])
  const ids = paged.flat()
  assert.deepEqual(ids.slice(0, 2), [queued[4], queued[3]], 'newest first')
  assert.deepEqual([...ids.slice(2)].sort(), queued.slice(0, 3).sort(), 'the three of one instant, each once')
  assert.equal(new Set(ids).size, 5)

  // Runs after the kicked ones (runs are serialized), so no job changes status between the two reads below.
  assert.equal((await h.admin.post('/admin/v1/jobs/exports/run')).status, 200)
  const listed = (await adv.get('/v1/exports')).body
  assert.equal(listed.next_cursor, null)
  for (const job of listed.exports) assert.deepEqual(job, (await adv.get(`/v1/exports/${job.id}`)).body)

  const other = await h.advertiser()
  assert.deepEqual((await other.get('/v1/exports')).body, { exports: [], next_cursor: null })
})
