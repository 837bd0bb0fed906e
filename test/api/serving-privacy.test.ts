import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService } from '../helpers/api.ts'
import { advance, decide, privateCountry, served, view } from '../helpers/serving.ts'

/**
 * The serving side never reveals account data (operations.md section 2): an
 * impression id is sealed, not merely signed. Ids from real decisions are
 * checked in every decoding, and any change to one makes it unknown.
 */
const h = useService({}, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })

/** Every six-character piece of `s` (a random six-character match is about a 1e-9 event). */
const pieces = (s: string) => Array.from({ length: s.length - 5 }, (_, i) => s.slice(i, i + 6))

test('impression ids from real decisions reveal no campaign, creative, account or viewer in any decoding', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const created = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 1000 }))
  assert.equal(created.status, 201, created.text)
  const campaignId: string = created.body.campaign_id
  const creative = await h.svc.service.store.db.selectFrom('creatives').select('creative_id').where('campaign_id', '=', campaignId).executeTakeFirstOrThrow()
  assert.match(creative.creative_id, /^crv_/)
  const viewers = ['viewer-install-0001', 'viewer-install-0002', 'viewer-install-0003', 'viewer-install-0004']
  const viewerKeys = viewers.map((v) => h.svc.service.serving.viewerKey(v))
  const secrets = [campaignId, creative.creative_id, adv.userId!, ...viewers, ...viewerKeys].flatMap(pieces)
  const prefixes = ['usr_', 'cmp_', 'crv_', 'blk_']
  for (let i = 0; i < 40; i++) {
    const d = await decide(h.anonymous, { country, viewer_id: viewers[i % viewers.length] })
    assert.ok(d)
    assert.ok(d.view_url.endsWith(`/${d.impression_id}/view`))
    const text = d.impression_id.slice('imp_'.length)
    for (const piece of secrets) assert.ok(!text.includes(piece), `"${piece}" readable in ${d.impression_id}`)
    for (let from = 0; from < 4; from++) {
      const bytes = Buffer.from(text.slice(from), 'base64url')
      for (const decoded of [bytes.toString('latin1'), bytes.toString('utf8'), bytes.toString('hex'), Buffer.from(text.slice(from), 'base64').toString('latin1')]) {
        for (const needle of [...secrets, ...prefixes]) assert.ok(!decoded.includes(needle), `"${needle}" readable in a decoding of ${d.impression_id}`)
      }
    }
  }
})

test('any changed character of an impression id is 404 for views and clicks; the genuine id still bills', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const created = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 1000 }))
  const d = await decide(h.anonymous, { country })
  assert.ok(d)
  await advance(h, 10)
  const id = d.impression_id
  for (let i = 0; i < id.length; i++) {
    const changed = id.slice(0, i) + (id[i] === 'A' ? 'B' : 'A') + id.slice(i + 1)
    assert.equal(await view(h.anonymous, changed, 10_000), 404, `character ${i}`)
    if (i % 8 === 0) assert.equal((await h.anonymous.get(`/serve/v1/impressions/${changed}/click`)).status, 404, `click, character ${i}`)
  }
  assert.equal(await view(h.anonymous, id.slice(0, -1), 10_000), 404)
  assert.equal(await view(h.anonymous, `${id}A`, 10_000), 404)
  assert.equal(await served(adv, created.body.campaign_id), 0)
  assert.equal(await view(h.anonymous, id, 10_000), 204)
  assert.equal(await served(adv, created.body.campaign_id), 1)
})
