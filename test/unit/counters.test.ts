import assert from 'node:assert/strict'
import { test } from 'node:test'
import { randomBytes } from 'node:crypto'
import { BoundedCounts } from '../../src/platform/bounded-counts.ts'
import type { CounterStore } from '../../src/platform/counters.ts'
import { MemoryCounterStore } from '../../src/platform/memory-counters.ts'
import { RedisCounterStore } from '../../src/platform/redis-counters.ts'
import { redisReachable, TEST_REDIS_URL } from '../helpers/create-budget.ts'

const MINUTE = 60_000

test('memory counters: a window counts per key and remembers only the window just before it', async () => {
  const c = new MemoryCounterStore()
  assert.deepEqual(await c.increment('a', 0, MINUTE), { current: 1, previous: 0 })
  assert.deepEqual(await c.increment('a', 0, MINUTE), { current: 2, previous: 0 })
  assert.deepEqual(await c.increment('b', 0, MINUTE), { current: 1, previous: 0 })
  // The next window starts from zero and sees the one before it.
  assert.deepEqual(await c.increment('a', MINUTE, MINUTE), { current: 1, previous: 2 })
  assert.deepEqual(await c.increment('b', MINUTE, MINUTE), { current: 1, previous: 1 })
  assert.deepEqual(await c.increment('c', MINUTE, MINUTE), { current: 1, previous: 0 })
  // A caller still in the window just before counts there; anything older is not remembered.
  assert.deepEqual(await c.increment('a', 0, MINUTE), { current: 3, previous: 0 })
  assert.deepEqual(await c.increment('a', -MINUTE, MINUTE), { current: 1, previous: 0 })
  assert.deepEqual(await c.increment('a', 2 * MINUTE, MINUTE), { current: 1, previous: 1 })
  // After a gap of more than one window, nothing from before the gap is left.
  assert.deepEqual(await c.increment('a', 5 * MINUTE, MINUTE), { current: 1, previous: 0 })
  assert.deepEqual(await c.increment('b', 5 * MINUTE, MINUTE), { current: 1, previous: 0 })
})

test('memory counters: windows of different lengths are kept apart', async () => {
  const c = new MemoryCounterStore()
  await c.increment('k', 0, MINUTE)
  await c.increment('k', 0, MINUTE)
  assert.deepEqual(await c.increment('k', 0, 1_000), { current: 1, previous: 0 })
  assert.deepEqual(await c.increment('k', 1_000, 1_000), { current: 1, previous: 1 })
  assert.deepEqual(await c.increment('k', 0, MINUTE), { current: 3, previous: 0 })
})

async function peekAndRefund(c: CounterStore, key: string, start: number): Promise<void> {
  assert.equal(await c.peek(key, start, MINUTE), 0)
  await c.increment(key, start, MINUTE)
  await c.increment(key, start, MINUTE)
  assert.equal(await c.peek(key, start, MINUTE), 2, 'peeking does not count')
  await c.decrement(key, start, MINUTE)
  assert.equal(await c.peek(key, start, MINUTE), 1)
  assert.deepEqual(await c.increment(key, start, MINUTE), { current: 2, previous: 0 }, 'a refunded unit can be spent again')
  await c.decrement(key, start, MINUTE)
  await c.decrement(key, start, MINUTE)
  await c.decrement(key, start, MINUTE)
  assert.equal(await c.peek(key, start, MINUTE), 0, 'never below zero')
  assert.deepEqual(await c.increment(key, start, MINUTE), { current: 1, previous: 0 })
}

test('memory counters: peek reads a window without counting; decrement refunds one, never below zero', async () => {
  const c = new MemoryCounterStore()
  await peekAndRefund(c, 'k', 0)
  // A refund for the window just before still lands there; older windows are gone.
  await c.increment('k', MINUTE, MINUTE)
  await c.decrement('k', 0, MINUTE)
  assert.equal(await c.peek('k', 0, MINUTE), 0)
  await c.decrement('k', -MINUTE, MINUTE)
  assert.equal(await c.peek('k', MINUTE, MINUTE), 1)
})

const redisSkip = (await redisReachable()) ? false : `no Redis at ${TEST_REDIS_URL}`

test('Redis counters: peek reads a window without counting; decrement refunds one, never below zero', { skip: redisSkip }, async () => {
  const c: CounterStore = new RedisCounterStore(TEST_REDIS_URL)
  // Commands fail fast until the connection is up (no offline queue): wait for it.
  for (let i = 0; i < 100 && !(await c.peek('probe', 0, MINUTE).then(() => true, () => false)); i++) await new Promise((r) => setTimeout(r, 20))
  try {
    await peekAndRefund(c, `unit-${process.pid}-${randomBytes(4).toString('hex')}`, 0)
  } finally {
    await c.close()
  }
})

/** A lockout as the sign-in paths keep it: a sliding log of failures and a lock, both under their keys. */
async function lockAndUnlock(c: CounterStore, id: string): Promise<void> {
  const [log, lock] = [`fail:${id}`, `lock:${id}`]
  for (let i = 0; i < 3; i++) await c.logEvent(log, 1_000 + i, 15 * MINUTE)
  await c.lock(lock, 1_000 + 15 * MINUTE, 15 * MINUTE)
  assert.equal(await c.lockedUntil(lock), 1_000 + 15 * MINUTE)
  await c.unlock(lock)
  await c.unlock(log)
  assert.equal(await c.lockedUntil(lock), null, 'the lock is gone')
  assert.equal(await c.logEvent(log, 2_000, 15 * MINUTE), 1, 'the failures before the unlock no longer count')
  await c.unlock(`never-locked:${id}`)
}

test('memory counters: unlock forgets a lock and its failure log', async () => {
  await lockAndUnlock(new MemoryCounterStore(), 'a')
})

test('Redis counters: unlock forgets a lock and its failure log', { skip: redisSkip }, async () => {
  const c: CounterStore = new RedisCounterStore(TEST_REDIS_URL)
  for (let i = 0; i < 100 && !(await c.peek('probe', 0, MINUTE).then(() => true, () => false)); i++) await new Promise((r) => setTimeout(r, 20))
  try {
    await lockAndUnlock(c, `unit-${process.pid}-${randomBytes(4).toString('hex')}`)
  } finally {
    await c.close()
  }
})

/** The atomic attempt log: pending attempts hold places, successes give them back, failures keep them and lock at the threshold. */
async function attempts(c: CounterStore, id: string): Promise<void> {
  const [log, lock] = [`fail:${id}`, `lock:${id}`]
  const reserve = (nowMs: number) => c.reserveAttempt(log, lock, nowMs, 15 * MINUTE, 3, 15 * MINUTE)
  const taken = await Promise.all([reserve(1_000), reserve(1_000), reserve(1_000), reserve(1_000), reserve(1_000)])
  const members = taken.flatMap((r) => (r.admitted ? [r.member] : []))
  assert.equal(members.length, 3, 'at most the threshold are admitted at once')
  assert.deepEqual(taken.filter((r) => !r.admitted), [{ admitted: false, lockedUntilMs: null }, { admitted: false, lockedUntilMs: null }], 'busy, not locked')
  // A success gives its place back: another attempt is admitted.
  await c.releaseAttempt(log, members[0]!)
  const next = await reserve(2_000)
  assert.ok(next.admitted)
  // Three failures: the third reaches the threshold and locks.
  assert.equal(await c.confirmFailure(log, lock, members[1]!, 3_000, 15 * MINUTE, 3, 15 * MINUTE), null)
  assert.equal(await c.confirmFailure(log, lock, members[2]!, 3_000, 15 * MINUTE, 3, 15 * MINUTE), null)
  assert.equal(await c.confirmFailure(log, lock, next.member, 4_000, 15 * MINUTE, 3, 15 * MINUTE), 4_000 + 15 * MINUTE)
  assert.deepEqual(await reserve(5_000), { admitted: false, lockedUntilMs: 4_000 + 15 * MINUTE })
  assert.equal(await c.lockedUntil(lock), 4_000 + 15 * MINUTE)
  // Once the lock has passed and the failures left the window, attempts are admitted again.
  assert.ok((await reserve(4_000 + 15 * MINUTE)).admitted)
  await c.unlock(lock)
  await c.unlock(log)
  assert.ok((await reserve(6_000)).admitted, 'unlock forgets the attempts')
}

test('memory counters: attempts are reserved atomically and lock at the threshold', async () => {
  await attempts(new MemoryCounterStore(), 'a')
})

test('Redis counters: attempts are reserved atomically and lock at the threshold', { skip: redisSkip }, async () => {
  const c: CounterStore = new RedisCounterStore(TEST_REDIS_URL)
  for (let i = 0; i < 100 && !(await c.peek('probe', 0, MINUTE).then(() => true, () => false)); i++) await new Promise((r) => setTimeout(r, 20))
  try {
    await attempts(c, `unit-${process.pid}-${randomBytes(4).toString('hex')}`)
  } finally {
    await c.close()
  }
})

test('memory counters: past the exact bound, new keys are counted in a sketch that never counts low', async () => {
  const c = new MemoryCounterStore({ maxExactKeys: 100 })
  for (let i = 0; i < 100; i++) await c.increment(`exact-${i}`, 0, MINUTE)
  // 20,000 ever-new keys: memory stays at the bound; each new key's count stays small.
  let highest = 0
  for (let i = 0; i < 20_000; i++) highest = Math.max(highest, (await c.increment(`new-${i}`, 0, MINUTE)).current)
  assert.ok(highest <= 3, `a new key counts ${highest}`)
  // An abusive key first seen past the bound is still counted in full: never below its own hits.
  for (let i = 0; i < 50; i++) await c.increment('abuser', 0, MINUTE)
  const abuser = await c.peek('abuser', 0, MINUTE)
  assert.ok(abuser >= 50 && abuser <= 53, `abuser counts ${abuser}`)
  // The next window sees the sketch as the previous window; refunds keep it an upper bound.
  assert.ok((await c.increment('abuser', MINUTE, MINUTE)).previous >= 50)
  await c.decrement('abuser', 0, MINUTE)
  assert.ok((await c.peek('abuser', 0, MINUTE)) >= 49)
  // Keys counted exactly before the bound stay exact.
  assert.equal(await c.peek('exact-7', 0, MINUTE), 1)
  assert.equal(await c.peek('exact-7', MINUTE, MINUTE), 0)
})

test('memory counters: the exact count of a window stays at its bound', async () => {
  const counts = new BoundedCounts([1, 2], 10)
  for (let i = 0; i < 1_000; i++) counts.add(`k-${i}`)
  assert.equal(counts.exactKeys, 10)
  assert.equal(counts.get('k-3'), 1)
  assert.ok(counts.get('k-999') >= 1)
  counts.remove('k-3')
  assert.equal(counts.get('k-3'), 0)
})

test('memory counters: logs and attempt logs keep at most their bound, forgetting the least recently used', async () => {
  const c = new MemoryCounterStore({ maxTrackedKeys: 3 })
  await c.logEvent('a', 0, MINUTE)
  await c.logEvent('b', 1, MINUTE)
  await c.logEvent('c', 2, MINUTE)
  await c.logEvent('a', 3, MINUTE) // a is now the most recently used
  await c.logEvent('d', 4, MINUTE) // b goes
  assert.equal(await c.logEvent('a', 5, MINUTE), 3)
  assert.equal(await c.logEvent('b', 6, MINUTE), 1, 'b was forgotten')
  // Attempts: the key under attack stays, others make way.
  for (let i = 0; i < 3; i++) {
    const r = await c.reserveAttempt('target', 'lock:target', 10 + i, MINUTE, 3, MINUTE)
    assert.ok(r.admitted)
    await c.confirmFailure('target', 'lock:target', r.member, 10 + i, MINUTE, 3, MINUTE)
    await c.reserveAttempt(`spray-${i}`, `lock:spray-${i}`, 10 + i, MINUTE, 3, MINUTE)
  }
  assert.equal(await c.lockedUntil('lock:target'), 12 + MINUTE)
})

test('memory counters: locks keep at most their bound; the one ending soonest makes way', async () => {
  const c: CounterStore = new MemoryCounterStore({ maxTrackedKeys: 2 })
  await c.lock('long', 10 * MINUTE, 10 * MINUTE)
  await c.lock('short', MINUTE, MINUTE)
  await c.lock('new', 5 * MINUTE, 5 * MINUTE)
  assert.equal(await c.lockedUntil('long'), 10 * MINUTE)
  assert.equal(await c.lockedUntil('new'), 5 * MINUTE)
  assert.equal(await c.lockedUntil('short'), null)
})
