/**
 * Issue 49, finding 6: the quote answers in bands, so a bisection cannot find a competitor's bid.
 * The review's attack, against the real GET /v1/auction/quote: bisect cpm_usd to the micro-USD
 * (about 26 quotes here) on the rank. Two competitors whose bids are 8.5 % apart, each alone in a
 * country of its own, give the attacker the same answers, quote for quote, and the same threshold:
 * no sequence of quotes tells them apart, so none pins either closer than its band (over 5 %).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { privateCountry } from '../helpers/serving.ts'
import { priceBand } from '../../src/domain/quote.ts'

const h = useService({}, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null })

/** Bisects the bid, in micro-USD, at which the attacker's rank on `country` becomes 1; every answer, in order. */
async function bisect(attacker: Advertiser, country: string, floorMicros: number) {
  const answers: unknown[] = []
  const rankAt = async (micros: number) => {
    const res = await attacker.get(`/v1/auction/quote?cpm_usd=${micros / 1e6}&target_countries=${country}`)
    assert.equal(res.status, 200, res.text)
    const { based_on, ...figures } = res.body
    answers.push({ micros, ...figures, based_on: { ...based_on, countries: null } })
    return res.body.rank
  }
  let lo = floorMicros
  let hi = 50_000_000
  assert.equal(await rankAt(lo), 2, 'at the floor the competitor is ahead')
  assert.equal(await rankAt(hi), 1)
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2)
    if ((await rankAt(mid)) === 1) hi = mid
    else lo = mid
  }
  return { threshold: hi, answers }
}

test('a bisection on the rank finds the band edge, not the bid: bids 8.5 % apart answer the same, quote for quote', async () => {
  const attacker = await h.advertiser()
  const floorMicros = Math.round((await attacker.get('/v1/account')).body.config.min_cpm_usd * 1e6)
  const bids = [3_310_000, 3_590_000]
  const runs = []
  for (const micros of bids) {
    const country = privateCountry()
    const res = await (await h.advertiser()).post('/v1/campaigns', campaignBody({ cpm_usd: micros / 1e6, impressions: 1000, target_countries: [country] }))
    assert.equal(res.status, 201, res.text)
    runs.push(await bisect(attacker, country, floorMicros))
  }
  const [low, high] = runs as [Awaited<ReturnType<typeof bisect>>, Awaited<ReturnType<typeof bisect>>]
  assert.ok(low.answers.length >= 25, `${low.answers.length} quotes`)
  // Before the fix the threshold was each bid plus one micro-USD: 3,310,001 and 3,590,001.
  assert.equal(low.threshold, 3_600_000, 'the next band\'s edge')
  assert.equal(high.threshold, 3_600_000)
  assert.deepEqual(high.answers, low.answers, 'every quote answered the same for both competitors')
  assert.ok(bids[1]! / bids[0]! > 1.05)
  // What the attacker can conclude from the threshold and the published bands: the bid lies in [$3.30, $3.60), 9 % wide.
  const edge = Number(priceBand({ num: 3_599_999n, den: 1n }))
  assert.equal(edge, 3_300_000)
  assert.ok(low.threshold / edge >= 1.05)
})

test('rank within 1 %: bids 1 % apart inside a band quote the same place', async () => {
  const [competitor, attacker] = [await h.advertiser(), await h.advertiser()]
  const country = privateCountry()
  assert.equal((await competitor.post('/v1/campaigns', campaignBody({ cpm_usd: 4.5, impressions: 2000, target_countries: [country] }))).status, 201)
  const at = async (cpm: number) => (await attacker.get(`/v1/auction/quote?cpm_usd=${cpm}&target_countries=${country}`)).body
  // The competitor's $4.50 is in the $4.30–4.70 band: $4.46 and $4.54 (each 1 % from it) answer alike, behind it.
  const [below, above] = [await at(4.455), await at(4.545)]
  assert.deepEqual([below.rank, below.impressions_ahead], [2, 2000])
  assert.deepEqual(above, below)
})
