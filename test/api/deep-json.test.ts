import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService, type Advertiser, type Client, type Reply } from '../helpers/api.ts'
import { portalAdvertiser } from '../helpers/portal.ts'
import { decide, privateCountry } from '../helpers/serving.ts'

/**
 * Issue 35: a JSON body nested far deeper than any operation takes is 400
 * `too_deep` on every route, whether the route reads a body or not, never a
 * 500 from a stack overflow (docs/operations.md, "Request bodies").
 */
const h = useService()

const MAX_DEPTH = 32
const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)
const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
const DEEP_BODIES: [name: string, raw: string][] = [
  ['an array 10,000 deep', deepArray(10_000)],
  ['an object 10,000 deep', deepObject(10_000)],
]

const sendRaw = (client: Client, method: string, path: string, raw: string) =>
  client.call(method, path, { raw, headers: { 'content-type': 'application/json' } })

function assertTooDeep(res: Reply, what: string): void {
  assert.equal(res.status, 400, `${what}: ${res.text.slice(0, 300)}`)
  assert.deepEqual(res.body.detail, { field: 'body', reason: 'too_deep', max_depth: MAX_DEPTH }, what)
}

async function activeCampaign(adv: Advertiser, country = privateCountry()): Promise<string> {
  const created = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country] }))
  assert.equal(created.status, 201, created.text)
  return created.body.campaign_id
}

test('a deep JSON body is 400 too_deep on the body-less campaign actions, which then do nothing', async () => {
  const adv = await h.advertiser()
  const id = await activeCampaign(adv)
  const calls: [method: string, path: string][] = [
    ['POST', `/v1/campaigns/${id}/pause`],
    ['POST', `/v1/campaigns/${id}/resume`],
    ['POST', `/v1/campaigns/${id}/preview`],
    ['DELETE', `/v1/campaigns/${id}`],
  ]
  for (const [method, path] of calls) {
    for (const [name, raw] of DEEP_BODIES) assertTooDeep(await sendRaw(adv, method, path, raw), `${method} ${path}, ${name}`)
  }
  const read = await adv.get(`/v1/campaigns/${id}`)
  assert.equal(read.status, 200, read.text)
  assert.equal(read.body.status, 'active', 'a refused pause or cancel changed the campaign')
})

test('a deep JSON body is 400 too_deep on routes with a body schema: /v1, the operator API, serving', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const id = await activeCampaign(adv, country)
  const calls: [Client, string, string][] = [
    [adv, 'POST', '/v1/campaigns'],
    [adv, 'PATCH', `/v1/campaigns/${id}`],
    [adv, 'POST', '/v1/exports'],
    [adv, 'POST', '/v1/webhook-endpoints'],
    [h.admin, 'POST', '/admin/v1/accounts'],
    [h.admin, 'PATCH', '/admin/v1/config'],
    [h.admin, 'POST', `/admin/v1/accounts/${adv.userId}/write-approval`],
    [h.anonymous, 'POST', '/serve/v1/decisions'],
  ]
  for (const [client, method, path] of calls) {
    for (const [name, raw] of DEEP_BODIES) assertTooDeep(await sendRaw(client, method, path, raw), `${method} ${path}, ${name}`)
  }
  const decision = await decide(h.anonymous, { country })
  assert.ok(decision, 'the campaign is still served')
  for (const [name, raw] of DEEP_BODIES) {
    assertTooDeep(await sendRaw(h.anonymous, 'POST', `/serve/v1/impressions/${decision.impression_id}/view`, raw), `view, ${name}`)
  }
})

test('nesting up to 32 levels is left to the schema; 33 is too_deep', async () => {
  const adv = await h.advertiser()
  const nested = (depth: number) => JSON.stringify(campaignBody()).replace(/\}$/, `,"extra":${deepArray(depth - 1)}}`)
  const at32 = await sendRaw(adv, 'POST', '/v1/campaigns', nested(MAX_DEPTH))
  assert.equal(at32.status, 400, at32.text)
  assert.deepEqual([at32.body.detail.field, at32.body.detail.reason], ['extra', 'unknown_field'])
  assertTooDeep(await sendRaw(adv, 'POST', '/v1/campaigns', nested(MAX_DEPTH + 1)), '33 levels')
  // Brackets inside strings are text, not nesting.
  const bracketed = await adv.post('/v1/campaigns', campaignBody({ name: '['.repeat(40) }))
  assert.equal(bracketed.status, 201, bracketed.text)
})

test('the portal: a deep JSON body is a 400 page, a deeply bracketed form field name is no 500', async () => {
  const adv = await portalAdvertiser(h)
  const page = await adv.browser.get('/portal/campaigns/new')
  assert.equal(page.status, 200)
  const headers = { cookie: [...adv.browser.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'x-forwarded-for': adv.browser.ip }
  for (const [name, raw] of DEEP_BODIES) {
    const res = await fetch(`${h.baseUrl}/portal/campaigns/new`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: raw })
    const text = await res.text()
    assert.equal(res.status, 400, `${name}: ${text.slice(0, 300)}`)
    assert.match(text, /body \(too deep\)/, name) // the reason in words (issue 36)
  }
  // Forms are flat (`a[a][a]` is one field name), so nesting cannot reach them; the form is refused as incomplete.
  const form = await adv.browser.post('/portal/campaigns/new', { ['a' + '[a]'.repeat(10_000)]: '1' }, page)
  assert.ok(form.status >= 200 && form.status < 500, `a deep form field name answered ${form.status}: ${form.words.slice(0, 300)}`)
  assert.notEqual(form.status, 303, 'a form without its fields created a campaign')
})
