import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { MinuteCounter, type MinuteCount } from '../../src/serving/minute-counter.ts'

/**
 * The one flush-and-put-back loop of the offer and topic counters (src/serving/minute-counter.ts),
 * against a store stand-in that records each flush's rows and fails when told to. The counters
 * themselves are covered against the real store by test/api/offer-counts.test.ts and
 * test/api/topics.test.ts.
 */
class Counter extends MinuteCounter<{ label: string }> {
  count(atMs: number, id: string, label: string): void {
    this.add(atMs, id, { label })
  }
}

function counter(opts: { fail?: () => boolean; everyMs?: number } = {}) {
  const written: MinuteCount<{ label: string }>[][] = []
  const warnings: string[] = []
  const calls = { started: 0 }
  /** Writes wait for this (`hold` makes one that the caller opens). */
  let gate: Promise<void> = Promise.resolve()
  const c = new Counter(
    'test counts',
    async (counts) => {
      calls.started++
      if (opts.fail?.()) throw new Error('store down')
      await gate
      written.push(counts)
    },
    { warn: (_obj: unknown, msg?: string) => void warnings.push(msg ?? '') },
    opts.everyMs,
  )
  const hold = (): (() => void) => {
    let open = () => {}
    gate = new Promise<void>((resolve) => (open = resolve))
    return open
  }
  return { c, written, warnings, hold, calls }
}

const MIN = 60_000
const rows = (batch: MinuteCount<{ label: string }>[] | undefined) =>
  (batch ?? []).map((r) => `${r.minuteMs / MIN}:${r.id}=${r.count}(${r.key.label})`).sort()

test('counts per UTC minute and id, the key of the first count kept; one row each per flush, then nothing pending', async () => {
  const { c, written } = counter()
  c.count(5 * MIN + 10, 'a', 'first')
  c.count(5 * MIN + 59_999, 'a', 'second')
  c.count(6 * MIN, 'a', 'third')
  c.count(5 * MIN + 1, 'b', 'b')
  c.count(5 * MIN + 2, 'a', 'fourth')
  assert.equal(c.pendingKeys, 3)
  await c.flush()
  assert.deepEqual(rows(written[0]), ['5:a=3(first)', '5:b=1(b)', '6:a=1(third)'])
  assert.equal(c.pendingKeys, 0)
  await c.flush()
  assert.equal(written.length, 1, 'nothing counted, nothing written')
  await c.close()
})

test('a failed flush puts its counts back, added to those counted meanwhile, and they go with the next one', async () => {
  let failing = true
  const { c, written } = counter({ fail: () => failing })
  c.count(MIN, 'a', 'kept')
  c.count(MIN, 'a', 'kept')
  c.count(2 * MIN, 'b', 'b')
  await assert.rejects(c.flush(), /store down/)
  assert.equal(c.pendingKeys, 2)
  c.count(MIN, 'a', 'later')
  c.count(3 * MIN, 'c', 'c')
  failing = false
  await c.flush()
  assert.deepEqual(rows(written[0]), ['1:a=3(kept)', '2:b=1(b)', '3:c=1(c)'])
  await c.close()
})

test('flushes run one at a time: a flush called during another waits for it, then writes what came since', async () => {
  const { c, written, hold, calls } = counter()
  const open = hold()
  c.count(MIN, 'a', 'a')
  const first = c.flush()
  c.count(MIN, 'a', 'a')
  const second = c.flush()
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal(written.length, 0, 'the first flush is still writing')
  assert.equal(calls.started, 1, 'the second has not started to write')
  open()
  await Promise.all([first, second])
  assert.deepEqual(written.map(rows), [['1:a=1(a)'], ['1:a=1(a)']])
  await c.close()
})

test('the timer flushes every period; a failure is logged by name and kept; close writes the rest and stops the timer', async () => {
  const everyMs = 25
  let failing = true
  const { c, written, warnings, calls } = counter({ fail: () => failing, everyMs })
  c.count(MIN, 'a', 'a')
  await sleep(everyMs * 3)
  assert.ok(calls.started >= 1, 'a timed flush ran')
  assert.deepEqual([...new Set(warnings)], ['test counts flush failed; they go with the next one'])
  failing = false
  await sleep(everyMs * 3)
  assert.deepEqual(written.map(rows), [['1:a=1(a)']])
  c.count(MIN, 'b', 'b')
  await c.close()
  assert.deepEqual(written.map(rows), [['1:a=1(a)'], ['1:b=1(b)']])
  c.count(MIN, 'c', 'c')
  await sleep(everyMs * 3)
  assert.equal(written.length, 2, 'no timed flush after close')
})
