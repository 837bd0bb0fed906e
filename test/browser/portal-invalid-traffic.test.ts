import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { callService } from '../helpers/service.ts'
import { browserSkip, checkPage, letWrite, navigate, screenshotBothWidths, signIn, signUp, useBrowser, userIdOnPage, visit } from '../helpers/browser.ts'
import { campaignBody } from '../helpers/api.ts'

/**
 * What an advertiser sees of invalid traffic found after the fact (issue 32, part 2), in Chromium: a
 * bot source's impressions voided by the daily review, "Invalid traffic credited back" on the
 * campaign page and the credit on the billing page; axe-clean and readable at 1280 and 375 px. With
 * UPDATE_SCREENSHOTS=1 it writes docs/portal/campaign-invalid-traffic*.png and billing-credits*.png.
 */

describe('portal: invalid traffic credited back', { skip: browserSkip }, () => {
  const h = useBrowser()

  test('the campaign page and the billing page show what the review voided and gave back', async () => {
    const { page } = h
    const email = `ivt-${process.pid}@example.dev`
    await signUp(page, h, email, 'correct horse battery')
    const userId = await userIdOnPage(page)
    const { apiKey } = await letWrite(h, userId)
    const created = await h.api({ userId, apiKey }, 'POST', '/campaigns', campaignBody({ name: 'Spring push', target_countries: ['QV'], impressions: 1000, cpm_usd: 8 }))
    assert.equal(created.status, 201, created.text)

    // A bot: 40 invented viewers behind one address, views just over the threshold, exactly 10 s after each decision.
    const bot = { 'x-forwarded-for': '203.0.113.140' }
    for (let round = 0; round < 2; round++) {
      const offers = await Promise.all(
        Array.from({ length: 40 }, (_, i) => callService(h.svc, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id: `ivt-bot-${i}`, country: 'QV' }, bot)),
      )
      assert.ok(offers.every((o) => o.status === 200), offers.map((o) => `${o.status} ${o.text}`).join(', ').slice(0, 300))
      await h.advance(10)
      await Promise.all(offers.map((o) => callService(h.svc, 'POST', `/serve/v1/impressions/${o.body.impression_id}/view`, { dwell_ms: 9_600 }, bot)))
    }
    // The next day, after the review (00:10) and the rollups (00:15).
    await h.advance(16 * 3600)
    // The session ended after 12 idle hours of service time.
    await signIn(page, h, email, 'correct horse battery')

    await navigate(page, 'Campaigns')
    await page.getByRole('link', { name: 'Spring push' }).click()
    await page.getByRole('heading', { name: 'Invalid traffic credited back' }).waitFor()
    assert.match(await page.locator('main').innerText(), /credited back for invalid traffic/)
    await checkPage(page)
    await screenshotBothWidths(page, 'campaign-invalid-traffic')

    await visit(page, h, '/portal/billing')
    const credits = page.getByRole('region', { name: 'Credits' })
    assert.match(await credits.innerText(), /Invalid traffic\s+Invalid traffic on 2026-11-02: 80 billed units voided and credited back\s+\$0\.64/)
    await checkPage(page)
    await screenshotBothWidths(page, 'billing-credits')
  })
})
