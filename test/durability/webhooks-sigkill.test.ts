import assert from 'node:assert/strict'
import { test } from 'node:test'
import { adminHeaders, call as json, childStore, freePort, spawnService, waitHealthy, type Child } from '../helpers/child-service.ts'
import { WebhookReceiver } from '../helpers/webhook-receiver.ts'

// At-least-once webhooks: the service is killed (SIGKILL) while the receiver holds a delivery open;
// after a restart on the same store the message is delivered again, with the same webhook-id.

test('a delivery in flight when the service is killed is sent again after the restart, with the same id', { timeout: 180_000 }, async () => {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const { env, cleanup } = await childStore('adapi-hook')
  env.PORT = String(port)
  env.WEBHOOKS_ALLOW_LOOPBACK = 'true'

  const receiver = await WebhookReceiver.start()
  // The first delivery is held open (the receiver never answers it); later ones are acknowledged.
  receiver.answer = (_req, res) => {
    if (receiver.received.length > 1) res.writeHead(200).end()
  }
  let child: Child = spawnService(env)
  try {
    await waitHealthy(base, child)
    const account = (await json(base, 'POST', '/admin/v1/accounts', { email: 'hook-kill@example.dev' }, adminHeaders)).body
    const auth = { 'x-service-user-id': account.user_id, 'x-service-api-key': account.api_key }
    const endpoint = await json(base, 'POST', '/v1/webhook-endpoints', { url: receiver.url, events: ['export.ready'] }, auth)
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body))
    receiver.secret = endpoint.body.secret
    const queued = await json(base, 'POST', '/v1/exports', { start: '2026-11-01T00:00:00Z', end: '2026-11-02T00:00:00Z' }, auth)
    assert.equal(queued.status, 202)

    const [held] = await receiver.waitFor(1, 'export.ready', 60_000)
    child.process.kill('SIGKILL')
    await child.exit

    child = spawnService(env)
    await waitHealthy(base, child)
    // The dead sender's claim lapses (15 s of real time), then the message is sent again.
    const [, again] = await receiver.waitFor(2, 'export.ready', 60_000)
    assert.equal(again!.id, held!.id, 'the same webhook-id')
    assert.equal(again!.body, held!.body, 'the same body')
    assert.ok(held!.verified && again!.verified)
    assert.equal(again!.json.data.export_id, queued.body.id)

    const log = await (async () => {
      for (let i = 0; i < 50; i++) {
        const r = await json(base, 'GET', `/v1/webhook-endpoints/${endpoint.body.id}`, undefined, auth)
        if (r.body.deliveries[0]?.status === 'delivered') return r.body
        await new Promise((r) => setTimeout(r, 100))
      }
      throw new Error('not marked delivered')
    })()
    assert.equal(log.deliveries.length, 1, 'one message')
    assert.equal(log.deliveries[0].id, held!.id)
    assert.deepEqual(
      log.attempts.map((a: { status_code: number | null; succeeded: boolean }) => [a.status_code, a.succeeded]),
      [[200, true]],
      'the killed attempt left no record; the one after the restart is logged',
    )
    await new Promise((r) => setTimeout(r, 1500))
    assert.equal(receiver.received.length, 2, 'not sent again once delivered')
    child.process.kill('SIGTERM')
    await child.exit
  } finally {
    if (child.process.exitCode === null && child.process.signalCode === null) {
      child.process.kill('SIGKILL')
      await child.exit
    }
    await receiver.close()
    await cleanup()
  }
})
