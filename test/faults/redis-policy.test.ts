import assert from 'node:assert/strict'
import { test } from 'node:test'
import { RedisCounterStore } from '../../src/platform/redis-counters.ts'
import { ResilientCounterStore } from '../../src/platform/resilient-counters.ts'
import { TIMEOUTS } from '../../src/platform/timeouts.ts'
import { redisReachable, TEST_REDIS_URL } from '../helpers/create-budget.ts'
import { startTcpProxy } from '../helpers/tcp-proxy.ts'

/** The Redis policy of platform/resilient-counters.ts against a real Redis behind a proxy that stalls (store-independent). */
const skip = (await redisReachable()) ? false : `no Redis at ${TEST_REDIS_URL}`

async function resilientViaProxy() {
  const url = new URL(TEST_REDIS_URL)
  const proxy = await startTcpProxy(url.hostname, Number(url.port || 6379))
  url.hostname = '127.0.0.1'
  url.port = String(proxy.port)
  const logged: string[] = []
  const log = { warn: (_o: object, msg: string) => logged.push(`warn ${msg}`), info: (_o: object, msg: string) => logged.push(`info ${msg}`) }
  const redis = new RedisCounterStore(url.toString())
  // Connected before the test stalls anything (as the service waits at start-up).
  assert.ok(await redis.waitReady(2_000))
  const counters = new ResilientCounterStore(redis, log)
  assert.equal(await counters.probe(), 'up')
  return { proxy, counters, logged, close: async () => (await counters.close(), await proxy.close()) }
}

const unique = () => `policy-test:${process.pid}:${Math.random().toString(36).slice(2)}`

test('a stalled Redis costs at most one command timeout per circuit period, and the fallback is logged once per outage', { skip, timeout: 30_000 }, async () => {
  const { proxy, counters, logged, close } = await resilientViaProxy()
  try {
    const key = unique()
    proxy.stall()
    const started = performance.now()
    const counts: number[] = []
    for (let i = 0; i < 200; i++) counts.push((await counters.increment(key, 0, 60_000)).current)
    const elapsed = performance.now() - started
    // The first call waits out the command timeout; the other 199 go to the local counters at once.
    assert.ok(elapsed < TIMEOUTS.redis.commandMs * 2 + 200, `200 calls took ${Math.round(elapsed)} ms`)
    assert.deepEqual(counts.slice(0, 3), [1, 2, 3], 'counted locally, per instance')
    assert.equal(counters.redisState(), 'down')
    // After the circuit period one call probes (and waits), the rest stay local.
    await new Promise((r) => setTimeout(r, TIMEOUTS.redis.circuitOpenMs + 50))
    const probeStarted = performance.now()
    await Promise.all(Array.from({ length: 50 }, () => counters.increment(key, 0, 60_000)))
    assert.ok(performance.now() - probeStarted < TIMEOUTS.redis.commandMs * 2 + 200)
    assert.equal(logged.filter((l) => l.startsWith('warn')).length, 1, 'one warning for the whole outage')

    proxy.resume()
    await new Promise((r) => setTimeout(r, TIMEOUTS.redis.circuitOpenMs + 50))
    assert.equal(await counters.probe(), 'up')
    assert.equal(counters.redisState(), 'up')
    assert.equal(logged.filter((l) => l.startsWith('info')).length, 1, 'the recovery is logged')
  } finally {
    await close()
  }
})

test('the lockout never vanishes: a lock set while Redis is down holds locally, and still holds after Redis returns', { skip, timeout: 30_000 }, async () => {
  const { proxy, counters, close } = await resilientViaProxy()
  try {
    const shared = unique()
    const local = unique()
    // A shared lock set while Redis is up is read through Redis.
    await counters.lock(shared, 5_000_000, 60_000)
    proxy.stall()
    // During the outage failures count locally and a lock is set locally.
    for (let i = 1; i <= 10; i++) assert.equal(await counters.logEvent(`${local}:failures`, 1_000_000 + i, 600_000), i)
    await counters.lock(local, 2_000_000, 60_000)
    assert.equal(await counters.lockedUntil(local), 2_000_000, 'the local lock holds during the outage')

    proxy.resume()
    await new Promise((r) => setTimeout(r, TIMEOUTS.redis.circuitOpenMs + 50))
    assert.equal(await counters.probe(), 'up')
    assert.equal(await counters.lockedUntil(local), 2_000_000, 'the lock set during the outage still holds after Redis returns')
    assert.equal(await counters.lockedUntil(shared), 5_000_000, 'the shared lock is read from Redis again')
    // An operator lifting the lock lifts both.
    await counters.unlock(local)
    await counters.unlock(shared)
    assert.equal(await counters.lockedUntil(local), null)
    assert.equal(await counters.lockedUntil(shared), null)
  } finally {
    await close()
  }
})
