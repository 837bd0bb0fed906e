import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { describe, test } from 'node:test'
import { callService } from '../helpers/service.ts'
import { browserSkip, checkPage, letWrite, screenshotBothWidths, signIn, signUp, useBrowser, userIdOnPage, visit, type BrowserHarness } from '../helpers/browser.ts'

/**
 * The verifiable ledger's pages (issue 39) in Chromium: the billing page's "What each invoice took from
 * the ledger" (each day with its root, shortened, the whole root in its title and copyable; the
 * reconciliation statement) and the public /transparency log (no account data). Both pass checkPage
 * (axe at 1280 and 375 px); UPDATE_SCREENSHOTS=1 writes docs/portal/billing-ledger*.png and
 * docs/screenshots/public-transparency*.png. The clock starts Monday 2026-11-02 09:00 UTC.
 */

const PASSWORD = 'correct horse battery'

async function moveTo(h: BrowserHarness, iso: string): Promise<void> {
  const res = await h.admin('POST', '/clock', { now: iso })
  assert.equal(res.status, 200, res.text)
}

let viewers = 0
async function deliver(h: BrowserHarness, country: string, n: number): Promise<void> {
  const from = Array.from({ length: n }, () => ({ viewer: `ledger-viewer-${viewers}`, ip: `203.0.113.${(viewers++ % 250) + 1}` }))
  const decisions = await Promise.all(
    from.map((v) => callService(h.svc, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id: v.viewer, country }, { 'x-forwarded-for': v.ip })),
  )
  for (const d of decisions) assert.equal(d.status, 200, d.text)
  await h.advance(10)
  for (const [i, d] of decisions.entries()) {
    const view = await callService(h.svc, 'POST', `/serve/v1/impressions/${d.body.impression_id}/view`, { dwell_ms: 10_000 }, { 'x-forwarded-for': from[i]!.ip })
    assert.equal(view.status, 204, view.text)
  }
}

describe('the verifiable ledger in a browser', { skip: browserSkip }, () => {
  const h = useBrowser()

  test('the billing page shows what each invoice took from each day, and /transparency the published heads', { timeout: 120_000 }, async () => {
    const { page } = h
    await signUp(page, h, 'ledger-pages@example.dev', PASSWORD)
    const owner = await letWrite(h, await userIdOnPage(page))
    const created = await h.api(owner, 'POST', '/campaigns', {
      ad_line: 'Ship faster with Acme CI',
      destination_url: 'https://acme.example/ci',
      cpm_usd: 3.7,
      impressions: 1000,
      target_countries: ['LV'],
      idempotency_key: randomUUID(),
    })
    assert.equal(created.status, 201, created.text)
    assert.equal((await h.admin('POST', `/campaigns/${created.body.campaign_id}/moderation`, { status: 'approved' })).status, 200)
    await deliver(h, 'LV', 3)
    await moveTo(h, '2026-11-05T09:00:00Z')
    await deliver(h, 'LV', 2)
    await moveTo(h, '2026-11-09T05:59:00Z')
    await deliver(h, 'LV', 1)
    await moveTo(h, '2026-11-09T07:00:00Z') // the Monday invoice; 2026-11-09 is still open

    const invoices = (await h.api(owner, 'GET', '/invoices')).body.invoices
    assert.equal(invoices.length, 1)
    const [first, , last] = invoices[0].days
    assert.equal(last.root, null, 'the day of the period end is not closed yet')

    // A week of service time later the session has lapsed: sign in again.
    await signIn(page, h, 'ledger-pages@example.dev', PASSWORD)
    await visit(page, h, '/portal/billing')
    const section = page.locator('.invoice-ledger', { has: page.getByRole('heading', { name: /^Invoice 2026-11-02 – 2026-11-09/ }) })
    const table = page.getByRole('region', { name: /^Invoice 2026-11-02 – 2026-11-09/ }).getByRole('table')
    assert.equal(await table.getByRole('row').count(), 4) // the heading row and three days
    const root = section.locator('code.hash').first()
    assert.equal(await root.getAttribute('title'), first.root)
    assert.equal(await root.innerText(), `${first.root.slice(0, 12)}…`)
    assert.match(await section.innerText(), /Day not closed yet/)
    assert.match(await section.innerText(), /3 days add up to \$0\.0222 delivered\..*the amount is \$0\.02; less \$0\.00 credits applied, the total is \$0\.02\./s)
    await section.getByRole('button', { name: 'Copy the root of 2026-11-02' }).isVisible()
    await checkPage(page)
    await screenshotBothWidths(page, 'billing-ledger')

    await visit(page, h, '/transparency')
    assert.equal(await page.locator('h1').innerText(), 'Ledger transparency log')
    const heads = page.getByRole('region', { name: 'Published tree heads' }).getByRole('row')
    assert.equal(await heads.count(), 3) // the heading row and the two closed days with rows (2026-11-09 is open)
    const body = await page.locator('main').innerText()
    assert.doesNotMatch(body, new RegExp(owner.userId))
    assert.doesNotMatch(body, new RegExp(first.root), 'an account root is never published, only the tree head')
    await checkPage(page)
    await screenshotBothWidths(page, 'public-transparency', 'docs/screenshots')
  })
})
