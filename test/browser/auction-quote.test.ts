import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { callService } from '../helpers/service.ts'
import { type BrowserHarness, browserSkip, checkPage, DESKTOP, field, letWrite, PHONE, screenshot, setField, signUp, submit, useBrowser, visit } from '../helpers/browser.ts'

/**
 * The create form's live auction quote in Chromium: rendered with the page,
 * refreshed as the bid, blocks, targeting and kind change (assets/site.js and
 * the portal's quote fragment), in a polite live region; and, without
 * JavaScript, the "Show my place in the auction" button. With
 * UPDATE_SCREENSHOTS=1 it writes docs/portal/campaign-quote{,-phone}.png.
 */

const COUNTRY = 'QA'

/** Another advertiser's campaign through the API: worldwide on the extension, at `cpm` for `impressions`. */
async function competitor(h: BrowserHarness, cpm: number, impressions: number): Promise<void> {
  const created = await h.admin('POST', '/accounts', { email: `rival-${Math.random().toString(36).slice(2)}@example.dev` })
  assert.equal(created.status, 201, created.text)
  const campaign = await h.api(await letWrite(h, created.body.user_id), 'POST', '/campaigns', {
    ad_line: 'Rival line for the quote',
    destination_url: 'https://rival.example/',
    brand: 'Rival Brand',
    cpm_usd: cpm,
    impressions,
    idempotency_key: `rival-${cpm}-${impressions}`,
  })
  assert.equal(campaign.status, 201, campaign.text)
}

/** `n` billable impressions on the extension in COUNTRY: decisions, ten seconds on screen, views. */
async function traffic(h: BrowserHarness, n: number): Promise<void> {
  const decisions = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      callService(h.svc, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id: `quote-viewer-${i}`, country: COUNTRY }, { 'x-forwarded-for': `203.0.113.${i + 1}` }),
    ),
  )
  await h.advance(10)
  for (const [i, d] of decisions.entries()) {
    assert.equal(d.status, 200, d.text)
    const view = await callService(h.svc, 'POST', `/serve/v1/impressions/${d.body.impression_id}/view`, { dwell_ms: 10_000 }, { 'x-forwarded-for': `203.0.113.${i + 1}` })
    assert.equal(view.status, 204, view.text)
  }
  // The quote's clearing price reads the counted offers: in the store within 2 s, here at once.
  await h.svc.service.serving.offers.flush()
}

const quoteRegion = (page: Page) => page.getByRole('region', { name: 'Your place in the auction' })

/** Waits until the live region's text matches. */
async function quoteShows(page: Page, pattern: RegExp): Promise<string> {
  const live = page.locator('#auction-quote')
  await live.filter({ hasText: pattern }).waitFor()
  return live.innerText()
}

describe('the live auction quote on the create form', { skip: browserSkip }, () => {
  const h = useBrowser()

  test('the quote follows the bid as it is typed, in a polite live region; axe-clean at 1280 and 375 px', { timeout: 60_000 }, async () => {
    await competitor(h, 3, 2000)
    await competitor(h, 1.5, 5000)
    await traffic(h, 4)
    const { page } = h
    await signUp(page, h, 'quote@example.dev', 'correct horse battery')
    await visit(page, h, '/portal/campaigns/new')

    // Rendered with the page for the fresh form: the floor bid, behind both rivals.
    const live = page.locator('#auction-quote')
    assert.equal(await live.getAttribute('aria-live'), 'polite')
    assert.ok(await quoteRegion(page).isVisible())
    let text = await live.innerText()
    assert.match(text, /At the floor bid of \$0\.50, your campaign would be #3/)
    assert.match(text, /7,000 impressions queued ahead/, '6,996 left, to two significant figures')
    assert.match(text, /start at about \$3\.00/)
    assert.match(text, /Based on 4 billable impressions/)

    // Typing a bid moves it up, without a submit.
    await field(page, 'Bid (CPM, USD)').fill('4')
    text = await quoteShows(page, /#1/)
    assert.match(text, /At \$4\.00, your campaign would be #1 in the auction for this traffic \(next to serve\), with 0 impressions queued ahead/)
    assert.match(text, /start serving around 2026-11-02 09:00 UTC/)
    await field(page, 'Bid (CPM, USD)').fill('2')
    text = await quoteShows(page, /#2/)
    assert.match(text, /2,000 impressions queued ahead/)
    // Equal to a rival's bid: created later, so behind it.
    await field(page, 'Bid (CPM, USD)').fill('3')
    await quoteShows(page, /At \$3\.00, your campaign would be #2/)

    // Blocks and targeting change it too; a bid the rules refuse says why.
    await setField(page, 'Target surface', 'Terminal status line')
    await quoteShows(page, /#1 .*next to serve/)
    await field(page, 'Bid (CPM, USD)').fill('0.1')
    await quoteShows(page, /To see your place in the auction: Bid at least \$0\.50/)
    await field(page, 'Bid (CPM, USD)').fill('2.5')
    await setField(page, 'Target surface', 'Editor extension')
    await field(page, 'Blocks').fill('3')
    text = await quoteShows(page, /At \$2\.50, your campaign would be #2/)
    assert.match(text, /deliver 3,000 impressions by about/)
    // A click bid ranks by expected value ($2.50 × the 1 % prior CTR), behind both rivals, and buys clicks.
    await setField(page, 'Kind', 'Click')
    await quoteShows(page, /would be #3[\s\S]*deliver 3,000 clicks by about/)
    assert.doesNotMatch(await page.content(), /Rival Brand|Rival line|rival\.example/)

    await checkPage(page)
    await page.setViewportSize(DESKTOP)
    await screenshot(page, 'campaign-quote')
    await page.setViewportSize(PHONE)
    await screenshot(page, 'campaign-quote-phone')
    await page.setViewportSize(DESKTOP)

    // Nothing was created by quoting.
    await visit(page, h, '/portal/campaigns')
    assert.match(await page.locator('main').innerText(), /no campaigns|not created any/i)
  })

  test('without JavaScript, "Show my place in the auction" shows the form again with the quote of its values', { timeout: 60_000 }, async () => {
    const context = await h.browser.newContext({ viewport: DESKTOP, javaScriptEnabled: false, extraHTTPHeaders: { 'x-forwarded-for': '192.0.2.77' } })
    try {
      context.setDefaultTimeout(10_000)
      const page = await context.newPage()
      await signUp(page, h, 'quote-nojs@example.dev', 'correct horse battery')
      await visit(page, h, '/portal/campaigns/new')
      await field(page, 'Ad line').fill('Kept while quoting')
      await field(page, 'Bid (CPM, USD)').fill('9')
      const response = await submit(page, 'Show my place in the auction')
      assert.equal(response.status(), 200)
      assert.equal(new URL(page.url()).pathname, '/portal/campaigns/new')
      assert.match(await page.locator('#auction-quote').innerText(), /At \$9\.00, your campaign would be #1/)
      assert.equal(await field(page, 'Ad line').inputValue(), 'Kept while quoting')
      assert.equal(await field(page, 'Bid (CPM, USD)').inputValue(), '9')
      // (axe needs scripts; the first test checks this page with them.)
      assert.equal(await page.locator('h1').count(), 1)
    } finally {
      await context.close()
    }
  })
})
