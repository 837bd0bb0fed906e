import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { advance, decide, deliver, privateCountry, type Decision } from '../helpers/serving.ts'
import { estimateCtr } from '../../src/domain/ctr.ts'
import { readClickCtrCounts } from '../../src/store/serving.ts'

/**
 * The one auction ranks by expected value per impression: an impression campaign's CPM, a click
 * campaign's CPM × its estimated CTR on the surface
 * (docs/decisions/0109-auction-expected-value-per-impression.md). The tests run in order on one service: the first sees no click data anywhere, so every
 * click campaign is estimated at the fixed prior of 1 %.
 */
const h = useService({}, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })

async function create(adv: Advertiser, countries: string[], overrides: Record<string, unknown>): Promise<string> {
  const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: countries, impressions: 1000, ...overrides }))
  assert.equal(res.status, 201, res.text)
  return res.body.campaign_id
}

const winner = async (country: string) => (await decide(h.anonymous, { country }))?.ad_line

test('with no click data, a click campaign is worth its CPM × 1 %; equal values go to the campaign created first', async () => {
  const adv = await h.advertiser()
  const [a, b, c, d] = [privateCountry(), privateCountry(), privateCountry(), privateCountry()]
  await create(adv, [a], { cpm_usd: 1, ad_line: 'Impression created first' })
  await create(adv, [a], { cpm_usd: 100, kind: 'click', ad_line: 'Click created second' })
  await create(adv, [b], { cpm_usd: 100, kind: 'click', ad_line: 'Click created first' })
  await create(adv, [b], { cpm_usd: 1, ad_line: 'Impression created second' })
  await create(adv, [c], { cpm_usd: 100, kind: 'click', ad_line: 'Click worth one dollar' })
  await create(adv, [c], { cpm_usd: 1.01, ad_line: 'Impression at 1.01' })
  await create(adv, [d], { cpm_usd: 100, kind: 'click', ad_line: 'Click worth one dollar' })
  await create(adv, [d], { cpm_usd: 0.99, ad_line: 'Impression at 0.99' })
  assert.equal(await winner(a), 'Impression created first', 'a tie: creation order')
  assert.equal(await winner(b), 'Click created first', 'a tie: creation order')
  assert.equal(await winner(c), 'Impression at 1.01')
  assert.equal(await winner(d), 'Click worth one dollar')
})

test('observed clicks move a click campaign\'s estimate; a new one is estimated at the platform\'s CTR', async () => {
  const adv = await h.advertiser()
  const [shared, own] = [privateCountry(), privateCountry()]
  const fresh = await create(adv, [shared], { cpm_usd: 100, kind: 'click', ad_line: 'Never clicked line' })
  const clicked = await create(adv, [shared, own], { cpm_usd: 100, kind: 'click', ad_line: 'Often clicked line' })
  assert.equal(await winner(shared), 'Never clicked line', 'equal estimates: creation order')

  // Twenty qualified views of the second campaign where it serves alone, half of them clicked.
  const offers: Decision[] = []
  for (let i = 0; i < 20; i++) offers.push((await decide(h.anonymous, { country: own, viewer_id: `ctr-${process.pid}-${i}` }))!)
  await advance(h, 10)
  for (const o of offers) assert.equal((await h.anonymous.post(`/serve/v1/impressions/${o.impression_id}/view`, { dwell_ms: 10_000 })).status, 204)
  for (const o of offers.slice(0, 10)) assert.equal((await h.anonymous.get(new URL(o.click_url).pathname)).status, 302)
  await advance(h, 1)
  assert.equal(await winner(shared), 'Often clicked line', 'its clicks now outrank the campaign created first')

  const counts = await readClickCtrCounts(h.svc.service.store.db)
  assert.deepEqual(counts.campaigns.get(clicked)?.extension, { impressions: 20, clicks: 10 })
  const index = h.svc.service.serving.index
  assert.deepEqual(index.estimatedCtr(clicked, 'extension'), estimateCtr({ impressions: 20, clicks: 10 }, counts.platform.extension))
  assert.deepEqual(index.estimatedCtr(fresh, 'extension'), estimateCtr({ impressions: 0, clicks: 0 }, counts.platform.extension), 'a new campaign: the platform\'s CTR')
})

test('a click campaign whose views are not clicked falls below an impression campaign it outbid at first', async () => {
  const adv = await h.advertiser()
  const [shared, own] = [privateCountry(), privateCountry()]
  await create(adv, [shared, own], { cpm_usd: 100, kind: 'click', ad_line: 'Unclicked click line' })
  await create(adv, [shared], { cpm_usd: 0.9, ad_line: 'Impression at 0.90' })
  assert.equal(await winner(shared), 'Unclicked click line')
  assert.equal(await deliver(h, own, 400), 400)
  await advance(h, 1)
  assert.equal(await winner(shared), 'Impression at 0.90')
})

test('offers are not clicks: a click campaign with five clicks left keeps taking offers', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await create(adv, [country], { cpm_usd: 5, kind: 'click', ad_line: 'Five clicks left' })
  await sql`UPDATE campaigns SET impressions_billed = 995, impressions_leased = 995 WHERE campaign_id = ${id}`.execute(h.svc.service.store.db)
  await advance(h, 2)
  const filled = await Promise.all(Array.from({ length: 40 }, (_, i) => decide(h.anonymous, { country, viewer_id: `left-${process.pid}-${i}` })))
  assert.equal(filled.filter((d) => d !== null).length, 40, 'an impression campaign would stop at five outstanding offers')
})

test('pace_minutes spreads the purchased clicks: offers stop once the clicks delivered reach the schedule', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  // 1,000 clicks over 1,000 minutes: the k-th click is due after k minutes.
  await create(adv, [country], { cpm_usd: 5, kind: 'click', pace_minutes: 1000, ad_line: 'Paced click line' })
  await advance(h, 30)
  assert.equal(await winner(country), undefined, 'nothing due before the first minute')
  await advance(h, 31)
  const offers: Decision[] = []
  for (let i = 0; i < 5; i++) offers.push((await decide(h.anonymous, { country, viewer_id: `paced-${process.pid}-${i}` }))!)
  assert.ok(offers.every((o) => o?.ad_line === 'Paced click line'), 'offers are not clicks: several offers for the one click due')
  assert.equal((await h.anonymous.get(new URL(offers[0]!.click_url).pathname)).status, 302)
  await advance(h, 1)
  assert.equal(await winner(country), undefined, 'one click delivered: on schedule until the second minute')
  await advance(h, 60)
  assert.equal(await winner(country), 'Paced click line')
})
