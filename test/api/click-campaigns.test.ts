import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { advance, decide, privateCountry, view, type Decision } from '../helpers/serving.ts'
import { impressionDebitMicros } from '../../src/domain/money.ts'
import { impressionKey } from '../helpers/impression-key.ts'

/**
 * `kind: click` campaigns (docs/decisions/0103-what-a-click-campaign-buys.md): bought and billed
 * per unique click, through the ledger batch and the impression budget leases; their views are
 * judged by the views' rules and bill nothing.
 */
const h = useService({}, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })
const db = () => h.svc.service.store.db

async function create(adv: Advertiser, country: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 1000, kind: 'click', ...overrides }))
  assert.equal(res.status, 201, res.text)
  return res.body.campaign_id
}

let viewers = 0
const viewer = () => `click-viewer-${process.pid}-${viewers++}`

async function offer(country: string, viewerId = viewer()): Promise<Decision> {
  const d = await decide(h.anonymous, { country, viewer_id: viewerId })
  assert.ok(d, 'the campaign wins the auction')
  return d
}

async function click(d: Decision): Promise<void> {
  const res = await h.anonymous.get(new URL(d.click_url).pathname)
  assert.equal(res.status, 302, res.text)
  assert.equal(res.headers.get('location'), 'https://acme.dev/ci')
}

/** The ledger rows of one impression, straight from the store. */
async function ledger(impressionId: string) {
  return db()
    .selectFrom('ledger_events')
    .select(['event_type', 'billable', 'debit_micros', 'reason'])
    .where('impression_key', '=', impressionKey(impressionId))
    .orderBy('event_id')
    .execute()
}

/** The one ledger row of an impression with a single view or click (its offer is counted, not stored). */
async function only(impressionId: string) {
  const rows = await ledger(impressionId)
  assert.equal(rows.length, 1, JSON.stringify(rows))
  return rows[0]!
}

const campaign = async (adv: Advertiser, id: string) => (await adv.get(`/v1/campaigns/${id}`)).body

test('a click campaign bills the first click of an impression at the n-th click price; its views bill nothing', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const cpm = 2.345678
  const id = await create(adv, country, { cpm_usd: cpm })
  const offers = await Promise.all(Array.from({ length: 5 }, () => offer(country)))
  await advance(h, 10)
  for (const d of offers) assert.equal(await view(h.anonymous, d.impression_id, 10_000), 204)
  // A qualified view: a billable impression (the CTR's denominator) with no debit, no click spent.
  assert.deepEqual(await ledger(offers[0]!.impression_id), [
    { event_type: 'impression', billable: true, debit_micros: 0, reason: null },
  ])
  assert.equal((await campaign(adv, id)).impressions_served, 0, 'views take no inventory')

  for (const d of offers) await click(d)
  // Answered only once durable: the rows are in the store when the 302 arrives.
  const debits: number[] = []
  for (const d of offers) {
    const rows = await ledger(d.impression_id)
    assert.equal(rows.length, 2, 'the view and the click')
    const c = rows[1]!
    assert.equal(c.event_type, 'click')
    assert.equal(c.billable, true)
    assert.equal(c.reason, null)
    debits.push(c.debit_micros)
  }
  assert.deepEqual(debits, [1, 2, 3, 4, 5].map((n) => impressionDebitMicros(2_345_678, n)), 'the n-th billable click debits the n-th price')

  // A repeat click still redirects and counts once.
  await click(offers[0]!)
  assert.equal((await ledger(offers[0]!.impression_id)).filter((r) => r.event_type === 'click').length, 1)

  const c = await campaign(adv, id)
  assert.equal(c.kind, 'click')
  assert.equal(c.impressions_served, 5, 'delivered counts clicks')
  assert.equal(c.blocks[0].impressions_served, 5)
  assert.equal(c.lifetime_spent_micros, debits.reduce((a, b) => a + b, 0))

  const day = new Date(h.svc.service.clock.nowMs()).toISOString().slice(0, 10)
  const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString()
  const stats = (await adv.get(`/v1/stats?start=${day}T00:00:00Z&end=${next}`)).body
  assert.equal(stats.totals.billable_impressions, 5)
  assert.equal(stats.totals.clicks, 5)
  assert.equal(stats.totals.ctr, 1)
  assert.equal(stats.totals.spend_micros, c.lifetime_spent_micros)
})

test('views of a click campaign are judged by the views\' rules: dwell, too fast, viewer frequency', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  await create(adv, country)
  const same = viewer()
  const [short, fast, a, b] = [await offer(country), await offer(country), await offer(country, same), await offer(country, same)]
  assert.equal(await view(h.anonymous, fast.impression_id, 10_000), 204)
  await advance(h, 10)
  assert.equal(await view(h.anonymous, short.impression_id, 9_000), 204)
  assert.equal(await view(h.anonymous, a.impression_id, 10_000), 204)
  assert.equal(await view(h.anonymous, b.impression_id, 10_000), 204)
  const second = async (d: Decision) => only(d.impression_id)
  assert.deepEqual(await second(short), { event_type: 'view', billable: false, debit_micros: 0, reason: 'short_dwell' })
  assert.deepEqual(await second(fast), { event_type: 'view', billable: false, debit_micros: 0, reason: 'too_fast' })
  assert.deepEqual(await second(a), { event_type: 'impression', billable: true, debit_micros: 0, reason: null })
  assert.deepEqual(await second(b), { event_type: 'view', billable: false, debit_micros: 0, reason: 'viewer_frequency' })
})

test('one billable click per viewer per campaign per UTC day; other viewers and the next day bill again', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await create(adv, country)
  const same = viewer()
  const first = await offer(country, same)
  const again = await offer(country, same)
  const other = await offer(country)
  for (const d of [first, again, other]) await click(d)
  assert.deepEqual(await only(first.impression_id), { event_type: 'click', billable: true, debit_micros: 2500, reason: null })
  assert.deepEqual(await only(again.impression_id), { event_type: 'click', billable: false, debit_micros: 0, reason: 'viewer_frequency' })
  assert.equal((await only(other.impression_id)).billable, true)

  // The next UTC day of the service clock.
  const now = new Date(h.svc.service.clock.nowMs())
  const nextDay = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1, 0, 0, 1)
  await advance(h, Math.ceil((nextDay - now.getTime()) / 1000))
  const tomorrow = await offer(country, same)
  await click(tomorrow)
  assert.equal((await only(tomorrow.impression_id)).billable, true)
  assert.equal((await campaign(adv, id)).impressions_served, 3)

  // The expiry job keeps yesterday's and today's days of this viewer, and drops them a day later.
  const days = () => db().selectFrom('viewer_click_days').select('day').where('campaign_id', '=', id).execute()
  assert.equal((await h.admin.post('/admin/v1/jobs/expiry/run')).status, 200)
  assert.equal((await days()).length, 3)
  await advance(h, 2 * 86_400)
  assert.equal((await h.admin.post('/admin/v1/jobs/expiry/run')).status, 200)
  assert.deepEqual(await days(), [])
})

test('a click on an offer past the view window, or on an offer made as the campaign was cancelled, redirects and bills nothing', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await create(adv, country)
  const old = await offer(country)
  await advance(h, 3_601)
  await click(old)
  assert.deepEqual(await only(old.impression_id), { event_type: 'click', billable: false, debit_micros: 0, reason: 'expired' })

  const before = await offer(country)
  await advance(h, 1)
  const atCancel = await offer(country)
  assert.equal((await adv.delete(`/v1/campaigns/${id}`)).status, 200)
  await click(before)
  await click(atCancel)
  assert.equal((await only(before.impression_id)).billable, true, 'an offer made before the cancellation still bills its click')
  assert.deepEqual(await only(atCancel.impression_id), { event_type: 'click', billable: false, debit_micros: 0, reason: 'block_full' })
  const c = await campaign(adv, id)
  assert.equal(c.impressions_served, 1)
  assert.equal(c.lifetime_spent_micros, 2500)
})

test('never more clicks billed than bought: the last ones are block_full and the campaign completes', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await create(adv, country, { cpm_usd: 3 })
  const offers = await Promise.all(Array.from({ length: 6 }, () => offer(country)))
  // Most of it billed already (no ledger rows): the clicks reach the end of the campaign.
  await sql`UPDATE campaigns SET impressions_billed = 997, impressions_leased = 997 WHERE campaign_id = ${id}`.execute(db())
  await Promise.all(offers.map(click))
  const clicks = (await Promise.all(offers.map((d) => only(d.impression_id)))).sort((x, y) => Number(y.billable) - Number(x.billable))
  assert.deepEqual(clicks.map((r) => (r.billable ? 'billable' : r.reason)), ['billable', 'billable', 'billable', 'block_full', 'block_full', 'block_full'])
  assert.deepEqual(clicks.slice(0, 3).map((r) => r.debit_micros).sort(), [998, 999, 1000].map((n) => impressionDebitMicros(3_000_000, n)).sort())
  const c = await campaign(adv, id)
  assert.equal(c.impressions_served, 1000)
  assert.equal(c.status, 'completed')
  assert.equal(await decide(h.anonymous, { country }), null, 'a completed click campaign no longer serves')
})

test('a click on an impression campaign is recorded, never billed', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await create(adv, country, { kind: 'impression' })
  const d = await offer(country)
  await click(d)
  assert.deepEqual(await only(d.impression_id), { event_type: 'click', billable: false, debit_micros: 0, reason: null })
  assert.equal((await campaign(adv, id)).impressions_served, 0)
})

test('exports carry each click row\'s debit and billable; the balance counts the clicks', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await create(adv, country)
  const d = await offer(country)
  const start = new Date(h.svc.service.clock.nowMs() - 1_000).toISOString()
  await advance(h, 10)
  assert.equal(await view(h.anonymous, d.impression_id, 10_000), 204)
  await click(d)
  const end = new Date(h.svc.service.clock.nowMs() + 1_000).toISOString()
  const queued = await adv.post('/v1/exports', { start, end, campaign_ids: [id] })
  assert.equal(queued.status, 202, queued.text)
  let job = queued.body
  for (let i = 0; i < 400 && job.status !== 'ready' && job.status !== 'failed'; i++) {
    await new Promise((r) => setTimeout(r, 10))
    job = (await adv.get(`/v1/exports/${job.id}`)).body
  }
  assert.equal(job.status, 'ready', JSON.stringify(job))
  const csv = (await adv.get<string>(`/v1/exports/${job.id}/download`)).text
  const [header, ...rows] = csv.trim().split('\r\n').map((l) => l.split(','))
  const col = (name: string) => header!.indexOf(name)
  const byType = new Map(rows.map((r) => [r[col('event_type')], r]))
  assert.equal(byType.get('click')?.[col('billable')], 'true')
  assert.equal(byType.get('click')?.[col('debit_micros')], '2500')
  assert.equal(byType.get('impression')?.[col('billable')], 'true')
  assert.equal(byType.get('impression')?.[col('debit_micros')], '0')

  // The balance (and with it the outstanding-balance cap and invoicing) counts the click's debit.
  const account = (await adv.get('/v1/account')).body
  assert.equal(account.balance.unbilled_delivered_micros, 2500)
})
