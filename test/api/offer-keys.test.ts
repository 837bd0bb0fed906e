import assert from 'node:assert/strict'
import { createHmac, randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { campaignBody, useService, type TestHarness } from '../helpers/api.ts'
import { advance, decide, privateCountry, served, view } from '../helpers/serving.ts'
import { OfferSealer } from '../../src/serving/offer-token.ts'
import { readStoredSecret } from '../../src/store/settings.ts'

/**
 * What a copy of the database forges of impression ids (docs/sealing-keys.md,
 * "What is sealed, and what production refuses"). With OFFER_KEYS unset the key sealing them is
 * a settings row: a dump opens every id and seals new ones that bill. With
 * OFFER_KEYS set, nothing in the database opens or forges one, including the
 * readable ids of before sealing, which the serving secret (kept in the
 * store) used to verify.
 */
const inStore = useService({}, { create_rate_limit_per_min: 1000 })
const outside = useService({ OFFER_KEYS: `1:${randomBytes(32).toString('hex')}` }, { create_rate_limit_per_min: 1000 })

/** A campaign serving a country of its own, and one genuine impression id of it. */
async function genuineOffer(h: TestHarness) {
  const adv = await h.advertiser()
  const country = privateCountry()
  const created = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country] }))
  assert.equal(created.status, 201, created.text)
  const decision = await decide(h.anonymous, { country, viewer_id: `forgery-${randomBytes(4).toString('hex')}` })
  assert.ok(decision)
  return { adv, campaignId: created.body.campaign_id as string, impressionId: decision.impression_id }
}

const keyRow = async (h: TestHarness, name: 'offer_key' | 'serving_secret') => readStoredSecret(h.svc.service.store.db, name)

test('OFFER_KEYS unset: the offer key in the database opens every impression id and forges new ones that bill', async () => {
  const { adv, campaignId, impressionId } = await genuineOffer(inStore)
  const sealer = new OfferSealer([{ id: 0, key: (await keyRow(inStore, 'offer_key'))! }])
  const offer = sealer.open(impressionId)
  assert.equal(offer?.campaignId, campaignId, 'the dump reads the campaign, account and viewer out of the id')
  await advance(inStore, 10)
  const forged = sealer.seal({ ...offer!, viewerKey: 'forged-viewer', offeredAtMs: inStore.svc.clock.nowMs() - 10_000 })
  assert.equal(await view(inStore.anonymous, forged, 10_000), 204)
  assert.equal(await served(adv, campaignId), 1, 'a forged view billed')
})

test('OFFER_KEYS set: nothing in the database opens an impression id or forges one, not even a readable id of before sealing', async () => {
  const { adv, campaignId, impressionId } = await genuineOffer(outside)
  assert.equal(await keyRow(outside, 'offer_key'), null, 'no offer key is kept in the store')
  const servingSecret = (await keyRow(outside, 'serving_secret'))!
  assert.equal(new OfferSealer([{ id: 1, key: servingSecret }]).open(impressionId), null)
  await advance(outside, 10)
  const { userId } = adv
  const creativeId = (await adv.get(`/v1/campaigns/${campaignId}`)).body.creatives[0].creative_id as string
  const offeredAt = (outside.svc.clock.nowMs() - 10_000).toString(36)
  // The readable format of before sealing, MAC'd with the serving secret as it was then.
  const payload = Buffer.from([campaignId, creativeId, userId, 'e', '', 'forged-viewer', offeredAt, 'nonce'].join('~')).toString('base64url')
  const mac = createHmac('sha256', servingSecret).update(payload).digest().subarray(0, 16).toString('base64url')
  assert.equal(await view(outside.anonymous, `imp_${payload}.${mac}`, 10_000), 404)
  // The sealed format under the stored key's id 0 with a key from the database.
  const offer = { campaignId, creativeId, userId, surface: 'extension' as const, country: null, viewerKey: 'forged-viewer', source: null, offeredAtMs: outside.svc.clock.nowMs() - 10_000, origin: 0 }
  assert.equal(await view(outside.anonymous, new OfferSealer([{ id: 0, key: servingSecret }]).seal(offer), 10_000), 404)
  assert.equal(await view(outside.anonymous, impressionId, 10_000), 204, 'the genuine id still bills')
  assert.equal(await served(adv, campaignId), 1)
})
