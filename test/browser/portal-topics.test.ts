import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertTablesAndChartsFit } from './phone-checks.ts'
import { callService } from '../helpers/service.ts'
import {
  browserSkip,
  checkPage,
  DESKTOP,
  field,
  letWrite,
  PHONE,
  screenshotBothWidths,
  signIn,
  signUp,
  submit,
  useBrowser,
  userIdOnPage,
  visit,
  type BrowserHarness,
} from '../helpers/browser.ts'

/**
 * The create form's topic picker and the campaign page's topics (issue 40) in Chromium: grouped
 * checkboxes in folded groups with a filter box (assets/site.js), at most ten with the error beside
 * the field (in the page before a submit, and from the service after one); without JavaScript the
 * same checkboxes create the campaign. The campaign page lists its topics, says when one is no longer
 * in the vocabulary, and shows delivery by topic. With UPDATE_SCREENSHOTS=1 it writes
 * docs/portal/campaign-topics{,-375}.png and docs/portal/campaign-topics-delivery{,-375}.png.
 */

const COUNTRY = 'QT'
const PASSWORD = 'correct horse battery'

const picker = (page: Page) => page.getByRole('group', { name: 'Target topics' })
const box = (page: Page, label: string) => picker(page).getByLabel(label, { exact: true })

/** Fills the required fields of the create form (targeted at COUNTRY, so only this file's decisions meet it). */
async function fillOrder(page: Page, adLine: string, bid = '2'): Promise<void> {
  await field(page, 'Ad line').fill(adLine)
  await field(page, 'Bid (CPM, USD)').fill(bid)
  await field(page, 'Blocks').fill('1')
  await field(page, 'Destination URL').fill('https://acme.example/k8s')
  await field(page, 'Target countries').fill(COUNTRY)
}

/** Opens the group holding `label` (a <summary> click) when it is folded. */
async function tick(page: Page, group: string, label: string): Promise<void> {
  const details = picker(page).locator('details', { has: page.locator('summary', { hasText: group }) })
  if (!(await details.evaluate((d) => (d as HTMLDetailsElement).open))) await details.locator('summary').click()
  await box(page, label).check()
}

async function signedUpWriter(h: BrowserHarness, page: Page, email: string): Promise<{ userId: string; apiKey: string }> {
  await signUp(page, h, email, PASSWORD)
  return letWrite(h, await userIdOnPage(page))
}

describe('topics on the create form and the campaign page', { skip: browserSkip }, () => {
  const h = useBrowser()

  test('the picker filters, counts, refuses an eleventh topic beside the field, and creates the campaign with its topics', { timeout: 90_000 }, async () => {
    const { page } = h
    await signedUpWriter(h, page, 'topics@example.dev')
    await visit(page, h, '/portal/campaigns/new')
    assert.ok(await picker(page).isVisible())
    // Folded groups; the filter box shows with the script.
    const filter = page.getByLabel('Find a topic', { exact: true })
    assert.ok(await filter.isVisible())
    await filter.fill('kube')
    assert.ok(await box(page, 'Kubernetes').isVisible(), 'a match shows, its group opened')
    assert.equal(await box(page, 'Python').isVisible(), false, 'a topic that does not match hides')
    await box(page, 'Kubernetes').check()
    await filter.fill('')
    await tick(page, 'Infrastructure', 'Helm')
    assert.match(await picker(page).innerText(), /2 of 10 chosen/)
    // The live quote follows the ticked topics (no decision counted yet in this service: the share is not known).
    await page.locator('#auction-quote').filter({ hasText: /share carrying your topics is not known yet/ }).waitFor()
    await checkPage(page)
    await screenshotBothWidths(page, 'campaign-topics')

    // Eleven: the page says so beside the field at once; a submit gets the service's refusal there too.
    for (const label of ['Docker', 'Terraform', 'Ansible', 'Prometheus', 'Grafana', 'nginx', 'Argo CD', 'Vault', 'Istio']) await tick(page, 'Infrastructure', label)
    assert.match(await picker(page).innerText(), /11 of 10 chosen/)
    assert.match(await picker(page).locator('.field-error').innerText(), /Choose at most 10 topics: 11 are ticked/)
    await fillOrder(page, 'Kubernetes dashboards by Acme')
    const refused = await submit(page, 'Create campaign')
    assert.equal(refused.status(), 400)
    assert.match(await picker(page).locator('.field-error').innerText(), /Choose at most 10 topics\./)
    assert.match(await page.getByRole('alert').innerText(), /Target topics/)
    assert.equal(await box(page, 'Kubernetes').isChecked(), true, 'the ticked topics are kept')
    await checkPage(page)

    await box(page, 'Istio').uncheck()
    await submit(page, 'Create campaign')
    const campaignId = /^\/portal\/campaigns\/([^/?#]+)$/.exec(new URL(page.url()).pathname)?.[1]
    assert.ok(campaignId && campaignId !== 'new', `creating led to ${page.url()}`)
    const facts = await page.locator('main').innerText()
    assert.match(facts, /Target topics\s+Ansible, Argo CD, Docker, Grafana, Helm, Kubernetes, nginx, Prometheus, Terraform, Vault/)
  })

  test('without JavaScript the grouped checkboxes still create the campaign; the campaign page shows delivery by topic and a retired topic', { timeout: 90_000 }, async () => {
    const context = await h.browser.newContext({ viewport: DESKTOP, javaScriptEnabled: false, extraHTTPHeaders: { 'x-forwarded-for': '192.0.2.88' } })
    context.setDefaultTimeout(10_000)
    try {
      const page = await context.newPage()
      await signedUpWriter(h, page, 'topics-nojs@example.dev')
      await visit(page, h, '/portal/campaigns/new')
      assert.equal(await page.getByLabel('Find a topic', { exact: true }).isVisible(), false, 'no filter box without the script')
      await picker(page).locator('summary', { hasText: 'Infrastructure' }).click()
      await box(page, 'Kubernetes').check()
      await picker(page).locator('summary', { hasText: 'Languages' }).click()
      await box(page, 'Go').check()
      // Above the first test's Kubernetes campaign in this country, so it wins these decisions.
      await fillOrder(page, 'Operators in Go by Acme', '3')
      await submit(page, 'Create campaign')
      const campaignId = /^\/portal\/campaigns\/([^/?#]+)$/.exec(new URL(page.url()).pathname)?.[1]
      assert.ok(campaignId && campaignId !== 'new', `creating led to ${page.url()}`)

      // Twelve billable impressions from Kubernetes projects, three from Go ones: Go is under ten, so "other".
      const decisions = []
      for (let i = 0; i < 15; i++) {
        const topics = i < 12 ? ['kubernetes', 'helm'] : ['go']
        decisions.push(
          await callService(h.svc, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id: `topics-viewer-${i}`, country: COUNTRY, topics }, { 'x-forwarded-for': `203.0.113.${i + 1}` }),
        )
      }
      await h.advance(10)
      for (const [i, d] of decisions.entries()) {
        assert.equal(d.status, 200, d.text)
        const view = await callService(h.svc, 'POST', `/serve/v1/impressions/${d.body.impression_id}/view`, { dwell_ms: 10_000 }, { 'x-forwarded-for': `203.0.113.${i + 1}` })
        assert.equal(view.status, 204, view.text)
      }
      // A topic later removed from the vocabulary: stored names stay; the page says it matches nothing now.
      await h.svc.service.store.db.updateTable('campaigns').set({ target_topics: ['go', 'kubernetes', 'retired-topic'] }).where('campaign_id', '=', campaignId).execute()

      await page.reload()
      const main = await page.locator('main').innerText()
      assert.match(main, /Target topics\s+Go, Kubernetes, retired-topic \(no longer in the topic list\)/)
      assert.match(main, /matches no decision now/)
      const table = page.getByRole('region', { name: 'Delivery by topic' })
      const text = await table.innerText()
      assert.match(text, /Kubernetes\s+12\s+80 %/)
      assert.match(text, /Other topics \(each under 10\)\s+3\s+20 %/)
      assert.doesNotMatch(text, /\bGo\b/, 'a topic under ten is never named')

      // axe runs as a script: the same page, signed in with JavaScript on.
      await signIn(h.page, h, 'topics-nojs@example.dev', PASSWORD)
      await visit(h.page, h, `/portal/campaigns/${campaignId}`)
      await checkPage(h.page)
      await screenshotBothWidths(h.page, 'campaign-topics-delivery')

      // At 375 px (issue 51): the caption whole above the table, which says it scrolls, and the Share column reached by scrolling.
      await h.page.setViewportSize(PHONE)
      const fit = await assertTablesAndChartsFit(h.page)
      assert.ok(fit.charts >= 2, JSON.stringify(fit))
      const topics = h.page.getByRole('region', { name: 'Delivery by topic' })
      const caption = h.page.locator('p.table-caption', { hasText: 'by the topic of the project each was shown in' })
      assert.ok(await caption.isVisible(), 'the caption stands above the table')
      const scrolls = await topics.evaluate((el) => el.scrollWidth > el.clientWidth + 1)
      if (scrolls) assert.match(await h.page.locator('.scroll-hint').first().innerText(), /Scroll sideways to see every column/)
      await topics.evaluate((el) => el.scrollTo({ left: el.scrollWidth }))
      const share = await topics.getByRole('columnheader', { name: 'Share' }).boundingBox()
      assert.ok(share && share.x >= 0 && share.x + share.width <= PHONE.width, `the Share column is reached: ${JSON.stringify(share)}`)
      await checkPage(h.page)
      await h.page.setViewportSize(DESKTOP)
    } finally {
      await context.close()
    }
  })
})
