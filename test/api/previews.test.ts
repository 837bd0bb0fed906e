import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, Client, useService, type Reply } from '../helpers/api.ts'

const h = useService()

const DAY_MS = 24 * 3_600_000
const FAMILY = '👨‍👩‍👧' // one user-perceived character, eight UTF-16 code units
const HTTPS_ICON = 'https://cdn.acme.dev/brand/icon.png'
const PNG_1X1 =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

function previewBody(overrides: Record<string, unknown> = {}) {
  return { ad_line: 'Ship faster with Acme CI', destination_url: 'https://acme.dev/ci', ...overrides }
}

/** The public page, fetched by path: PUBLIC_URL's port is not the test port. */
function page(previewUrl: string): Promise<Reply<string>> {
  return h.anonymous.get<string>(new URL(previewUrl).pathname)
}

const advance = async (seconds: number) => {
  const res = await h.admin.post('/admin/v1/clock', { advance_seconds: seconds })
  assert.equal(res.status, 200, res.text)
}

const srcAttributes = (html: string) => [...html.matchAll(/\ssrc\s*=\s*["']?([^"'\s>]*)/gi)].map((m) => m[1] ?? '')

// The page renders one section per surface; these headings tell them apart.
const TERMINAL_SECTION = 'Terminal status line'
const EXTENSION_SECTION = 'Editor status bar'

test('POST /preview answers 201 with a token, its page URL, a 24-hour expiry and a render of both surfaces', async () => {
  const adv = await h.advertiser()
  const now = h.svc.clock.now()
  const res = await adv.post('/v1/preview', previewBody({ ad_line: '  Ship faster with Acme CI  ', destination_url: 'https://acme.dev' }))
  assert.equal(res.status, 201, res.text)
  const { preview_token, preview_url, expires_at, render } = res.body
  assert.equal(typeof preview_token, 'string')
  assert.ok(preview_token.length >= 20, 'the capability token is long enough not to be guessed')
  assert.equal(new URL(preview_url).pathname, `/preview/${preview_token}`)
  assert.equal(expires_at, new Date(now.getTime() + DAY_MS).toISOString())

  assert.equal(render.ad_line, 'Ship faster with Acme CI', 'trimmed')
  assert.equal(render.destination_url, 'https://acme.dev', 'not normalized by /preview')
  assert.equal(render.brand, null)
  assert.equal(render.icon_url, null)
  assert.deepEqual([...render.surfaces].sort(), ['extension', 'terminal'])
  // What each client shows, disclosed (operations.md sections 7 and 9): no brand, so `Ad · {ad_line}`.
  assert.equal(render.terminal_line, 'Ad · Ship faster with Acme CI')
  assert.equal(render.extension_line, 'Ad · Ship faster with Acme CI')
  const branded = await adv.post('/v1/preview', previewBody({ brand: 'Acme' }))
  assert.equal(branded.body.render.terminal_line, 'Ad · Acme · Ship faster with Acme CI', 'the brand comes first, after "Ad"')
  assert.equal(branded.body.render.extension_line, 'Ad · Acme · Ship faster with Acme CI')

  const again = await adv.post('/v1/preview', previewBody())
  assert.equal(again.status, 201)
  assert.notEqual(again.body.preview_token, preview_token, 'each call mints a new token')
})

test('target_surface extension or terminal renders only that surface, in the payload and on the page', async () => {
  const adv = await h.advertiser()
  const cases = [
    ['extension', 'extension_line', 'terminal_line', EXTENSION_SECTION, TERMINAL_SECTION],
    ['terminal', 'terminal_line', 'extension_line', TERMINAL_SECTION, EXTENSION_SECTION],
  ] as const
  for (const [surface, shownLine, hiddenLine, shownSection, hiddenSection] of cases) {
    const res = await adv.post('/v1/preview', previewBody({ target_surface: surface }))
    assert.equal(res.status, 201, res.text)
    assert.deepEqual(res.body.render.surfaces, [surface])
    assert.ok(res.body.render[shownLine].includes('Ship faster with Acme CI'), surface)
    assert.equal(res.body.render[hiddenLine], null, surface)
    const html = (await page(res.body.preview_url)).body
    assert.ok(html.includes(shownSection), `${surface}: ${shownSection} shown`)
    assert.ok(!html.includes(hiddenSection), `${surface}: ${hiddenSection} not shown`)
  }
  const both = await page((await adv.post('/v1/preview', previewBody({ target_surface: 'both' }))).body.preview_url)
  assert.ok(both.body.includes(TERMINAL_SECTION) && both.body.includes(EXTENSION_SECTION))
})

test('ad_line length counts grapheme clusters after trimming: 60 family emoji pass, 61 do not', async () => {
  const adv = await h.advertiser()
  const sixty = await adv.post('/v1/preview', previewBody({ ad_line: FAMILY.repeat(60) }))
  assert.equal(sixty.status, 201, sixty.text)
  assert.equal(sixty.body.render.ad_line, FAMILY.repeat(60))
  assert.equal((await adv.post('/v1/preview', previewBody({ ad_line: FAMILY.repeat(3) }))).status, 201)
  assert.equal((await adv.post('/v1/preview', previewBody({ ad_line: `   ${'a'.repeat(60)}   ` }))).status, 201)

  const cases = [
    [FAMILY.repeat(61), 'too_long'],
    ['a'.repeat(61), 'too_long'],
    [FAMILY.repeat(2), 'too_short'],
    ['ab', 'too_short'],
    ['   ab   ', 'too_short'],
  ] as const
  for (const [adLine, reason] of cases) {
    const res = await adv.post('/v1/preview', previewBody({ ad_line: adLine }))
    assert.equal(res.status, 400, `${JSON.stringify(adLine)}: ${res.text}`)
    assert.equal(res.body.detail.field, 'ad_line')
    assert.equal(res.body.detail.reason, reason, JSON.stringify(adLine))
  }
})

test('invalid input is 400 naming the field', async () => {
  const adv = await h.advertiser()
  const cases: [string, Record<string, unknown>, string, string | undefined][] = [
    ['bell character', { ad_line: 'Ship\u0007 faster' }, 'ad_line', 'control_characters'],
    ['newline inside', { ad_line: 'Ship faster\nwith Acme' }, 'ad_line', 'control_characters'],
    ['bidi override', { ad_line: 'Ship \u202Efaster' }, 'ad_line', 'control_characters'],
    ['deny-listed', { ad_line: 'Free casino bonus' }, 'ad_line', 'content_safety'],
    ['ad_line missing', { ad_line: undefined }, 'ad_line', 'required'],
    ['http destination', { destination_url: 'http://acme.dev/ci' }, 'destination_url', 'https_required'],
    ['not a URL', { destination_url: 'acme dev' }, 'destination_url', undefined],
    ['destination over 500', { destination_url: `https://acme.dev/${'a'.repeat(500)}` }, 'destination_url', 'too_long'],
    ['destination missing', { destination_url: undefined }, 'destination_url', 'required'],
    ['surface all', { target_surface: 'all' }, 'target_surface', 'invalid_value'],
    ['surface blended', { target_surface: 'blended' }, 'target_surface', 'invalid_value'],
    ['brand over 120', { brand: 'b'.repeat(121) }, 'brand', 'too_long'],
    ['icon not https', { icon_url: 'http://cdn.acme.dev/icon.png' }, 'icon_url', undefined],
    ['icon script', { icon_url: 'javascript:alert(1)' }, 'icon_url', undefined],
    ['campaign field', { impressions: 1000 }, 'impressions', undefined],
  ]
  for (const [label, overrides, field, reason] of cases) {
    const res = await adv.post('/v1/preview', previewBody(overrides))
    assert.equal(res.status, 400, `${label}: ${res.text}`)
    assert.equal(typeof res.body.detail, 'object', label)
    assert.equal(res.body.detail.field, field, label)
    if (reason) assert.equal(res.body.detail.reason, reason, label)
  }
  const unsafe = await adv.post('/v1/preview', previewBody({ ad_line: 'Free casino bonus' }))
  assert.equal(unsafe.body.detail.category, 'gambling')
})

test(
  'a destination with embedded credentials is refused as on create',
  async () => {
    const adv = await h.advertiser()
    const create = await adv.post('/v1/campaigns', campaignBody({ destination_url: 'https://user:pw@acme.dev/' }))
    assert.equal(create.status, 400, 'create refuses credentials (control)')
    const res = await adv.post('/v1/preview', previewBody({ destination_url: 'https://user:pw@acme.dev/' }))
    assert.equal(res.status, 400, res.text)
    assert.equal(res.body.detail.field, 'destination_url')
  },
)

test('previews are reads: an account without write access may preview', async () => {
  const adv = await h.advertiser({ approved: false, terms: false, billing: 'none' })
  const res = await adv.post('/v1/preview', previewBody())
  assert.equal(res.status, 201, res.text)
  assert.equal((await page(res.body.preview_url)).status, 200)
})

test('a preview, and viewing it, creates no campaign, creative or balance', async () => {
  const adv = await h.advertiser()
  const res = await adv.post('/v1/preview', previewBody())
  assert.equal(res.status, 201)
  assert.equal((await page(res.body.preview_url)).status, 200)
  assert.deepEqual((await adv.get('/v1/campaigns')).body, { campaigns: [], next_cursor: null })
  assert.deepEqual((await adv.get('/v1/creatives')).body, { creatives: [] })
  const account = (await adv.get('/v1/account')).body
  assert.equal(account.outstanding_cents, 0)
  assert.equal(account.balance.owed_cents, 0)
})

test('the public page is inert HTML: strict CSP, no referrer, escaped text, no scripts, links or remote images', async () => {
  const adv = await h.advertiser()
  const res = await adv.post(
    '/v1/preview',
    previewBody({ ad_line: 'Tips <b>&</b> tricks for CI', brand: 'Acme & "Co"', icon_url: HTTPS_ICON, destination_url: 'https://acme.dev/ci?a=1&b=2' }),
  )
  assert.equal(res.status, 201, res.text)
  const view = await page(res.body.preview_url)
  assert.equal(view.status, 200)
  assert.match(view.headers.get('content-type') ?? '', /^text\/html/)
  const csp = view.headers.get('content-security-policy') ?? ''
  assert.ok(csp.includes("default-src 'none'"), csp)
  assert.ok(!/script-src/i.test(csp), csp)
  assert.equal(view.headers.get('referrer-policy'), 'no-referrer')

  const html = view.body
  // The surfaces are preact (pages/ad-surfaces.tsx): text escapes `<`, `&` and `"` (a text node needs no more).
  assert.ok(html.includes('Tips &lt;b>&amp;&lt;/b> tricks for CI'), 'the ad line is shown, escaped')
  assert.ok(!html.includes('<b>'), 'no markup from the ad line')
  assert.ok(html.includes('Acme &amp; &quot;Co&quot;'), 'the brand is shown, escaped')
  assert.ok(html.includes('https://acme.dev/ci?a=1&amp;b=2'), 'the destination is shown as escaped text')
  assert.ok(!/<script/i.test(html))
  assert.ok(!/<a\s/i.test(html) && !/\shref\s*=/i.test(html), 'nothing to click')
  assert.ok(!/<(link|iframe|object|embed|form)[\s>]/i.test(html))
  assert.ok(!/url\(/i.test(html), 'no CSS-loaded resources')
  for (const src of srcAttributes(html)) {
    assert.ok(!/^(https?:)?\/\//i.test(src), `remote src ${src}`)
    assert.ok(!src.includes('cdn.acme.dev'), `icon referenced in src ${src}`)
  }
})

test('a data: icon is kept in the payload, not drawn: no client shows one, and the page says so', async () => {
  const adv = await h.advertiser()
  const res = await adv.post('/v1/preview', previewBody({ icon_url: PNG_1X1, target_surface: 'extension' }))
  assert.equal(res.status, 201, res.text)
  assert.equal(res.body.render.icon_url, PNG_1X1)
  const html = (await page(res.body.preview_url)).body
  assert.deepEqual(srcAttributes(html), [])
  assert.ok(html.includes('The icon is not shown: the status bar item and the terminal line are text only.'))
})

test('the page is live until exactly 24 hours after creation, then 410', async () => {
  const adv = await h.advertiser()
  const res = await adv.post('/v1/preview', previewBody())
  assert.equal(res.status, 201)
  await advance(24 * 3600 - 1)
  assert.equal((await page(res.body.preview_url)).status, 200, 'one second before expiry')
  await advance(1)
  const gone = await page(res.body.preview_url)
  assert.equal(gone.status, 410)
  assert.match(gone.headers.get('content-type') ?? '', /^text\/html/)
  assert.ok(!gone.body.includes('Ship faster with Acme CI'), 'an expired page no longer shows the creative')
  assert.ok((gone.headers.get('content-security-policy') ?? '').includes("default-src 'none'"))
})

test('DELETE /previews/{token} revokes: 200, then the page is 410; revoking again is 200', async () => {
  const adv = await h.advertiser()
  const { preview_token, preview_url } = (await adv.post('/v1/preview', previewBody())).body
  assert.equal((await page(preview_url)).status, 200)
  const revoked = await adv.delete(`/v1/previews/${preview_token}`)
  assert.equal(revoked.status, 200, revoked.text)
  assert.equal(revoked.body.preview_token, preview_token)
  const gone = await page(preview_url)
  assert.equal(gone.status, 410)
  assert.ok(!gone.body.includes('Ship faster with Acme CI'))
  assert.equal((await adv.delete(`/v1/previews/${preview_token}`)).status, 200)
  assert.equal((await page(preview_url)).status, 410)
})

test("another account cannot revoke a preview: 404, and the page stays live", async () => {
  const owner = await h.advertiser()
  const other = await h.advertiser()
  const { preview_token, preview_url } = (await owner.post('/v1/preview', previewBody())).body
  const foreign = await other.delete(`/v1/previews/${preview_token}`)
  assert.equal(foreign.status, 404)
  const unknown = await other.delete('/v1/previews/pv_unknownunknownunknownunknown0')
  assert.equal(unknown.status, 404)
  assert.deepEqual(foreign.body, unknown.body, 'foreign and unknown tokens are indistinguishable')
  assert.equal((await page(preview_url)).status, 200)
})

test('an unknown token page is an HTML 404', async () => {
  const res = await h.anonymous.get('/preview/pv_doesnotexistdoesnotexist00000')
  assert.equal(res.status, 404)
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/)
  assert.ok(!/<script/i.test(res.body))
})

test(
  'an over-long token is answered like an unknown one',
  async () => {
    const adv = await h.advertiser()
    const pageRes = await h.anonymous.get(`/preview/pv_${'x'.repeat(200)}`)
    assert.equal(pageRes.status, 404)
    assert.match(pageRes.headers.get('content-type') ?? '', /^text\/html/)
    const revoke = await adv.delete(`/v1/previews/pv_${'x'.repeat(120)}`)
    assert.equal(revoke.status, 404, revoke.text)
  },
)

test('POST /campaigns/{id}/preview snapshots the current creative; a later edit does not change it', async () => {
  const adv = await h.advertiser()
  const created = await adv.post('/v1/campaigns', campaignBody({ ad_line: 'Ship faster with Acme CI', brand: 'Acme' }))
  assert.equal(created.status, 201, created.text)
  const id = created.body.campaign_id
  const now = h.svc.clock.now()
  const before = await adv.post(`/v1/campaigns/${id}/preview`)
  assert.equal(before.status, 201, before.text)
  assert.equal(typeof before.body.preview_token, 'string')
  assert.equal(new URL(before.body.preview_url).pathname, `/preview/${before.body.preview_token}`)
  assert.equal(before.body.expires_at, new Date(now.getTime() + DAY_MS).toISOString())
  const first = (await page(before.body.preview_url)).body
  assert.ok(first.includes('Ship faster with Acme CI'))
  assert.ok(first.includes('Acme'))

  const edit = await adv.patch(`/v1/campaigns/${id}`, { ad_line: 'Deploy previews with Acme CD' })
  assert.equal(edit.status, 200, edit.text)
  const old = (await page(before.body.preview_url)).body
  assert.ok(old.includes('Ship faster with Acme CI'), 'the earlier preview keeps the old line')
  assert.ok(!old.includes('Deploy previews with Acme CD'))

  const after = await adv.post(`/v1/campaigns/${id}/preview`)
  assert.equal(after.status, 201)
  assert.notEqual(after.body.preview_token, before.body.preview_token)
  assert.ok((await page(after.body.preview_url)).body.includes('Deploy previews with Acme CD'))

  assert.equal((await adv.get('/v1/campaigns')).body.campaigns.length, 1, 'a campaign preview creates no campaign')
})

test("a campaign preview shows the campaign's surface", async () => {
  const adv = await h.advertiser()
  const terminal = (await adv.post('/v1/campaigns', campaignBody({ target_surface: 'terminal' }))).body.campaign_id
  const html = (await page((await adv.post(`/v1/campaigns/${terminal}/preview`)).body.preview_url)).body
  assert.ok(html.includes(TERMINAL_SECTION) && !html.includes(EXTENSION_SECTION))
  const extension = (await adv.post('/v1/campaigns', campaignBody({ target_surface: 'extension' }))).body.campaign_id
  const html2 = (await page((await adv.post(`/v1/campaigns/${extension}/preview`)).body.preview_url)).body
  assert.ok(html2.includes(EXTENSION_SECTION) && !html2.includes(TERMINAL_SECTION))
})

test("a campaign preview of another account's or an unknown campaign is the same 404", async () => {
  const owner = await h.advertiser()
  const other = await h.advertiser()
  const id = (await owner.post('/v1/campaigns', campaignBody())).body.campaign_id
  const foreign = await other.post(`/v1/campaigns/${id}/preview`)
  const unknown = await other.post('/v1/campaigns/cmp_doesnotexist000000000/preview')
  assert.equal(foreign.status, 404)
  assert.equal(unknown.status, 404)
  assert.deepEqual(foreign.body, unknown.body)
})

test('preview endpoints need credentials: uniform 401', async () => {
  const adv = await h.advertiser()
  const id = (await adv.post('/v1/campaigns', campaignBody())).body.campaign_id
  const token = (await adv.post('/v1/preview', previewBody())).body.preview_token
  const wrongKey = new Client(h, { 'x-service-user-id': adv.userId, 'x-service-api-key': 'sk_live_wrongwrongwrong' })
  for (const client of [h.anonymous, wrongKey]) {
    const replies = [
      await client.post('/v1/preview', previewBody()),
      await client.post(`/v1/campaigns/${id}/preview`),
      await client.delete(`/v1/previews/${token}`),
    ]
    for (const r of replies) {
      assert.equal(r.status, 401, r.text)
      assert.deepEqual(r.body, { detail: 'invalid credentials' })
    }
  }
  assert.equal((await adv.get('/v1/campaigns')).body.campaigns.length, 1)
})

test('the expiry job runs on demand, keeps live previews, and expired ones stay gone', async () => {
  const adv = await h.advertiser()
  const expiring = (await adv.post('/v1/preview', previewBody())).body.preview_url
  await advance(24 * 3600)
  const live = (await adv.post('/v1/preview', previewBody())).body.preview_url

  const run = await h.admin.post('/admin/v1/jobs/expiry/run')
  assert.equal(run.status, 200, run.text)
  assert.equal(run.body.job, 'expiry')
  assert.equal((await page(live)).status, 200, 'a live preview survives the job')
  assert.equal((await page(expiring)).status, 410)

  // Long after expiry the job may delete the row: the page is then 404 or 410, never live again.
  await advance(8 * 24 * 3600)
  assert.equal((await h.admin.post('/admin/v1/jobs/expiry/run')).status, 200)
  assert.ok([404, 410].includes((await page(expiring)).status))
  assert.ok([404, 410].includes((await page(live)).status))
})
