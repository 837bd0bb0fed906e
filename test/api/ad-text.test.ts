import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { fieldError, inputValue } from '../helpers/html.ts'
import { portalAdvertiser } from '../helpers/portal.ts'
import { decide, privateCountry } from '../helpers/serving.ts'
import { DecisionSchema } from '../../src/http/schemas/serving.ts'

// Issue 34, point 5: ad text that is not text. Every way in (create, rewrite, preview, the portal's
// forms) shares the one rule of src/domain/text-rules.ts; over real HTTP, on both stores.
const h = useService({}, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null })

/** The attack of the review: a three-letter line carrying 10,000 combining marks (20 KB). */
const ZALGO = `abc${'\u0301'.repeat(10_000)}`
/** The longest emoji sequence Unicode recommends: 10 code points, 35 bytes. */
const KISS = '👩🏽‍❤️‍💋‍👨🏻'
const FAMILY = '👩‍👩‍👧‍👦'
/** Legitimate lines the caps must never refuse. */
const LEGAL = [
  `Ship faster ${FAMILY} with Acme CI`,
  KISS.repeat(60),
  FAMILY.repeat(60),
  '🇫🇷🇩🇪🇯🇵🏴󠁧󠁢󠁳󠁣󠁴󠁿 flags fly here',
  '🏳️‍🌈 🏳️‍⚧️ 👁️‍🗨️ #️⃣ 1️⃣ keycaps',
  'Tiếng Việt có dấu'.normalize('NFD'),
  'राष्ट्रीय कार्त्स्न्यं क्षमता',
  'שָׁלוֹם עוֹלָם',
  '<script>alert(1)</script>',
]

async function create(adv: Advertiser, overrides: Record<string, unknown>) {
  return adv.post('/v1/campaigns', campaignBody(overrides))
}

function assertRefused(res: { status: number; body: any; text: string }, field: string, reason: string, label: string) {
  assert.equal(res.status, 400, `${label}: ${res.text.slice(0, 300)}`)
  assert.equal(res.body.detail.field, field, label)
  assert.equal(res.body.detail.reason, reason, label)
}

test('the attack: a "60-character" line of 10,000 combining marks is refused on create, rewrite and preview', async () => {
  const adv = await h.advertiser()
  const created = await create(adv, { ad_line: ZALGO })
  assertRefused(created, 'ad_line', 'too_long', 'create')
  assert.deepEqual(created.body.detail, { field: 'ad_line', reason: 'too_long', min_length: 3, max_length: 60, max_code_points: 600, max_bytes: 2100 })
  for (const field of ['brand', 'name']) assertRefused(await create(adv, { [field]: `Acme${'\u0301'.repeat(2_000)}` }), field, 'too_long', field)

  const ok = await create(adv, {})
  assert.equal(ok.status, 201, ok.text)
  const id = ok.body.campaign_id
  assertRefused(await adv.patch(`/v1/campaigns/${id}`, { ad_line: ZALGO }), 'ad_line', 'too_long', 'rewrite')
  assertRefused(await adv.patch(`/v1/campaigns/${id}`, { name: ZALGO }), 'name', 'too_long', 'rename')
  assertRefused(await adv.post('/v1/preview', { ad_line: ZALGO, destination_url: 'https://acme.dev/' }), 'ad_line', 'too_long', 'preview')
  assertRefused(await adv.post('/v1/preview', { ad_line: 'Acme CI', brand: ZALGO, destination_url: 'https://acme.dev/' }), 'brand', 'too_long', 'preview brand')

  const read = await adv.get(`/v1/campaigns/${id}`)
  assert.equal(read.body.ad_line, 'Ship faster with Acme CI', 'the refused rewrite changed nothing')
  const creatives = (await adv.get('/v1/creatives')).body.creatives
  assert.equal(creatives.length, 1, 'only the legitimate order was booked')
  assert.ok(creatives.every((c: any) => c.ad_line.length < 100))
})

test('more than 4 combining marks on one character is too_many_combining_marks; 4 are fine', async () => {
  const adv = await h.advertiser()
  const stacked = `Acme${'\u0301'.repeat(5)} CI`
  const res = await create(adv, { ad_line: stacked })
  assert.deepEqual(res.body.detail, { field: 'ad_line', reason: 'too_many_combining_marks', min_length: 3, max_length: 60, max_combining_marks: 4 })
  // Joiners between the marks do not start a new character: the marks still stack on the "e".
  assertRefused(await create(adv, { ad_line: `Acme${'\u0301\u0301\u0301\u200d'.repeat(2)} CI` }), 'ad_line', 'too_many_combining_marks', 'joined')
  assertRefused(await create(adv, { brand: `Acme${'\u0308'.repeat(5)}` }), 'brand', 'too_many_combining_marks', 'brand')
  const ok = await create(adv, { ad_line: `Acme${'\u0301'.repeat(4)} CI` })
  assert.equal(ok.status, 201, ok.text)
  const id = ok.body.campaign_id
  assertRefused(await adv.patch(`/v1/campaigns/${id}`, { ad_line: stacked }), 'ad_line', 'too_many_combining_marks', 'rewrite')
  assertRefused(await adv.post('/v1/preview', { ad_line: stacked, destination_url: 'https://acme.dev/' }), 'ad_line', 'too_many_combining_marks', 'preview')
  // The operator's rejection reason is display text too (the advertiser reads it).
  const rejected = await h.admin.post(`/admin/v1/campaigns/${id}/moderation`, { status: 'rejected', reason: `No${'\u0301'.repeat(5)}` })
  assertRefused(rejected, 'reason', 'too_many_combining_marks', 'moderation reason')
})

test('emoji ZWJ sequences, flags, keycaps, Indic conjuncts, Vietnamese and Hebrew stay legal, and so does <script>', async () => {
  const adv = await h.advertiser()
  for (const line of LEGAL) {
    const res = await create(adv, { ad_line: line, brand: [...line].slice(0, 40).join(''), name: line })
    assert.equal(res.status, 201, `${line}: ${res.text}`)
    const read = await adv.get(`/v1/campaigns/${res.body.campaign_id}`)
    assert.equal(read.body.ad_line, line, 'stored exactly as written')
    const preview = await adv.post('/v1/preview', { ad_line: line, destination_url: 'https://acme.dev/' })
    assert.equal(preview.status, 201, `${line}: ${preview.text}`)
    assert.equal((await adv.patch(`/v1/campaigns/${res.body.campaign_id}`, { ad_line: line })).status, 200)
  }
  assertRefused(await create(adv, { ad_line: KISS.repeat(61) }), 'ad_line', 'too_long', '61 emoji')
})

test('the serving response carries <script> as the plain text it is (clients escape it)', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const line = '<script>alert("hi")</script> & <b>bold</b>'
  const res = await create(adv, { ad_line: line, brand: '<img src=x onerror=alert(1)>', target_countries: [country], impressions: 1000, cpm_usd: 40 })
  assert.equal(res.status, 201, res.text)
  const decision = await decide(h.anonymous, { country })
  assert.equal(decision?.ad_line, line, 'verbatim: no escaping, no stripping')
  assert.equal(decision?.brand, '<img src=x onerror=alert(1)>')
  // …and the serving response's schema says so to every client.
  for (const field of ['ad_line', 'brand'] as const) assert.match((DecisionSchema.properties[field] as { description?: string }).description ?? '', /Plain text .* must escape it/, field)
})

test('the portal forms share the rule: create and rewrite refuse the attack beside the field', async () => {
  const adv = await portalAdvertiser(h)
  const form = await adv.browser.get('/portal/campaigns/new')
  const fields = {
    _csrf: /name="_csrf" value="([^"]+)"/.exec(form.text)![1]!,
    idempotency_key: inputValue(form.text, 'idempotency_key')!,
    name: 'Spring launch',
    ad_line: `abc${'\u0301'.repeat(900)}`,
    brand: 'Acme',
    cpm_usd: '2.50',
    blocks: '1',
    destination_url: 'https://acme.dev/ci',
    target_surface: 'extension',
    kind: 'impression',
  }
  const refused = await adv.browser.post('/portal/campaigns/new', fields)
  assert.equal(refused.status, 400)
  assert.equal(fieldError(refused.text, 'ad_line'), 'Use at most 60 characters for the ad line (an emoji counts as one).')
  const stacked = await adv.browser.post('/portal/campaigns/new', { ...fields, ad_line: `Acme${'\u0301'.repeat(5)} CI` })
  assert.equal(stacked.status, 400)
  assert.equal(fieldError(stacked.text, 'ad_line'), 'Use at most 4 accents or other combining marks on one character in the ad line.')
  assert.equal((await adv.api.get('/v1/campaigns')).body.campaigns.length, 0)

  const created = await adv.browser.post('/portal/campaigns/new', { ...fields, ad_line: `Ship faster ${FAMILY} 🇫🇷` })
  assert.equal(created.status, 303, created.text.slice(0, 500))
  const path = created.location!.replace(/\?.*$/, '')
  const rewrite = await adv.browser.post(`${path}/ad-line`, { ad_line: `Acme${'\u0301'.repeat(5)} CI` })
  assert.equal(rewrite.status, 400)
  assert.equal(fieldError(rewrite.text, 'ad_line'), 'Use at most 4 accents or other combining marks on one character.')
  const long = await adv.browser.post(`${path}/ad-line`, { ad_line: ZALGO.slice(0, 700) })
  assert.equal(long.status, 400)
  assert.equal(fieldError(long.text, 'ad_line'), 'Use at most 60 characters.')
  assert.equal((await adv.api.get('/v1/campaigns')).body.campaigns[0].ad_line, `Ship faster ${FAMILY} 🇫🇷`)
})

const svgIcon = (inner: string, attrs = '') =>
  `data:image/svg+xml;base64,${Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"${attrs}>${inner}</svg>`).toString('base64')}`

test('the attack: an icon_url data URI no longer skips the checks; an SVG with script or external references is refused', async () => {
  const adv = await h.advertiser()
  const cases: [string, string, Record<string, unknown>][] = [
    [svgIcon('<script>alert(document.domain)</script>'), 'unsafe_svg', { found: 'element <script>' }],
    [svgIcon('<circle r="4"/>', ' onload="alert(1)"'), 'unsafe_svg', { found: 'event attribute onload' }],
    [svgIcon('<foreignObject><iframe xmlns="http://www.w3.org/1999/xhtml" src="https://evil.example/"/></foreignObject>'), 'unsafe_svg', { found: 'element <foreignObject>' }],
    [svgIcon('<linearGradient id="g" href="javascript:alert(1)"/>'), 'unsafe_svg', { found: 'javascript: URL' }],
    [svgIcon('<rect width="16" height="16" fill="url(https://tracker.example/p.svg#p)"/>'), 'unsafe_svg', { found: 'external reference' }],
    [svgIcon('<style>@import url(https://tracker.example/x.css);</style>'), 'unsafe_svg', { found: 'element <style>' }],
    [`data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg"><text>pay \u202Eenil-no</text></svg>')}`, 'control_characters', {}],
    [`data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg"><text>a${'\u0301'.repeat(50)}</text></svg>`)}`, 'too_many_combining_marks', {}],
    [`data:image/png;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>').toString('base64')}`, 'invalid_icon_url', {}],
    ['data:image/svg+xml,<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>', 'invalid_icon_url', {}], // raw spaces: the URL rule
  ]
  const ok = await create(adv, {})
  const id = ok.body.campaign_id
  for (const [icon_url, reason, facts] of cases) {
    const label = `${reason}: ${icon_url.slice(0, 80)}`
    const created = await create(adv, { icon_url })
    assert.deepEqual([created.status, created.body.detail], [400, { field: 'icon_url', reason, ...facts }], label)
    const preview = await adv.post('/v1/preview', { ad_line: 'Acme CI', destination_url: 'https://acme.dev/', icon_url })
    assert.deepEqual([preview.status, preview.body.detail], [400, { field: 'icon_url', reason, ...facts }], `preview ${label}`)
  }
  assert.equal((await adv.get('/v1/creatives')).body.creatives.length, 1, 'no refused icon was stored')
  assert.equal((await adv.get(`/v1/campaigns/${id}`)).body.creatives[0].icon_url, null)

  const portal = await portalAdvertiser(h)
  const form = await portal.browser.get('/portal/campaigns/new')
  const refused = await portal.browser.post('/portal/campaigns/new', {
    idempotency_key: inputValue(form.text, 'idempotency_key')!,
    ad_line: 'Ship faster with Acme CI',
    cpm_usd: '2.50',
    blocks: '1',
    destination_url: 'https://acme.dev/ci',
    target_surface: 'extension',
    kind: 'impression',
    icon_url: cases[0]![0],
  })
  assert.equal(refused.status, 400)
  assert.equal(
    fieldError(refused.text, 'icon_url'),
    'This SVG icon holds something an icon may not (element <script>): use shapes, gradients and text only, with no scripts, event handlers or links to other files.',
  )
})

test('a static SVG icon and a PNG are stored and served as sent', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const icon = svgIcon('<defs><linearGradient id="g"><stop offset="0" stop-color="#f80"/></linearGradient></defs><circle cx="8" cy="8" r="7" fill="url(#g)"/><text x="8" y="11">A</text>')
  const res = await create(adv, { icon_url: icon, target_countries: [country], impressions: 1000, cpm_usd: 40 })
  assert.equal(res.status, 201, res.text)
  assert.equal((await decide(h.anonymous, { country }))?.icon_url, icon)
  const png = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
  assert.equal((await create(adv, { icon_url: png })).status, 201)
  assert.equal((await adv.post('/v1/preview', { ad_line: 'Acme CI', destination_url: 'https://acme.dev/', icon_url: icon })).status, 201)
})
