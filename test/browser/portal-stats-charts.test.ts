import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { callService, CLOCK_START } from '../helpers/service.ts'
import { campaignBody } from '../helpers/api.ts'
import { type BrowserHarness, browserSkip, charts, checkPage, letWrite, navigate, screenshotBothWidths, signUp, useBrowser, userIdOnPage } from '../helpers/browser.ts'
import type { Page } from 'playwright-core'

/**
 * Issue 36, points 2 and 4, in Chromium: an advertiser whose campaign delivered today opens Stats
 * and sees today's delivery at once (by the hour), uses each preset, reads where the closed days
 * end and the live part begins, and reads the charts: the hour in progress marked, a value on hover
 * and on keyboard focus. axe-clean at 1280 and 375 px (checkPage checks both). With UPDATE_SCREENSHOTS=1 it writes
 * docs/portal/stats-today*.png and chart-partial-hour*.png.
 */

const COUNTRY = 'QS'
const TODAY = CLOCK_START.slice(0, 10)

/** `n` billable views through the serving endpoints, each viewer from an address of its own. */
async function deliver(h: BrowserHarness, n: number, round: number): Promise<void> {
  const address = (i: number) => ({ 'x-forwarded-for': `198.18.${round}.${i + 1}` })
  const offers = await Promise.all(
    Array.from({ length: n }, (_, i) => callService(h.svc, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id: `stats-${round}-${i}`, country: COUNTRY }, address(i))),
  )
  for (const o of offers) assert.equal(o.status, 200, o.text)
  await h.advance(10)
  for (const [i, o] of offers.entries()) {
    const view = await callService(h.svc, 'POST', `/serve/v1/impressions/${o.body.impression_id}/view`, { dwell_ms: 10_000 }, address(i))
    assert.equal(view.status, 204, view.text)
  }
}

/** The text of the chart tooltip site.js shows, once visible. */
async function tooltip(page: Page): Promise<string> {
  const tip = page.locator('.chart-tip')
  await tip.waitFor({ state: 'visible' })
  return (await tip.innerText()).trim()
}

describe('portal: stats opens on today, with presets and charts that say what is partial', { skip: browserSkip }, () => {
  const h = useBrowser()

  test('today by default, each preset, the closed/live boundary, the hour in progress marked, values on hover and focus', { timeout: 120_000 }, async () => {
    const { page } = h
    const email = `stats-charts-${process.pid}@example.dev`
    await signUp(page, h, email, 'correct horse battery')
    const userId = await userIdOnPage(page)
    const { apiKey } = await letWrite(h, userId)
    const created = await h.api({ userId, apiKey }, 'POST', '/campaigns', campaignBody({ name: 'Winter launch', target_countries: [COUNTRY], impressions: 1000, cpm_usd: 2.5 }))
    assert.equal(created.status, 201, created.text)

    // Delivery in three hours of today: 09:00 (12), 10:00 (20), and 11:00 (7), the hour in progress.
    await deliver(h, 12, 1)
    await h.advance(3600)
    await deliver(h, 20, 2)
    await h.advance(3600)
    await deliver(h, 7, 3)
    await h.advance(25 * 60)

    // Stats opens on today, by the hour: today's 39 billable impressions, not zeros.
    await navigate(page, 'Stats')
    const main = page.locator('main')
    assert.match(await main.innerText(), new RegExp(`All campaigns, on ${TODAY} \\(UTC\\)`))
    assert.match(await main.innerText(), /Billable impressions\s+39\s+0 attested: the view carried a token from a signed-in account\s+Spend\s+\$0\.0975/i)
    assert.equal(await page.getByRole('navigation', { name: 'Periods' }).getByRole('link', { name: 'Today' }).getAttribute('aria-current'), 'true')
    // Where the closed days end and the live part begins.
    assert.match(await page.locator('#stats-boundary').innerText(), new RegExp(`From ${TODAY} 00:00 UTC on, figures are live`))
    assert.match(await page.locator('#stats-boundary').innerText(), /the current hour is drawn lighter: it is not over/)

    // The hour in progress: one lighter, dashed bar and a dashed spend level; nothing drawn after now.
    const impressions = page.locator('#stats-impressions')
    assert.equal(await impressions.locator('rect.bar.partial').count(), 1)
    assert.equal(await page.locator('#stats-spend line.line.partial').count(), 2, 'the step into the hour in progress and its level, dashed')
    assert.equal(await impressions.locator('.mark').count(), 3)
    const shown = await charts(page)
    assert.deepEqual(shown[0]!.rows.slice(-3), [
      [`${TODAY} 09:00 UTC`, '12'],
      [`${TODAY} 10:00 UTC`, '20'],
      [`${TODAY} 11:00 UTC (so far: this hour is not over)`, '7'],
    ])
    // Bars at their true width: an hour is 1/24 of today's axis, whatever the page's width.
    const svgWidth = (await impressions.locator('svg.timeline').boundingBox())!.width
    const barWidth = (await impressions.locator('rect.bar').first().boundingBox())!.width
    assert.ok(barWidth < svgWidth / 24 && barWidth > svgWidth / 30, `bar ${barWidth} of ${svgWidth}`)
    assert.ok(svgWidth > 900, `the chart uses the page's width (${svgWidth} px)`)

    // A value on hover…
    await impressions.locator('.mark').nth(1).hover()
    assert.equal(await tooltip(page), `${TODAY} 10:00 UTC: Billable impressions 20`)
    // …and on keyboard focus: Tab reaches a mark, the arrow keys move along.
    await page.mouse.move(0, 0)
    await impressions.locator('.mark').first().focus()
    assert.equal(await tooltip(page), `${TODAY} 09:00 UTC: Billable impressions 12`)
    await page.keyboard.press('ArrowRight')
    await page.keyboard.press('ArrowRight')
    assert.equal(await tooltip(page), `${TODAY} 11:00 UTC: Billable impressions 7 (so far: this hour is not over)`)
    await page.keyboard.press('Tab')
    await page.keyboard.press('Shift+Tab')
    assert.match(await tooltip(page), /11:00 UTC: Billable impressions 7/)
    await page.keyboard.press('Escape')
    await page.locator('.chart-tip').waitFor({ state: 'hidden' })
    await checkPage(page)
    await screenshotBothWidths(page, 'stats-today')

    // Each preset: today's delivery is in every one, the preset is marked, the form shows its dates.
    for (const [name, granularity, rows] of [
      ['Last 7 days', 'day', 7],
      ['Last 30 days', 'day', 30],
      ['This month', 'day', 2],
      ['Today', 'hour', 12],
    ] as const) {
      const navigation = page.waitForNavigation({ waitUntil: 'load' })
      await page.getByRole('navigation', { name: 'Periods' }).getByRole('link', { name }).click()
      await navigation
      assert.equal(await page.getByRole('navigation', { name: 'Periods' }).getByRole('link', { name }).getAttribute('aria-current'), 'true', name)
      assert.match(await main.innerText(), /Billable impressions\s+39\s/i, name)
      assert.equal(await page.getByLabel('Granularity', { exact: true }).inputValue(), granularity, name)
      assert.equal(await page.getByLabel('End', { exact: true }).inputValue(), TODAY, name)
      const [chart] = await charts(page)
      assert.equal(chart!.rows.length - 1, rows, `${name}: one row per ${granularity} so far`)
      if (granularity === 'day') {
        assert.deepEqual(chart!.rows.at(-1), [`${TODAY} (so far: today is not over)`, '39'], name)
        assert.equal(await impressions.locator('rect.bar.partial').count(), 1, name)
        assert.match(await page.locator('#stats-boundary').innerText(), /today is drawn lighter/, name)
      }
    }
    await checkPage(page)

    // The campaign page's chart: a young campaign on a day of hours, the hour in progress marked, its value on focus.
    await navigate(page, 'Campaigns')
    await page.getByRole('link', { name: 'Winter launch' }).click()
    await page.locator('#delivery-impressions').waitFor()
    assert.match(await main.innerText(), /Spend\s+\$0\.0975/i, 'spend written as on Stats')
    const partial = page.locator('#delivery-impressions .mark').last()
    assert.equal(await partial.locator('rect.bar.partial').count(), 1)
    await partial.focus()
    assert.equal(await tooltip(page), `${TODAY} 11:00 UTC: Billable impressions 7 (so far: this hour is not over)`)
    await checkPage(page)
    await screenshotBothWidths(page, 'chart-partial-hour')
  })
})
