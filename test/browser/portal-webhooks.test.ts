import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { assertFieldError, browserSkip, checkPage, field, navigate, screenshotBothWidths, signUp, submit, useBrowser, userIdOnPage } from '../helpers/browser.ts'
import { WebhookReceiver } from '../helpers/webhook-receiver.ts'

/**
 * /portal/webhooks in Chromium, by labels only: add an endpoint (a refused URL first, the error
 * beside the field), copy the secret shown once, watch a delivery arrive in the log, resend it,
 * delete the endpoint; axe-clean and readable at 1280 and 375 px. With UPDATE_SCREENSHOTS=1 it
 * writes docs/portal/webhooks*.png.
 */

describe('portal webhooks', { skip: browserSkip }, () => {
  const h = useBrowser({ WEBHOOKS_ALLOW_LOOPBACK: 'true' })
  let receiver: WebhookReceiver | null = null
  after(async () => {
    await receiver?.close()
  })

  test('add an endpoint, see its secret once, follow a delivery, resend it, delete the endpoint', async () => {
    receiver = await WebhookReceiver.start()
    const { page } = h
    await signUp(page, h, `hooks-${process.pid}@example.dev`, 'correct horse battery')
    const userId = await userIdOnPage(page)
    const apiKey = (await h.admin('POST', `/accounts/${userId}/rotate-key`)).body.api_key as string
    const credentials = { userId, apiKey }

    await navigate(page, 'Webhooks')
    assert.equal(await page.locator('h1').innerText(), 'Webhooks')
    await checkPage(page)

    // A plain-http URL is refused beside the field, and what was typed stays.
    await field(page, 'Endpoint URL').fill('http://hooks.example.com/ads')
    await page.getByLabel('export.ready', { exact: false }).check()
    const refused = await submit(page, 'Add endpoint')
    assert.equal(refused.status(), 400)
    await assertFieldError(page, 'Endpoint URL', /https:\/\//)
    assert.equal(await page.getByLabel('export.ready', { exact: false }).isChecked(), true)
    await checkPage(page)
    await screenshotBothWidths(page, 'webhooks-error')

    await field(page, 'Endpoint URL').fill(receiver.url)
    const added = await submit(page, 'Add endpoint')
    assert.equal(added.status(), 201)
    const secret = (await page.locator('#webhook-secret').innerText()).trim()
    assert.match(secret, /^whsec_/)
    await assert.doesNotReject(page.getByText('Copy it now', { exact: false }).waitFor())
    assert.ok(await page.getByRole('button', { name: 'Copy secret' }).isVisible())
    await checkPage(page)
    await screenshotBothWidths(page, 'webhooks')
    receiver.secret = secret

    // A real change: an export becomes ready, and its delivery shows in the log.
    const queued = await h.api(credentials, 'POST', '/exports', { start: '2026-11-01T00:00:00Z', end: '2026-11-02T00:00:00Z' })
    assert.equal(queued.status, 202)
    const [got] = await receiver.waitFor(1)
    assert.ok(got!.verified)

    await navigate(page, 'Webhooks')
    assert.equal(await page.locator('#webhook-secret').count(), 0, 'the secret is not shown again')
    const log = page.getByRole('link', { name: 'Delivery log' })
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), log.click()])
    for (let i = 0; i < 50 && (await page.getByText('Delivered (HTTP 200)').count()) === 0; i++) {
      await new Promise((r) => setTimeout(r, 100))
      await page.reload()
    }
    assert.ok(await page.getByText('Delivered (HTTP 200)').isVisible())
    await checkPage(page)
    await screenshotBothWidths(page, 'webhook-log')

    const resent = await submit(page, 'Resend')
    assert.equal(resent.status(), 200)
    assert.ok(await page.getByText('Delivery queued to be sent again now', { exact: false }).isVisible())
    const [, again] = await receiver.waitFor(2)
    assert.equal(again!.id, got!.id)

    const deleted = await submit(page, 'Delete endpoint')
    assert.equal(deleted.status(), 200)
    assert.equal(new URL(page.url()).pathname, '/portal/webhooks')
    assert.ok(await page.getByText('No endpoints yet.').isVisible())
    assert.deepEqual((await h.api(credentials, 'GET', '/webhook-endpoints')).body.endpoints, [])
  })
})
