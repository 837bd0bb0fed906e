import assert from 'node:assert/strict'
import { test } from 'node:test'
import { redisReachable, TEST_REDIS_URL } from '../helpers/create-budget.ts'
import { startTcpProxy } from '../helpers/tcp-proxy.ts'
import { TIMEOUTS } from '../../src/platform/timeouts.ts'
import { accountWithCampaign, childStore, startChild, timedCall, type Timed } from '../helpers/child-service.ts'

const checksOf = (r: Timed) => (r.body as { checks?: { store: string; redis: string } }).checks

test(
  'Redis stalled: /v1 and /serve answer fast on local limits, /readyz stays 200 with redis degraded, then reads up again',
  { skip: (await redisReachable()) ? false : `no Redis at ${TEST_REDIS_URL}`, timeout: 120_000 },
  async () => {
    const redisUrl = new URL(TEST_REDIS_URL)
    const proxy = await startTcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379))
    const viaProxy = new URL(TEST_REDIS_URL)
    viaProxy.hostname = '127.0.0.1'
    viaProxy.port = String(proxy.port)
    const { env, cleanup } = await childStore('adapi-redisstall')
    const svc = await startChild({ ...env, REDIS_URL: viaProxy.toString() })
    try {
      const { base } = svc
      const { auth } = await accountWithCampaign(base, 'redisstall@example.dev')
      const before = await timedCall(base, 'GET', '/readyz')
      assert.equal(before.status, 200)
      assert.deepEqual(checksOf(before), { store: 'up', redis: 'up' })

      proxy.stall()
      const times: number[] = []
      for (let i = 0; i < 15; i++) {
        const account = await timedCall(base, 'GET', '/v1/account', undefined, auth)
        assert.equal(account.status, 200, `GET /v1/account with Redis stalled: ${account.status} ${JSON.stringify(account.body)}`)
        assert.match(account.headers.get('ratelimit') ?? '', /r=\d+/, 'the local limiter still reports the account budget')
        const decision = await timedCall(base, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id: `redisstall-${i}` })
        assert.ok([200, 204].includes(decision.status), `decision with Redis stalled: ${decision.status}`)
        times.push(account.ms, decision.ms)
      }
      const slowest = Math.max(...times)
      // At worst one command timeout (the call that finds Redis stalled, or a probe), plus the request itself.
      const bound = TIMEOUTS.redis.commandMs + 1_000
      assert.ok(slowest < bound, `slowest answer ${Math.round(slowest)} ms (< ${bound} ms)`)
      // The circuit spares most requests the command timeout: only the call that finds Redis stalled
      // and one probe per open circuit wait for it. Counted against the service's own bound, not a
      // wall-clock figure that a busy machine can miss.
      const waited = times.filter((ms) => ms >= TIMEOUTS.redis.commandMs)
      assert.ok(waited.length < times.length / 2, `${waited.length} of ${times.length} answers waited a command timeout (${TIMEOUTS.redis.commandMs} ms): the circuit should spare most`)
      const degraded = await timedCall(base, 'GET', '/readyz')
      assert.equal(degraded.status, 200, 'Redis down does not make the instance unready')
      assert.deepEqual(checksOf(degraded), { store: 'up', redis: 'degraded' })
      assert.match(svc.output(), /Redis unavailable/, 'the fallback is logged')
      assert.equal(svc.output().match(/Redis unavailable/g)?.length, 1, 'once per outage')

      proxy.resume()
      let after: Timed | undefined
      for (let i = 0; i < 40; i++) {
        after = await timedCall(base, 'GET', '/readyz')
        if (checksOf(after)?.redis === 'up') break
        await new Promise((r) => setTimeout(r, 250))
      }
      assert.equal(after?.status, 200)
      assert.deepEqual(checksOf(after!), { store: 'up', redis: 'up' }, 'Redis reads up again without a restart')
      assert.equal((await timedCall(base, 'GET', '/v1/account', undefined, auth)).status, 200)
    } finally {
      await svc.kill()
      await proxy.close()
      await cleanup()
    }
  },
)
