import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService } from '../helpers/api.ts'
import { csrfToken, inputValue, visibleText } from '../helpers/html.ts'
import { NEW_ACCOUNT, portalAdvertiser, PortalClient } from '../helpers/portal.ts'

/**
 * The create form's auction quote over real HTTP on both stores: rendered
 * with the form, the live fragment its script fetches, and the no-JS button.
 * Every campaign here is worldwide on the extension, so each test counts the
 * queue the earlier ones left (one rival at $3.00 for 2,000 impressions).
 */
const h = useService({}, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })

const FORM = '/portal/campaigns/new'
const FRAGMENT = '/portal/campaigns/new/quote'

/** The words of the page's quote region. */
function quoteWords(html: string): string {
  const start = html.indexOf('id="auction-quote"')
  assert.ok(start >= 0, 'the page has the quote region')
  return visibleText(html.slice(html.indexOf('>', start) + 1, html.indexOf('</section>', start)))
}

test('the form carries the quote of its fresh values (the floor bid), in a polite live region, the same as the API answers', async () => {
  const rival = await portalAdvertiser(h)
  assert.equal((await rival.api.post('/v1/campaigns', campaignBody({ cpm_usd: 3, impressions: 2000, brand: 'Rival Brand' }))).status, 201)
  const adv = await portalAdvertiser(h, NEW_ACCOUNT)
  const form = await adv.browser.get(FORM)
  assert.equal(form.status, 200)
  assert.match(form.text, /<div id="auction-quote" aria-live="polite" data-quote-url="\/portal\/campaigns\/new\/quote">/)
  const quote = quoteWords(form.text)
  assert.match(quote, /At the floor bid of \$0\.50, your campaign would be #2 in the auction for this traffic, with 2,000 impressions queued ahead of it\./)
  assert.match(quote, /No bid has won this traffic in the last hour\./)
  assert.match(quote, /too little recent traffic to estimate/)
  assert.doesNotMatch(form.text, /Rival Brand/)
  const api = await adv.api.get('/v1/auction/quote?cpm_usd=0.5')
  assert.deepEqual([api.body.rank, api.body.impressions_ahead], [2, 2000])
  assert.ok(form.buttons.includes('Show my place in the auction'))
})

test('the live fragment: the quote of the typed fields, a refusal in the field error words, signed in only, writes nothing', async () => {
  const adv = await portalAdvertiser(h)
  // A click bid ranks by expected value: $400 a thousand clicks at the 1 % prior CTR is worth $4.00, ahead of the $3.00 rival.
  const top = await adv.browser.get(`${FRAGMENT}?cpm_usd=%24400&blocks=2&target_surface=extension&kind=click`)
  assert.equal(top.status, 200, top.text)
  assert.match(top.headers.get('content-type') ?? '', /^text\/html/)
  assert.equal(top.headers.get('cache-control'), 'no-store')
  assert.doesNotMatch(top.text, /<html|<h1/)
  assert.match(visibleText(top.text), /At \$400\.00, your campaign would be #1 in the auction for this traffic \(next to serve\), with 0 impressions queued ahead/)

  const tie = await adv.browser.get(`${FRAGMENT}?cpm_usd=3`)
  assert.match(visibleText(tie.text), /At \$3\.00, your campaign would be #2/, 'equal to the rival: created later, behind it')
  const terminal = await adv.browser.get(`${FRAGMENT}?cpm_usd=1&target_surface=terminal&target_countries=us,%20de`)
  assert.match(visibleText(terminal.text), /#1/)

  const words = async (query: string) => visibleText((await adv.browser.get(`${FRAGMENT}?${query}`)).text)
  assert.match(await words('cpm_usd=abc'), /To see your place in the auction: Enter the bid as a number of dollars/)
  assert.match(await words('cpm_usd=0.1'), /To see your place in the auction: Bid at least \$0\.50/)
  assert.match(await words('cpm_usd=1&blocks=500'), /To see your place in the auction: Buy at most 100 blocks/)
  assert.match(await words('cpm_usd=1&target_surface=both'), /To see your place in the auction: The surface split is on/)
  assert.match(await words('cpm_usd=1&target_countries=USA'), /To see your place in the auction: Use two-letter ISO country codes/)
  assert.equal((await adv.browser.get(`${FRAGMENT}?cpm_usd=1&sort=rank`)).status, 400)

  const signedOut = await new PortalClient(h.baseUrl).get(`${FRAGMENT}?cpm_usd=1`)
  assert.equal(signedOut.status, 303)
  assert.equal((await adv.api.get('/v1/campaigns')).body.campaigns.length, 0)
})

test('without JavaScript: "Show my place in the auction" posts the form, which comes back with the quote and the typed values; nothing is created', async () => {
  const adv = await portalAdvertiser(h, NEW_ACCOUNT)
  const form = await adv.browser.get(FORM)
  const fields = {
    _csrf: csrfToken(form.text),
    idempotency_key: inputValue(form.text, 'idempotency_key')!,
    ad_line: 'Kept while quoting',
    cpm_usd: '2.50',
    blocks: '3',
    target_surface: 'extension',
    kind: 'impression',
    action: 'quote',
  }
  const shown = await adv.browser.post(FORM, fields)
  assert.equal(shown.status, 200, shown.text.slice(0, 500))
  assert.equal(inputValue(shown.text, 'ad_line'), 'Kept while quoting')
  assert.equal(inputValue(shown.text, 'cpm_usd'), '2.50')
  assert.equal(inputValue(shown.text, 'idempotency_key'), fields.idempotency_key)
  assert.match(quoteWords(shown.text), /At \$2\.50, your campaign would be #2 /)
  assert.equal((await adv.api.get('/v1/campaigns')).body.campaigns.length, 0)

  const forged = await adv.browser.request('POST', FORM, { ...fields, _csrf: '' })
  assert.equal(forged.status, 403)
})

test('the quote says how many of the impressions ahead are the advertiser\'s own, and the order total; the API answer carries neither', async () => {
  const adv = await portalAdvertiser(h)
  assert.equal((await adv.api.post('/v1/campaigns', campaignBody({ cpm_usd: 2, impressions: 1000 }))).status, 201)
  const behind = visibleText((await adv.browser.get(`${FRAGMENT}?cpm_usd=1&blocks=2`)).text)
  assert.match(behind, /with 3,000 impressions queued ahead of it, 1,000 of them your own campaigns\./, behind)
  assert.match(behind, /Order total: \$2\.00 for 2,000 impressions at \$1\.00 per 1,000\. It is the most this order can bill/)
  const between = visibleText((await adv.browser.get(`${FRAGMENT}?cpm_usd=2.5`)).text)
  assert.match(between, /with 2,000 impressions queued ahead of it\./, 'only the rival ahead')
  const clicks = visibleText((await adv.browser.get(`${FRAGMENT}?cpm_usd=4&blocks=3&kind=click`)).text)
  assert.match(clicks, /Order total: \$12\.00 for 3,000 clicks at \$4\.00 per 1,000/)
  const api = await adv.api.get('/v1/auction/quote?cpm_usd=1')
  assert.equal(api.status, 200)
  assert.equal(api.body.impressions_ahead, 3000)
  assert.ok(!('own_impressions_ahead' in api.body) && !('order_total_micros' in api.body), 'the portal-only figures stay out of the API')
})
