import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { randomUUID } from 'node:crypto'
import type { Page } from 'playwright-core'
import { assertTablesAndChartsFit } from './phone-checks.ts'
import { campaignBody } from '../helpers/api.ts'
import { ADMIN_TOKEN } from '../helpers/service.ts'
import {
  type BrowserHarness,
  browserSkip,
  checkPage,
  DESKTOP,
  field,
  letWrite,
  navigate,
  openMenu,
  PHONE,
  screenshot,
  screenshotBothWidths,
  signUp,
  submit,
  useBrowser,
  userIdOnPage,
  visit,
} from '../helpers/browser.ts'

/**
 * The portal at a phone's width (issue 36, points 5 and 6), in Chromium: at
 * 375 px no page scrolls sideways, the "Menu" reaches every section, wide
 * tables are stacked rows whose cells carry their column's name; "Share
 * report" lands at the report's link with a working "Copy link", and
 * "Preview" shows the ad line in place, under its button; the operator
 * console's navigation is the same "Menu". With
 * UPDATE_SCREENSHOTS=1 it writes docs/portal/phone-menu.png,
 * phone-campaigns.png, campaign-share*.png and campaign-preview*.png.
 */

const PASSWORD = 'correct horse battery'

/** The portal's sections as the navigation names them, with their paths. */
const SECTIONS = [
  ['Overview', '/portal'],
  ['Campaigns', '/portal/campaigns'],
  ['Stats', '/portal/stats'],
  ['Exports', '/portal/exports'],
  ['Webhooks', '/portal/webhooks'],
  ['Billing', '/portal/billing'],
  ['API key', '/portal/key'],
  ['Terms', '/portal/terms'],
] as const

/** A signed-in advertiser who may write, with two campaigns and an export; returns the first campaign's id and the credentials. */
async function readyAdvertiser(h: BrowserHarness, page: Page) {
  await signUp(page, h, `phone-${randomUUID().slice(0, 8)}@example.dev`, PASSWORD)
  const userId = await userIdOnPage(page)
  const credentials = await letWrite(h, userId)
  const first = await h.api(credentials, 'POST', '/campaigns', campaignBody({ name: 'Autumn launch of Acme CI for teams', brand: 'Acme', cpm_usd: 4, target_surface: 'terminal' }))
  assert.equal(first.status, 201, first.text)
  const second = await h.api(credentials, 'POST', '/campaigns', campaignBody({ name: 'Spring push', impressions: 1000, kind: 'click' }))
  assert.equal(second.status, 201, second.text)
  const exported = await h.api(credentials, 'POST', '/exports', { start: '2026-11-01T00:00:00Z', end: '2026-11-02T00:00:00Z' })
  assert.equal(exported.status, 202, exported.text)
  return { id: first.body.campaign_id as string, credentials }
}

/** The page's width and height as it scrolls (document.scrollingElement). */
const extent = (page: Page) => page.evaluate(() => ({ width: document.scrollingElement!.scrollWidth, height: document.scrollingElement!.scrollHeight }))

async function assertNoSidewaysScroll(page: Page): Promise<void> {
  const { width } = await extent(page)
  assert.ok(width <= PHONE.width, `${page.url()} is ${width} px wide at ${PHONE.width} px`)
}

/**
 * At the phone width the table named `name` is stacked rows: its heading row
 * is out of sight, each cell is a block labelled with its column's heading
 * (shown before it); at the desktop width it is a table again.
 */
async function assertStacked(page: Page, name: string): Promise<void> {
  const table = page.getByRole('region', { name, exact: true }).locator('table')
  const read = () =>
    table.evaluate((t) => ({
      headings: [...t.querySelectorAll('thead th')].map((th) => (th.textContent ?? '').trim()),
      headHeight: t.querySelector('thead')!.getBoundingClientRect().height,
      width: t.getBoundingClientRect().width,
      rows: [...t.querySelectorAll('tbody tr')].map((tr) =>
        [...tr.children].map((cell) => ({
          label: cell.getAttribute('data-label'),
          display: getComputedStyle(cell).display,
          before: getComputedStyle(cell, '::before').content,
        })),
      ),
    }))
  await page.setViewportSize(PHONE)
  const phone = await read()
  assert.ok(phone.rows.length > 0, `${name}: no rows`)
  assert.ok(phone.headHeight <= 1, `${name}: the heading row is still shown at ${PHONE.width} px`)
  assert.ok(phone.width <= PHONE.width, `${name}: ${phone.width} px wide at ${PHONE.width} px`)
  for (const row of phone.rows) {
    assert.deepEqual(
      row.map((c) => c.label),
      phone.headings,
      `${name}: each cell is labelled by its column`,
    )
    for (const cell of row) {
      assert.equal(cell.display, 'grid', `${name}: a cell is its label beside its content on a phone`)
      assert.notEqual(cell.before, 'none', `${name}: the label "${cell.label}" is shown`)
    }
  }
  await page.setViewportSize(DESKTOP)
  const desktop = await read()
  assert.ok(desktop.headHeight > 10, `${name}: the heading row is shown on a desktop`)
  for (const cell of desktop.rows.flat()) assert.equal(cell.display, 'table-cell', `${name}: a table again on a desktop`)
}

/** The element's top is on the screen as it stands (after a jump to a fragment). */
/** Whether the element's top is in the viewport (a fragment jump may leave it a fraction of a pixel above: Chromium 156 lays out in 1/64 px). */
const onScreen = (page: Page, selector: string) =>
  page.locator(selector).evaluate((el) => {
    const r = el.getBoundingClientRect()
    return r.top > -1 && r.top < window.innerHeight
  })

describe('portal at a phone width', { skip: browserSkip }, () => {
  const h = useBrowser()

  test('at 375 px the menu reaches every section, no page scrolls sideways and wide tables are stacked rows', async () => {
    const { page } = h
    const { id } = await readyAdvertiser(h, page)
    await page.setViewportSize(PHONE)
    await visit(page, h, '/portal')

    // The tab bar gives way to one "Menu" that names the page shown.
    const nav = page.getByRole('navigation', { name: 'Main' })
    assert.equal(await nav.locator('.nav-tabs').isVisible(), false, 'no tab bar at 375 px')
    const summary = nav.locator('summary')
    assert.match((await summary.innerText()).replace(/\s+/g, ' '), /Menu.*Overview/)
    for (const [label, path] of SECTIONS) {
      await navigate(page, label)
      assert.equal(new URL(page.url()).pathname, path, `"${label}" leads to ${path}`)
      assert.ok((await summary.innerText()).trim().endsWith(label), `the menu names the page shown, "${label}"`)
      assert.equal(await nav.locator('details').evaluate((d) => (d as HTMLDetailsElement).open), false, 'a new page starts with the menu closed')
      await assertNoSidewaysScroll(page)
      // Every table and chart of every section (issue 51): captions whole, a table that scrolls says so, value labels clear of the data.
      await assertTablesAndChartsFit(page)
    }
    await visit(page, h, '/portal/campaigns')
    await screenshot(page, 'phone-campaigns')
    assert.equal(await openMenu(page), true)
    for (const [label] of SECTIONS) assert.ok(await nav.getByRole('link', { name: label, exact: true }).isVisible(), `"${label}" is in the open menu`)
    await screenshot(page, 'phone-menu')
    await checkPage(page)

    // On a desktop it is the tab bar, every section in sight.
    await page.setViewportSize(DESKTOP)
    assert.equal(await nav.locator('summary').isVisible(), false, 'no menu on a desktop')
    for (const [label] of SECTIONS) assert.ok(await nav.getByRole('link', { name: label, exact: true }).isVisible(), `"${label}" is in the tab bar`)

    // The wide tables: campaigns, exports, and a campaign's blocks and creatives.
    await assertStacked(page, 'Your campaigns')
    await visit(page, h, '/portal/exports')
    await assertStacked(page, 'Your exports')
    await checkPage(page)

    await page.setViewportSize(PHONE)
    for (const path of [`/portal/campaigns/${id}`, `/portal/campaigns/${id}/cancel`, '/portal/campaigns/new']) {
      await visit(page, h, path)
      await assertNoSidewaysScroll(page)
    }
    await visit(page, h, `/portal/campaigns/${id}`)
    // The first screen: the name, the status and the actions, above the fold.
    const fold = PHONE.height
    for (const [what, locator] of [
      ['the name', page.locator('h1')],
      ['the status', page.locator('.campaign-figures .badge')],
      ['"Pause"', page.getByRole('button', { name: 'Pause', exact: true })],
      ['"Preview"', page.getByRole('button', { name: 'Preview', exact: true })],
      ['"Cancel campaign"', page.getByRole('button', { name: 'Cancel campaign', exact: true })],
    ] as const) {
      const box = await locator.first().boundingBox()
      assert.ok(box && box.y + box.height <= fold, `${what} is not on the first screen at ${PHONE.width} px (${JSON.stringify(box)})`)
    }
    console.log(`# the campaign page at ${PHONE.width} px: ${(await extent(page)).height} px tall`)
    const fit = await assertTablesAndChartsFit(page)
    assert.ok(fit.charts >= 2, `the delivery charts are checked (${JSON.stringify(fit)})`)
    await assertStacked(page, 'Blocks')
    await assertStacked(page, 'Creatives')
    await checkPage(page)
  })

  test('"Share report" lands at the link, whole, with a working "Copy link"; "Preview" shows the line in place', async () => {
    const { page } = h
    await h.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.baseUrl })
    const { id, credentials } = await readyAdvertiser(h, page)
    await page.setViewportSize(PHONE)
    await visit(page, h, `/portal/campaigns/${id}`)

    await submit(page, 'Share report')
    assert.equal(new URL(page.url()).hash, '#share', 'the answer opens at the public report')
    assert.ok(await onScreen(page, '#share'), 'the public report section is on the screen')
    const uuid = (await h.api(credentials, 'GET', `/campaigns/${id}`)).body.report_uuid as string
    const url = `${h.baseUrl}/reports/${uuid}`
    const share = page.getByRole('region', { name: 'Public report' })
    assert.match(await share.getByRole('status').first().innerText(), /Report shared/)
    const link = page.locator('#report-url')
    assert.equal((await link.textContent())?.trim(), url)
    const whole = async () =>
      link.evaluate((code) => ({
        fits: code.scrollWidth <= code.clientWidth,
        uuidLines: code.querySelector('.seg:last-child')!.getClientRects().length,
      }))
    assert.deepEqual(await whole(), { fits: true, uuidLines: 1 }, 'the link fits its box at 375 px, the UUID on one line')
    const copy = share.getByRole('button', { name: 'Copy link', exact: true })
    assert.ok(await copy.isVisible(), 'a "Copy link" button')
    await copy.click()
    await page.locator('#report-url-status').getByText('Copied', { exact: true }).waitFor()
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url)
    assert.equal(await share.getByRole('link', { name: 'Public report', exact: true }).getAttribute('href'), url)
    await page.setViewportSize(DESKTOP)
    assert.deepEqual(await whole(), { fits: true, uuidLines: 1 }, 'the link is on one line on a desktop')
    assert.equal(await link.evaluate((code) => code.getClientRects().length), 1)
    await checkPage(page)
    await screenshotBothWidths(page, 'campaign-share')

    // Without JavaScript: the menu still opens, the link is there to select, and no dead "Copy link" button.
    const plain = await h.browser.newContext({ javaScriptEnabled: false, viewport: PHONE, storageState: await h.context.storageState() })
    try {
      const p = await plain.newPage()
      await p.goto(`${h.baseUrl}/portal/campaigns/${id}#share`)
      assert.equal((await p.locator('#report-url').textContent())?.trim(), url)
      assert.equal(await p.getByRole('button', { name: 'Copy link' }).count(), 0, 'no Copy button without JavaScript')
      await navigate(p, 'Exports')
      assert.equal(new URL(p.url()).pathname, '/portal/exports')
    } finally {
      await plain.close()
    }

    // "Preview": the page comes back at the preview, the line drawn as the surface it targets shows it (here the terminal).
    await page.setViewportSize(PHONE)
    await visit(page, h, `/portal/campaigns/${id}`)
    await submit(page, 'Preview')
    assert.equal(new URL(page.url()).hash, '#preview')
    assert.ok(await onScreen(page, '#preview'), 'the preview is on the screen')
    const preview = page.getByRole('region', { name: 'Preview' })
    assert.match(await preview.locator('.term .status').innerText(), /^Ad · Acme · Ship faster with Acme CI$/)
    assert.equal(await preview.locator('.editor').count(), 0, 'a terminal campaign is previewed on the terminal only, as the preview page does')
    const previewHref = await preview.getByRole('link', { name: 'open the preview page' }).getAttribute('href')
    assert.ok(previewHref?.startsWith(`${h.baseUrl}/preview/pv_`), `${previewHref}`)
    assert.equal((await page.locator('#preview-url').textContent())?.trim(), previewHref)
    await assertNoSidewaysScroll(page)
    await checkPage(page)
    await screenshotBothWidths(page, 'campaign-preview')
  })

  test('the navigation of the operator console is the same "Menu" at 375 px', async () => {
    const { page } = h
    const operator = { email: `ops-${randomUUID().slice(0, 8)}@example.dev`, password: 'the operator password' }
    await visit(page, h, '/ops/setup')
    await field(page, 'Token').fill(ADMIN_TOKEN)
    await field(page, 'Email').fill(operator.email)
    await field(page, 'Password').fill(operator.password)
    await submit(page, 'Create operator')
    await visit(page, h, '/ops/login')
    await field(page, 'Email').fill(operator.email)
    await field(page, 'Password').fill(operator.password)
    await submit(page, 'Sign in')
    await page.setViewportSize(PHONE)
    const nav = page.getByRole('navigation', { name: 'Main' })
    assert.equal(await nav.locator('.nav-tabs').isVisible(), false, 'no tab bar at 375 px')
    for (const [label, path] of [
      ['Accounts', '/ops/accounts'],
      ['Traffic quality', '/ops/traffic'],
      ['Audit log', '/ops/audit'],
    ] as const) {
      await navigate(page, label)
      assert.equal(new URL(page.url()).pathname, path)
      assert.ok((await nav.locator('summary').innerText()).trim().endsWith(label))
      await assertNoSidewaysScroll(page)
    }
    await openMenu(page)
    await checkPage(page)
  })
})
