import assert from 'node:assert/strict'
import { test } from 'node:test'
import { useService } from '../helpers/api.ts'
import { SERVICE_CONNECTIONS } from '../helpers/service.ts'

/**
 * The harness's own client: a burst of requests from a test reaches the service over at most
 * SERVICE_CONNECTIONS connections (test/helpers/service.ts#fetchService says why: one connection per
 * request left answers unread long enough for keep-alive connections to be reused as the server
 * closed them, ECONNRESET under load).
 */
const h = useService()

test('a burst of 300 requests through the test client opens at most SERVICE_CONNECTIONS connections, all answered', async () => {
  const server = h.svc.service.app.server
  let open = 0
  let most = 0
  let opened = 0
  const onConnection = (socket: { once(event: 'close', listener: () => void): unknown }) => {
    opened++
    most = Math.max(most, ++open)
    socket.once('close', () => open--)
  }
  server.on('connection', onConnection)
  try {
    const statuses = await Promise.all(Array.from({ length: 300 }, () => h.anonymous.get('/healthz')))
    assert.deepEqual([...new Set(statuses.map((r) => r.status))], [200])
  } finally {
    server.off('connection', onConnection)
  }
  assert.ok(opened > 0, 'the burst reached the service over new connections')
  assert.ok(most <= SERVICE_CONNECTIONS, `${most} connections open at once`)
})
