import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { advance, decide, privateCountry, served, view } from '../helpers/serving.ts'
import { impressionDebitMicros } from '../../src/domain/money.ts'
import { impressionKey } from '../helpers/impression-key.ts'

const h = useService({}, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })

async function create(adv: Advertiser, country: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 1000, ...overrides }))
  assert.equal(res.status, 201, res.text)
  return res.body.campaign_id
}

/** The ledger rows of one impression, read straight from the store (its views and clicks: offers are counted, not stored). */
async function ledger(impressionId: string) {
  return h.svc.service.store.db
    .selectFrom('ledger_events')
    .select(['event_type', 'billable', 'debit_micros', 'reason', 'dwell_ms', 'surface', 'country'])
    .where('impression_key', '=', impressionKey(impressionId))
    .orderBy('event_id')
    .execute()
}

test('9,499 ms is not billable, 9,500 ms is; debit is cpm/1000 in micros exactly', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await create(adv, country, { cpm_usd: 2.345 })
  const a = (await decide(h.anonymous, { country, viewer_id: 'dwell-a' }))!
  const b = (await decide(h.anonymous, { country, viewer_id: 'dwell-b' }))!
  await advance(h, 10)
  assert.equal(await view(h.anonymous, a.impression_id, 9_499), 204)
  assert.equal(await view(h.anonymous, b.impression_id, 9_500), 204)
  assert.deepEqual((await ledger(a.impression_id)).map((r) => [r.event_type, r.billable, r.reason]), [
    ['view', false, 'short_dwell'],
  ])
  const billed = await ledger(b.impression_id)
  assert.equal(billed.length, 1)
  assert.deepEqual(billed[0], { event_type: 'impression', billable: true, debit_micros: 2345, reason: null, dwell_ms: 9_500, surface: 'extension', country })
  const campaign = (await adv.get(`/v1/campaigns/${id}`)).body
  assert.equal(campaign.impressions_served, 1)
  assert.equal(campaign.lifetime_spent_micros, 2345)
  assert.equal(campaign.blocks[0].impressions_served, 1)
})

test('dwell may not exceed the service time since the offer plus one second', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  await create(adv, country)
  const early = (await decide(h.anonymous, { country, viewer_id: 'elapsed-a' }))!
  await advance(h, 1)
  assert.equal(await view(h.anonymous, early.impression_id, 10_000), 204, 'still answered 204')
  assert.deepEqual((await ledger(early.impression_id)).map((r) => r.reason), ['too_fast'])

  const edge = (await decide(h.anonymous, { country, viewer_id: 'elapsed-b' }))!
  await advance(h, 9)
  assert.equal(await view(h.anonymous, edge.impression_id, 10_000), 204)
  assert.deepEqual((await ledger(edge.impression_id)).map((r) => r.event_type), ['impression'], '10 s claimed after 9 s: within the 1 s tolerance')
})

test('one billable impression per viewer per surface per ten seconds', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await create(adv, country)
  const first = (await decide(h.anonymous, { country, viewer_id: 'freq', surface: 'extension' }))!
  const second = (await decide(h.anonymous, { country, viewer_id: 'freq', surface: 'extension' }))!
  await advance(h, 10)
  assert.equal(await view(h.anonymous, first.impression_id, 10_000), 204)
  assert.equal(await view(h.anonymous, second.impression_id, 10_000), 204)
  assert.deepEqual((await ledger(second.impression_id)).map((r) => r.reason), ['viewer_frequency'])
  assert.equal(await served(adv, id), 1)
  // Another ten seconds later the same viewer earns again.
  const third = (await decide(h.anonymous, { country, viewer_id: 'freq', surface: 'extension' }))!
  await advance(h, 10)
  assert.equal(await view(h.anonymous, third.impression_id, 10_000), 204)
  assert.equal(await served(adv, id), 2)
})

test('repeated views and clicks count once; the repeat is recorded once, never billed', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await create(adv, country, { destination_url: 'https://acme.dev' })
  const d = (await decide(h.anonymous, { country }))!
  await advance(h, 10)
  const statuses = await Promise.all(Array.from({ length: 5 }, () => view(h.anonymous, d.impression_id, 10_000)))
  assert.deepEqual(statuses, [204, 204, 204, 204, 204])
  assert.equal(await view(h.anonymous, d.impression_id, 12_000), 204)
  assert.equal(await served(adv, id), 1)
  for (let i = 0; i < 3; i++) {
    const click = await h.anonymous.get(new URL(d.click_url).pathname)
    assert.equal(click.status, 302)
    assert.equal(click.headers.get('location'), 'https://acme.dev/')
  }
  const rows = await ledger(d.impression_id)
  assert.deepEqual(rows.map((r) => [r.event_type, r.reason, r.billable, r.debit_micros]), [
    ['impression', null, true, 2500],
    ['repeat_view', 'repeat', false, 0],
    ['click', null, false, 0],
  ])
})

test('a repeat arriving after the ten-second window, or upgrading a short dwell, still bills nothing', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await create(adv, country)
  const [billed, short] = [(await decide(h.anonymous, { country }))!, (await decide(h.anonymous, { country }))!]
  await advance(h, 10)
  assert.equal(await view(h.anonymous, billed.impression_id, 10_000), 204)
  assert.equal(await view(h.anonymous, short.impression_id, 3_000), 204)
  await advance(h, 11)
  // The viewer's ten-second slot is free again, so only the ledger knows these impressions were measured.
  const repeats = await Promise.all([
    view(h.anonymous, billed.impression_id, 20_000),
    view(h.anonymous, short.impression_id, 20_000),
    view(h.anonymous, short.impression_id, 20_000),
  ])
  assert.deepEqual(repeats, [204, 204, 204])
  assert.equal(await served(adv, id), 1)
  assert.deepEqual((await ledger(short.impression_id)).map((r) => [r.event_type, r.reason]), [
    ['view', 'short_dwell'],
    ['repeat_view', 'repeat'],
  ])
})

test('unknown or forged impression ids are 404; offers older than one hour are 410', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  await create(adv, country)
  const d = (await decide(h.anonymous, { country }))!
  const forged = d.impression_id.slice(0, -2) + (d.impression_id.endsWith('AA') ? 'BB' : 'AA')
  assert.equal(await view(h.anonymous, 'imp_nope', 10_000), 404)
  assert.equal(await view(h.anonymous, forged, 10_000), 404)
  assert.equal((await h.anonymous.get(`/serve/v1/impressions/${forged}/click`)).status, 404)
  await advance(h, 3601)
  const late = await h.anonymous.post(`/serve/v1/impressions/${d.impression_id}/view`, { dwell_ms: 10_000 })
  assert.equal(late.status, 410)
  assert.ok(late.body.detail)
  // Recorded, never billed, once however often it is replayed.
  assert.equal(await view(h.anonymous, d.impression_id, 10_000), 410)
  assert.deepEqual((await ledger(d.impression_id)).map((r) => [r.event_type, r.reason, r.billable, r.dwell_ms]), [
    ['expired_view', 'expired', false, 10_000],
  ])
})

test('bad serving input is 400, never 500', async () => {
  for (const body of [{ surface: 'both', viewer_id: 'v' }, { surface: 'terminal' }, { surface: 'terminal', viewer_id: '' }, { surface: 'terminal', viewer_id: 'v', country: 'usa' }]) {
    assert.equal((await h.anonymous.post('/serve/v1/decisions', body)).status, 400, JSON.stringify(body))
  }
  assert.equal((await h.anonymous.post('/serve/v1/impressions/imp_x/view', { dwell_ms: -1 })).status, 400)
  assert.equal((await h.anonymous.post('/serve/v1/impressions/imp_x/view', { dwell_ms: '10000' })).status, 400)
})

test('exactly the bought number is billed under 200 concurrent viewers', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await create(adv, country, { impressions: 1000, cpm_usd: 1.5 })
  let acknowledged = 0
  for (let round = 0; round < 6; round++) {
    const offers = await Promise.all(Array.from({ length: 200 }, (_, v) => decide(h.anonymous, { country, viewer_id: `crowd-${v}` })))
    await advance(h, 10)
    const live = offers.filter((o) => o !== null)
    const statuses = await Promise.all(live.map((o) => view(h.anonymous, o.impression_id, 10_000)))
    acknowledged += statuses.filter((s) => s === 204).length
  }
  assert.ok(acknowledged >= 1000)
  const campaign = (await adv.get(`/v1/campaigns/${id}`)).body
  assert.equal(campaign.impressions_served, 1000)
  assert.equal(campaign.lifetime_spent_micros, 1000 * 1500)
  assert.equal(campaign.status, 'completed')
  const debits = await h.svc.service.store.db
    .selectFrom('ledger_events')
    .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.sum<string>('debit_micros').as('sum')])
    .where('campaign_id', '=', id)
    .where('event_type', '=', 'impression')
    .executeTakeFirstOrThrow()
  assert.equal(Number(debits.n), 1000)
  assert.equal(Number(debits.sum), campaign.lifetime_spent_micros, 'the ledger and the campaign agree to the micro')
})

test('a six-decimal CPM bills each block of 1,000 views at exactly its CPM, in whole micros', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await create(adv, country, { impressions: 2000, cpm_usd: 1.234567 })
  for (let round = 0; round < 6; round++) {
    const offers = await Promise.all(Array.from({ length: 200 }, (_, v) => decide(h.anonymous, { country, viewer_id: `precise-${v}` })))
    await advance(h, 10)
    const statuses = await Promise.all(offers.filter((o) => o !== null).map((o) => view(h.anonymous, o.impression_id, 10_000)))
    assert.ok(statuses.every((s) => s === 204))
  }
  const campaign = (await adv.get(`/v1/campaigns/${id}`)).body
  assert.equal(campaign.cpm_usd, 1.234567)
  assert.equal(campaign.impressions_served, 1200)
  const rows = await h.svc.service.store.db
    .selectFrom('ledger_events')
    .select('debit_micros')
    .where('campaign_id', '=', id)
    .where('event_type', '=', 'impression')
    .orderBy('event_id')
    .execute()
  const debits = rows.map((r) => r.debit_micros)
  assert.deepEqual(debits, debits.map((_, i) => impressionDebitMicros(1_234_567, i + 1)))
  assert.ok(debits.every((d) => d === 1234 || d === 1235))
  assert.equal(debits.slice(0, 1000).reduce((a, b) => a + b, 0), 1_234_567, 'the first block bills exactly its CPM')
  // 1,200 impressions: floor(1200 × 1,234,567 / 1000) micros, in the ledger and on the campaign alike.
  assert.equal(campaign.lifetime_spent_micros, 1_481_480)
  assert.equal(debits.reduce((a, b) => a + b, 0), campaign.lifetime_spent_micros)
})
