/**
 * `verifyWebhook` on a message the service really sent (an `export.ready` to a receiver), on the
 * system clock so the message's timestamp is within Standard Webhooks' five-minute tolerance.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { useService } from '../../../test/helpers/api.ts'
import { WebhookReceiver } from '../../../test/helpers/webhook-receiver.ts'
import { AdvertiserClient, verifyWebhook, WebhookVerificationError } from '../src/index.ts'

const h = useService({ CLOCK: 'system', WEBHOOKS_ALLOW_LOOPBACK: 'true' }, { read_rate_limit_per_min: 100_000 })
let receiver: WebhookReceiver | undefined
after(async () => receiver?.close())

test('a delivered message verifies with the endpoint secret; a changed body, another secret or an old timestamp do not', async () => {
  receiver = await WebhookReceiver.start()
  const adv = await h.advertiser()
  const client = new AdvertiserClient({ baseUrl: h.baseUrl, userId: adv.userId, apiKey: adv.apiKey })
  const endpoint = await client.webhooks.create({ url: receiver.url, events: ['export.ready'] })
  receiver.secret = endpoint.secret
  assert.deepEqual((await client.webhooks.list()).map((e) => e.id), [endpoint.id])

  const end = new Date()
  await client.exports.create({ from: new Date(end.getTime() - 3_600_000).toISOString(), to: end.toISOString() })
  const [message] = await receiver.waitFor(1, 'export.ready')
  assert.ok(message)
  const headers = { 'webhook-id': message.id, 'webhook-timestamp': String(message.timestamp), 'webhook-signature': message.signature }

  const event = verifyWebhook(endpoint.secret, headers, message.body)
  assert.deepEqual(event, JSON.parse(message.body))
  assert.deepEqual(verifyWebhook(endpoint.secret, new Headers(headers), new TextEncoder().encode(message.body)), event)

  const refused = (fn: () => unknown) => assert.throws(fn, WebhookVerificationError)
  refused(() => verifyWebhook(endpoint.secret, headers, message.body.replace('export.ready', 'export.readz')))
  refused(() => verifyWebhook('whsec_' + Buffer.alloc(32, 7).toString('base64'), headers, message.body))
  refused(() => verifyWebhook(endpoint.secret, { ...headers, 'webhook-timestamp': String(message.timestamp - 600) }, message.body))
  refused(() => verifyWebhook(endpoint.secret, { 'webhook-id': message.id, 'webhook-timestamp': String(message.timestamp) }, message.body))

  await client.webhooks.remove(endpoint.id)
  assert.deepEqual(await client.webhooks.list(), [])
})
