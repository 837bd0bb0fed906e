import assert from 'node:assert/strict'
import { test } from 'node:test'
import pg from 'pg'
import { useService } from '../helpers/api.ts'
import { STORE } from '../helpers/service.ts'
import { control, csrfToken, fieldError, fieldErrors, inputValue, labels, selectedOption, visibleText } from '../helpers/html.ts'
import { campaignFormFields, portalAdvertiser, PortalClient, type PageReply, type PortalAdvertiser } from '../helpers/portal.ts'

// A lower block limit than the default, so "too many blocks" is the config's rule, not the schema's ceiling.
const h = useService({}, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null, max_blocks: 50 })

const FORM = '/portal/campaigns/new'

async function openForm(adv: PortalAdvertiser): Promise<PageReply> {
  const form = await adv.browser.get(FORM)
  assert.equal(form.status, 200, form.text)
  return form
}

async function submit(adv: PortalAdvertiser, fields: Record<string, string> = {}): Promise<PageReply> {
  return adv.browser.post(FORM, campaignFormFields(await openForm(adv), fields))
}

const campaignIdOf = (res: PageReply) => {
  assert.equal(res.status, 303, res.text.slice(0, 2000))
  const m = /^\/portal\/campaigns\/([^/?]+)\?notice=created$/.exec(res.location ?? '')
  assert.ok(m, `redirects to the new campaign: ${res.location}`)
  return m[1]!
}

async function campaignCount(adv: PortalAdvertiser): Promise<number> {
  const res = await adv.api.get('/v1/campaigns')
  assert.equal(res.status, 200)
  return res.body.campaigns.length
}

test('the form: every field labelled in the API words, a fresh idempotency key per rendering, the live limits in the hints', async () => {
  const adv = await portalAdvertiser(h)
  const form = await openForm(adv)
  assert.match(form.text, /<title>New campaign · Advertiser portal<\/title>/)
  assert.equal(form.text.match(/<h1>/g)?.length, 1)
  for (const label of [
    'Name',
    'Ad line',
    'Brand',
    'Bid (CPM, USD)',
    'Blocks',
    'Destination URL',
    'Target surface',
    'Target countries',
    'Icon URL',
    'Kind',
    'Pace (minutes)',
    'Start paused',
    'Show on the public leaderboard',
  ]) {
    assert.ok(labels(form.text).includes(label), `a visible label "${label}"`)
  }
  assert.match(form.text, /<button type="submit">Create campaign<\/button>/)
  assert.match(visibleText(form.text), /1 to 50\. Bid × blocks is at most \$5,000\.00 per order/, 'the hint states the live config')
  assert.doesNotMatch(control(form.text, 'optin_leaderboard'), /\bchecked\b/, 'the leaderboard is the advertiser\'s choice: unticked')
  for (const name of ['ad_line', 'cpm_usd', 'blocks', 'destination_url']) {
    assert.match(control(form.text, name), /aria-required="true"/, `${name} is marked required`)
  }
  for (const name of ['name', 'brand', 'icon_url', 'pace_minutes']) assert.doesNotMatch(control(form.text, name), /aria-required/, `${name} is optional`)
  assert.equal((form.text.match(/class="required-mark"/g) ?? []).length, 4, 'four visible Required marks')
  assert.match(visibleText(form.text), /Impression: each ten-second showing of the line.*Click: only the clicks on it/, 'Kind is explained where it is chosen')
  assert.match(visibleText(form.text), /How your ad will look.*> Ad · Your ad line appears here Editor status bar.*main Ad · Your ad line appears here Ln/, 'the line preview, empty form, disclosed as both clients show it')
  assert.match(visibleText(form.text), /Order total: \$0\.50 for 1,000 impressions at \$0\.50 per 1,000/, 'the order total of a fresh form (one block at the floor)')
  assert.doesNotMatch(control(form.text, 'start_paused'), /\bchecked\b/)
  assert.equal(selectedOption(form.text, 'target_surface'), 'extension', 'the split is on: extension is the default, as the API')
  const key = inputValue(form.text, 'idempotency_key')!
  assert.match(key, /^[0-9a-f-]{36}$/)
  assert.notEqual(inputValue((await openForm(adv)).text, 'idempotency_key'), key, 'each rendering has its own key')
  assert.doesNotMatch(form.text, /style=|<script>/, 'no inline style or script')
})

test('create: 303 to the campaign; the API shows it with creation_channel website, blocks × 1,000 impressions and the typed fields', async () => {
  const adv = await portalAdvertiser(h)
  const id = campaignIdOf(
    await submit(adv, {
      blocks: '4',
      cpm_usd: '$1.25',
      target_surface: 'terminal',
      target_countries: 'us, de',
      pace_minutes: '120',
      icon_url: 'https://acme.dev/icon.png',
      optin_leaderboard: '',
      start_paused: 'on',
    }),
  )
  const res = await adv.api.get(`/v1/campaigns/${id}`)
  assert.equal(res.status, 200, res.text)
  const c = res.body
  assert.equal(c.creation_channel, 'website')
  assert.equal(c.name, 'Spring launch')
  assert.equal(c.ad_line, 'Ship faster with Acme CI')
  assert.equal(c.brand, 'Acme')
  assert.equal(c.cpm_usd, 1.25)
  assert.equal(c.impressions, 4000)
  assert.equal(c.blocks.length, 4)
  assert.equal(c.destination_url, 'https://acme.dev/ci')
  assert.equal(c.target_surface, 'terminal')
  assert.deepEqual(c.target_countries, ['DE', 'US'])
  assert.equal(c.pace_minutes, 120)
  assert.equal(c.status, 'paused', 'start paused')
  assert.equal(c.creatives[0].icon_url, 'https://acme.dev/icon.png')
  const listed = await adv.api.get('/v1/campaigns')
  assert.deepEqual(
    listed.body.campaigns.map((x: any) => [x.campaign_id, x.creation_channel]),
    [[id, 'website']],
  )
})

test('create: an unchecked leaderboard box is false; an empty name gets the portal default name; the campaign serves at once', async () => {
  const adv = await portalAdvertiser(h)
  const form = await openForm(adv)
  const fields = campaignFormFields(form, { name: '' })
  delete fields.optin_leaderboard // an unchecked box is not in the posted form
  const id = campaignIdOf(await adv.browser.post(FORM, fields))
  const c = (await adv.api.get(`/v1/campaigns/${id}`)).body
  assert.equal(c.name, 'Portal campaign - 2026-11-02')
  assert.equal(c.status, 'active')
  assert.equal(c.blocks[0].status, 'serving')
  const creative = (await adv.api.get(`/v1/creatives/${c.creatives[0].creative_id}`)).body
  assert.equal(creative.campaign_id, id)
  // optin_leaderboard is not in the API's read-outs; the fingerprint says it was sent false: replaying with true is another payload.
  const other = await adv.browser.post(FORM, { ...fields, optin_leaderboard: 'on' })
  assert.equal(other.status, 409)
  assert.match(visibleText(other.text), /This form was already used to create a campaign/)
})

test('a bid that is not a number is an error at "Bid (CPM, USD)", not a 500; the typed values stay', async () => {
  const adv = await portalAdvertiser(h)
  for (const bid of ['abc', '2,50', '0x10', '1e3']) {
    const res = await submit(adv, { cpm_usd: bid, ad_line: 'Keep this line', target_countries: 'US' })
    assert.equal(res.status, 400, bid)
    assert.match(fieldError(res.text, 'cpm_usd') ?? '', /Enter the bid as a number of dollars/, bid)
    assert.deepEqual(Object.keys(fieldErrors(res.text)), ['cpm_usd'])
    assert.equal(inputValue(res.text, 'cpm_usd'), bid, 'the bid as typed')
    assert.equal(inputValue(res.text, 'ad_line'), 'Keep this line')
    assert.equal(inputValue(res.text, 'target_countries'), 'US')
    assert.match(res.text, /<h2 id="error-summary-h">There is a problem<\/h2>/)
    assert.match(res.text, /<a href="#f-cpm_usd">Bid \(CPM, USD\): /, 'the summary links to the field')
  }
  const low = await submit(adv, { cpm_usd: '0.10' })
  assert.equal(low.status, 400)
  assert.equal(fieldError(low.text, 'cpm_usd'), 'Bid at least $0.50 per 1,000 impressions (the current floor).')
  const precise = await submit(adv, { cpm_usd: '2.1234567' })
  assert.equal(fieldError(precise.text, 'cpm_usd'), 'Use at most 6 decimals.')
  const empty = await submit(adv, { cpm_usd: '' })
  assert.match(fieldError(empty.text, 'cpm_usd') ?? '', /^Enter a bid/)
  assert.equal(await campaignCount(adv), 0)
})

test('each rule error is shown at its field: too-long ad line, bad URL, too many blocks for the config, surface, countries, text rules', async () => {
  const adv = await portalAdvertiser(h)
  const cases: [Record<string, string>, string, RegExp | string][] = [
    [{ ad_line: 'x'.repeat(61) }, 'ad_line', 'Use at most 60 characters for the ad line (an emoji counts as one).'],
    [{ ad_line: 'ab' }, 'ad_line', 'Use at least 3 visible characters for the ad line.'],
    [{ ad_line: '' }, 'ad_line', 'Enter the ad line.'],
    [{ destination_url: 'http://acme.dev/' }, 'destination_url', 'The address must start with https://.'],
    [{ destination_url: 'not a url' }, 'destination_url', /^Enter a full web address starting with https:\/\//],
    [{ destination_url: 'https://user:pw@acme.dev/' }, 'destination_url', 'Remove the user name or password from the address.'],
    [{ blocks: '51' }, 'blocks', 'Buy at most 50 blocks per order.'],
    [{ blocks: '101' }, 'blocks', 'Buy at most 50 blocks per order.'],
    [{ blocks: '0' }, 'blocks', 'Buy at least 1 block.'],
    [{ blocks: '2.5' }, 'blocks', 'Enter a whole number of blocks, e.g. 10.'],
    [{ blocks: 'ten' }, 'blocks', 'Enter a whole number of blocks, e.g. 10.'],
    [{ cpm_usd: '200', blocks: '30' }, 'cpm_usd', /^Bid × blocks comes to \$6,000\.00, over the \$5,000\.00 limit per order/],
    [{ target_surface: 'both' }, 'target_surface', /surface split is on/],
    [{ target_countries: 'USA' }, 'target_countries', /two-letter ISO country codes/],
    [{ icon_url: 'ftp://acme.dev/i.png' }, 'icon_url', 'Enter an https:// address of an image, or a data:image URI.'],
    [{ pace_minutes: '20000' }, 'pace_minutes', /between 1 and 10,080 minutes/],
    [{ name: 'n'.repeat(121) }, 'name', 'Use at most 120 characters for the name (an emoji counts as one).'],
    // The edge's input rules (a blank brand) come back on the form too, at their field.
    [{ brand: '   ' }, 'brand', 'The brand has only spaces or invisible characters.'],
    [{ ad_line: 'Double your bitcoin today' }, 'ad_line', 'Our content-safety screen refused this line (scam). Rephrase it.'],
  ]
  for (const [fields, field, message] of cases) {
    const res = await submit(adv, fields)
    assert.equal(res.status, 400, `${JSON.stringify(fields)}: ${res.status}`)
    const shown = fieldError(res.text, field)
    if (typeof message === 'string') assert.equal(shown, message, JSON.stringify(fields))
    else assert.match(shown ?? '', message, JSON.stringify(fields))
    assert.deepEqual(Object.keys(fieldErrors(res.text)), [field], 'one error, at its field')
    for (const [name, value] of Object.entries(fields)) if (name !== 'target_surface') assert.equal(inputValue(res.text, name) ?? '', value, `${name} kept`)
  }
  assert.equal(await campaignCount(adv), 0, 'nothing was created')
})

test('a double submit of one form (same idempotency key) creates one campaign; both land on it', async () => {
  const adv = await portalAdvertiser(h)
  const fields = campaignFormFields(await openForm(adv))
  const first = campaignIdOf(await adv.browser.post(FORM, fields))
  const again = campaignIdOf(await adv.browser.post(FORM, fields))
  assert.equal(again, first)
  // Two at once, from a second form.
  const twice = campaignFormFields(await openForm(adv), { name: 'Twice' })
  const [a, b] = await Promise.all([adv.browser.post(FORM, twice), adv.browser.post(FORM, twice)])
  assert.equal(campaignIdOf(a), campaignIdOf(b))
  assert.notEqual(campaignIdOf(a), first)
  assert.equal(await campaignCount(adv), 2)
})

test('a form already used, submitted with other values: a form error with a link to the campaign and a fresh key', async () => {
  const adv = await portalAdvertiser(h)
  const fields = campaignFormFields(await openForm(adv))
  const id = campaignIdOf(await adv.browser.post(FORM, fields))
  const changed = await adv.browser.post(FORM, { ...fields, name: 'Changed my mind' })
  assert.equal(changed.status, 409)
  assert.match(changed.text, new RegExp(`<a href="/portal/campaigns/${id}">see it</a>`))
  assert.equal(inputValue(changed.text, 'name'), 'Changed my mind')
  const key = inputValue(changed.text, 'idempotency_key')!
  assert.notEqual(key, fields.idempotency_key)
  const second = campaignIdOf(await adv.browser.post(FORM, { ...fields, name: 'Changed my mind', idempotency_key: key, _csrf: csrfToken(changed.text) }))
  assert.notEqual(second, id)
})

test('write prerequisites missing: the form shows the steps, and a submit is a form error naming the next step (403 before 402)', async () => {
  const pending = await portalAdvertiser(h, { approved: false, billing: 'none' })
  const form = await openForm(pending)
  assert.match(visibleText(form.text), /Before you can create campaigns/)
  const refused = await pending.browser.post(FORM, campaignFormFields(form))
  assert.equal(refused.status, 403)
  assert.match(visibleText(refused.text), /Your account is waiting for approval: we review new accounts within one business day/)
  assert.deepEqual(fieldErrors(refused.text), {})
  assert.equal(inputValue(refused.text, 'name'), 'Spring launch', 'the values stay')

  const terms = await portalAdvertiser(h, { terms: false })
  const noTerms = await submit(terms)
  assert.equal(noTerms.status, 403)
  assert.match(noTerms.text, /Accept the API terms before creating campaigns: <a href="\/portal\/terms">read and accept the terms<\/a>/)

  const unbilled = await portalAdvertiser(h, { billing: 'none' })
  const noBilling = await submit(unbilled)
  assert.equal(noBilling.status, 402)
  assert.match(noBilling.text, /Billing blocks new campaigns \(billing not enrolled\):\s*<a href="\/portal\/billing">set up billing<\/a>/)

  // Write access comes before the body, as on the API: a bad bid from a pending account is still the 403.
  const both = await pending.browser.post(FORM, campaignFormFields(await openForm(pending), { cpm_usd: 'abc' }))
  assert.equal(both.status, 403)
  for (const adv of [pending, terms, unbilled]) assert.equal(await campaignCount(adv), 0)
})

test('campaign_creation disabled by the operator: a 503 form error, nothing created', async () => {
  const adv = await portalAdvertiser(h)
  assert.equal((await h.admin.put('/admin/v1/components/campaign_creation', { state: 'disabled' })).status, 200)
  try {
    const res = await submit(adv)
    assert.equal(res.status, 503)
    assert.match(visibleText(res.text), /Campaign creation is switched off for the moment/)
  } finally {
    assert.equal((await h.admin.put('/admin/v1/components/campaign_creation', { state: 'operational' })).status, 200)
  }
  assert.equal(await campaignCount(adv), 0)
})

test('the create budget is the account\'s, shared with the API: over it the form says so (429) and a replay still lands', async () => {
  const adv = await portalAdvertiser(h)
  await h.config({ create_rate_limit_per_min: 2 })
  try {
    const viaApi = await adv.api.post('/v1/campaigns', {
      ad_line: 'From the API',
      destination_url: 'https://acme.dev/',
      cpm_usd: 1,
      impressions: 1000,
      idempotency_key: `api-${adv.userId}`,
    })
    assert.equal(viaApi.status, 201)
    const fields = campaignFormFields(await openForm(adv))
    const id = campaignIdOf(await adv.browser.post(FORM, fields))
    const over = await submit(adv, { name: 'One too many' })
    assert.equal(over.status, 429)
    assert.ok(Number(over.headers.get('retry-after')) >= 1)
    assert.match(visibleText(over.text), /You have created 2 campaigns this minute, the most allowed/)
    assert.equal(campaignIdOf(await adv.browser.post(FORM, fields)), id, 'a replay never spends the budget')
  } finally {
    await h.config({ create_rate_limit_per_min: 1000 })
  }
  assert.equal(await campaignCount(adv), 2)
})

test('the portal campaign enters the same auction: it serves to a viewer of its country', async () => {
  const adv = await portalAdvertiser(h)
  const id = campaignIdOf(await submit(adv, { target_countries: 'ZQ', ad_line: 'Portal line in the auction', cpm_usd: '9' }))
  const decision = await h.anonymous.post('/serve/v1/decisions', { surface: 'extension', viewer_id: 'portal-viewer-1', country: 'ZQ' })
  assert.equal(decision.status, 200, decision.text)
  assert.equal(decision.body.ad_line, 'Portal line in the auction')
  assert.equal((await adv.api.get(`/v1/campaigns/${id}`)).status, 200)
})

test('POST without a CSRF token, or with a wrong one, is refused with 403 and creates nothing', async () => {
  const adv = await portalAdvertiser(h)
  const fields = campaignFormFields(await openForm(adv))
  const withoutToken = Object.fromEntries(Object.entries(fields).filter(([name]) => name !== '_csrf'))
  const missing = await adv.browser.request('POST', FORM, withoutToken)
  assert.equal(missing.status, 403)
  assert.match(missing.text, /This form has expired or did not come from this site/)
  const wrong = await adv.browser.request('POST', FORM, { ...fields, _csrf: 'forged-token' })
  assert.equal(wrong.status, 403)
  assert.equal(await campaignCount(adv), 0)
})

test('signed out: the form sends the person to sign in, and a post goes nowhere', async () => {
  const adv = await portalAdvertiser(h)
  const fields = campaignFormFields(await openForm(adv))
  const other = new PortalClient(h.baseUrl)
  const page = await other.get(FORM)
  assert.equal(page.status, 303)
  assert.equal(page.location, `/portal/login?next=${encodeURIComponent(FORM)}`)
  const post = await other.request('POST', FORM, fields)
  assert.equal(post.status, 303)
  assert.equal(post.location, '/portal/login')
  assert.equal(await campaignCount(adv), 0)
})

test(
  'a store that does not answer in time: 503 on the form with Retry-After, the values kept; the same form then creates one campaign',
  { skip: STORE === 'postgres' ? false : 'needs PostgreSQL: a lock held by another session stalls the create', timeout: 60_000 },
  async () => {
    const adv = await portalAdvertiser(h)
    const form = await openForm(adv)
    const fields = campaignFormFields(form, { name: 'Stalled launch' })
    // Another session holds the blocks table: the create's insert waits until statement_timeout cancels it.
    const locker = new pg.Client({ connectionString: h.svc.databaseUrl! })
    await locker.connect()
    try {
      await locker.query('BEGIN')
      await locker.query('LOCK TABLE blocks IN ACCESS EXCLUSIVE MODE')
      const stalled = await adv.browser.post(FORM, fields)
      assert.equal(stalled.status, 503, visibleText(stalled.text).slice(0, 500))
      assert.ok(Number(stalled.headers.get('retry-after')) >= 1, 'Retry-After says when to try again')
      assert.match(visibleText(stalled.text), /could not reach our database/)
      assert.equal(inputValue(stalled.text, 'name'), 'Stalled launch', 'the typed values are kept')
    } finally {
      await locker.query('ROLLBACK')
      await locker.end()
    }
    const created = await adv.browser.post(FORM, fields)
    const id = campaignIdOf(created)
    const list = await adv.browser.get('/portal/campaigns')
    assert.equal(visibleText(list.text).split('Stalled launch').length - 1, 1, `one campaign ${id}, not two`)
  },
)

/** The values and labels of a select's options, in order. */
function options(html: string, name: string): [string, string][] {
  const m = new RegExp(`<select\\b[^>]*\\bname="${name}"[^>]*>([\\s\\S]*?)</select>`).exec(html)
  assert.ok(m, `a select named ${name}`)
  return [...m[1]!.matchAll(/<option\b[^>]*\bvalue="([^"]*)"[^>]*>([^<]*)<\/option>/g)].map((o) => [o[1]!, o[2]!.trim()])
}

test('Target surface offers only what the live config accepts, and says the rule once (issue 36, point 3)', async () => {
  const adv = await portalAdvertiser(h)
  // The split is on (the default): one surface per order, no "Both surfaces".
  let form = await openForm(adv)
  assert.deepEqual(options(form.text, 'target_surface'), [
    ['extension', 'Editor extension'],
    ['terminal', 'Terminal status line'],
  ])
  assert.equal(visibleText(form.text).match(/place two orders to reach both/g)?.length, 1, 'the rule, once, beside the field')
  assert.doesNotMatch(form.text, /Both surfaces/)
  assert.doesNotMatch(form.text, /To see your place in the auction/, 'the first quote is a quote, not an error')

  await h.config({ surface_split_enabled: false })
  try {
    // The split is off: every order is blended, so "Both surfaces" is the one choice.
    form = await openForm(adv)
    assert.deepEqual(options(form.text, 'target_surface'), [['both', 'Both surfaces']])
    assert.equal(selectedOption(form.text, 'target_surface'), 'both')
    assert.match(visibleText(form.text), /The surface split is off: every order runs on both surfaces at one bid\./)
    assert.doesNotMatch(visibleText(form.text), /place two orders/)
    const id = campaignIdOf(await adv.browser.post(FORM, campaignFormFields(form, { target_surface: 'both' })))
    const c = await adv.api.get(`/v1/campaigns/${id}`)
    assert.equal(c.status, 200, c.text)
    assert.equal(c.body.target_surface, 'blended')
  } finally {
    await h.config({ surface_split_enabled: true })
  }
  form = await openForm(adv)
  assert.deepEqual(
    options(form.text, 'target_surface').map(([v]) => v),
    ['extension', 'terminal'],
    'follows the live config back',
  )
})
