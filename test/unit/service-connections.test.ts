import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { test } from 'node:test'
import { fetchService, SERVICE_CONNECTIONS } from '../helpers/service.ts'

/**
 * The harness's client (`fetchService`, under the Client of test/helpers/api.ts and the portal's): a
 * burst of requests reaches a server over at most SERVICE_CONNECTIONS connections.
 * test/helpers/service.ts says why: one connection per request left answers unread long enough for
 * keep-alive connections to be reused as the server closed them (ECONNRESET under load).
 */
test('a burst of 300 requests through the test client opens at most SERVICE_CONNECTIONS connections, every one answered', async () => {
  const server = createServer((_req, res) => setTimeout(() => res.end('ok'), 1))
  let open = 0
  let most = 0
  server.on('connection', (socket) => {
    most = Math.max(most, ++open)
    socket.once('close', () => open--)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    const address = server.address()
    assert.ok(address !== null && typeof address !== 'string')
    const base = `http://127.0.0.1:${address.port}`
    const answers = await Promise.all(Array.from({ length: 300 }, async () => (await fetchService(`${base}/`)).text()))
    assert.deepEqual([...new Set(answers)], ['ok'])
    assert.ok(most > 1, 'the burst ran over several connections at once')
    assert.ok(most <= SERVICE_CONNECTIONS, `${most} connections open at once`)
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})
