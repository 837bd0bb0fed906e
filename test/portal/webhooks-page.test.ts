import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { useService } from '../helpers/api.ts'
import { labels } from '../helpers/html.ts'
import { portalAdvertiser } from '../helpers/portal.ts'
import { WebhookReceiver } from '../helpers/webhook-receiver.ts'

// /portal/webhooks: the same use cases as /v1/webhook-endpoints, through forms.
const h = useService({ WEBHOOKS_ALLOW_LOOPBACK: 'true' }, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000 })

const receivers: WebhookReceiver[] = []
after(async () => {
  for (const r of receivers) await r.close()
})

test('add an endpoint: the secret is shown once, the list and the API agree, delete removes it', async () => {
  const adv = await portalAdvertiser(h)
  const receiver = await WebhookReceiver.start()
  receivers.push(receiver)
  const page = await adv.browser.get('/portal/webhooks')
  assert.equal(page.status, 200)
  assert.match(page.text, /<a href="\/portal\/webhooks" aria-current="page">Webhooks<\/a>/)
  assert.ok(labels(page.text).includes('Endpoint URL'))
  assert.ok(labels(page.text).some((l) => l.startsWith('export.ready')))
  for (const event of ['campaign.exhausted', 'campaign.moderation_decided', 'invoice.finalized', 'invoice.payment_failed', 'export.ready']) {
    assert.match(page.text, new RegExp(`name="event_${event.replace('.', '\\.')}" value="on" checked`), `${event} is ticked on a fresh form`)
  }

  const added = await adv.browser.post('/portal/webhooks', { url: receiver.url, 'event_export.ready': 'on', 'event_campaign.exhausted': 'on' })
  assert.equal(added.status, 201, added.words.slice(0, 500))
  const secret = added.byId('webhook-secret')?.trim() ?? ''
  assert.match(secret, /^whsec_/)
  assert.match(added.words, /Copy it now/)
  const [endpoint] = (await adv.api.get('/v1/webhook-endpoints')).body.endpoints
  assert.deepEqual([endpoint.url, endpoint.events], [receiver.url, ['campaign.exhausted', 'export.ready']])

  const again = await adv.browser.get('/portal/webhooks')
  assert.ok(again.words.includes(receiver.url))
  assert.ok(!again.text.includes(secret), 'the secret is not shown again')

  // A delivery shows in the log, with a Resend button.
  receiver.secret = secret
  assert.equal((await adv.api.post('/v1/exports', { start: '2026-11-01T00:00:00Z', end: '2026-11-02T00:00:00Z' })).status, 202)
  const [got] = await receiver.waitFor(1)
  assert.ok(got!.verified)
  let log = await adv.browser.get(`/portal/webhooks/${endpoint.id}`)
  for (let i = 0; i < 50 && !log.words.includes('Delivered (HTTP 200)'); i++) {
    await new Promise((r) => setTimeout(r, 100))
    log = await adv.browser.get(`/portal/webhooks/${endpoint.id}`)
  }
  assert.ok(log.words.includes('Delivered (HTTP 200)'), log.words.slice(0, 800))
  assert.ok(log.words.includes(got!.id))
  assert.ok(log.buttons.includes('Resend'))
  const resent = await adv.browser.post(`/portal/webhooks/${endpoint.id}/deliveries/${got!.id}/resend`, {}, log)
  assert.equal(resent.status, 303)
  assert.equal(resent.location, `/portal/webhooks/${endpoint.id}?notice=webhook_resent`)
  const [, second] = await receiver.waitFor(2)
  assert.equal(second!.id, got!.id)

  // "Send test event": a signed webhook.test message to this endpoint, whatever it subscribes to, in its log.
  assert.ok(log.buttons.includes('Send test event'))
  const tested = await adv.browser.post(`/portal/webhooks/${endpoint.id}/test`, {}, log)
  assert.deepEqual([tested.status, tested.location], [303, `/portal/webhooks/${endpoint.id}?notice=webhook_test_sent`])
  const [test] = await receiver.waitFor(1, 'webhook.test')
  assert.ok(test!.verified, 'the test message is signed with the endpoint\'s secret')
  assert.equal(test!.json.data.endpoint_id, endpoint.id)
  const apiLog = (await adv.api.get(`/v1/webhook-endpoints/${endpoint.id}`)).body
  assert.ok(apiLog.deliveries.some((d: { id: string; event_type: string }) => d.id === test!.id && d.event_type === 'webhook.test'), 'the API log lists it')
  assert.match((await adv.browser.get(tested.location!)).words, /Test event queued/)

  // Another account's endpoint is the pages' 404.
  const other = await portalAdvertiser(h)
  assert.equal((await other.browser.get(`/portal/webhooks/${endpoint.id}`)).status, 404)
  assert.equal((await other.browser.post(`/portal/webhooks/${endpoint.id}/delete`, {}, await other.browser.get('/portal/webhooks'))).status, 404)
  assert.equal((await other.browser.post(`/portal/webhooks/${endpoint.id}/test`, {}, await other.browser.get('/portal/webhooks'))).status, 404)

  const deleted = await adv.browser.post(`/portal/webhooks/${endpoint.id}/delete`, {}, again)
  assert.deepEqual([deleted.status, deleted.location], [303, '/portal/webhooks?notice=webhook_deleted'])
  assert.deepEqual((await adv.api.get('/v1/webhook-endpoints')).body.endpoints, [])
})

test('a refused endpoint is shown at its field with what was typed; forms need the CSRF token', async () => {
  const adv = await portalAdvertiser(h)
  await adv.browser.get('/portal/webhooks')
  const insecure = await adv.browser.post('/portal/webhooks', { url: 'http://hooks.example.com/x', 'event_invoice.finalized': 'on' })
  assert.equal(insecure.status, 400)
  assert.match(insecure.fieldError('url') ?? '', /https/)
  assert.match(insecure.text, /value="http:\/\/hooks.example.com\/x"/)
  assert.match(insecure.text, /name="event_invoice.finalized" value="on" checked/)
  // Every field's error at once: no event and a private host.
  const none = await adv.browser.post('/portal/webhooks', { url: 'https://10.0.0.1/x' })
  assert.equal(none.status, 400)
  assert.match(none.words, /Choose at least one event/)
  assert.match(none.fieldError('url') ?? '', /private/)
  const privateHost = await adv.browser.post('/portal/webhooks', { url: 'https://10.0.0.1/x', 'event_export.ready': 'on' })
  assert.match(privateHost.fieldError('url') ?? '', /private/)
  const forged = await adv.browser.post('/portal/webhooks', { url: 'https://example.com/x', 'event_export.ready': 'on' }, null)
  assert.equal(forged.status, 403)
  assert.deepEqual((await adv.api.get('/v1/webhook-endpoints')).body.endpoints, [])
})
