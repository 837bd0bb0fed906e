import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MemoryCounterStore } from '../../src/platform/counters.ts'

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
