import assert from 'node:assert/strict'
import { test } from 'node:test'
import pino from 'pino'
import { ManualClock } from '../../src/platform/clock.ts'
import { Scheduler, type Job, type ScheduleState } from '../../src/jobs/scheduler.ts'

const HOUR = 3_600_000
const silent = pino({ level: 'silent' })

/** A store's watermarks and job locks in memory; several schedulers may share one, like instances sharing a database. */
function memoryState(initial: Record<string, string> = {}): ScheduleState {
  const marks = new Map(Object.entries(initial).map(([job, at]) => [job, new Date(at)]))
  const locks = new Map<string, Promise<unknown>>()
  return {
    async watermarks(jobs, now) {
      for (const job of jobs) if (!marks.has(job)) marks.set(job, now)
      return new Map(jobs.map((j) => [j, marks.get(j)!]))
    },
    watermark: async (job) => marks.get(job) ?? null,
    async advance(job, to) {
      const mark = marks.get(job)
      if (!mark || mark < to) marks.set(job, to)
    },
    async exclusive(job, wait, work) {
      while (locks.has(job)) {
        if (!wait) return null
        await locks.get(job)
      }
      const run = work()
      const released = run.then(
        () => locks.delete(job),
        () => locks.delete(job),
      )
      locks.set(job, released)
      return { value: await run }
    },
  }
}

function hourlyJob(name: string, runs: string[], catchUp: Job['catchUp'] = 'latest'): Job {
  return {
    name,
    catchUp,
    nextDue: (after) => new Date((Math.floor(after.getTime() / HOUR) + 1) * HOUR),
    run: async (now, due) => {
      // Yield, so concurrent schedulers interleave.
      await new Promise((resolve) => setImmediate(resolve))
      runs.push(`${name}@${(due ?? now).toISOString()}`)
      return {}
    },
  }
}

test('moving a manual clock runs every job that fell due, in time order, at its due time', async () => {
  const clock = new ManualClock(new Date('2026-01-01T00:30:00Z'))
  const runs: string[] = []
  const daily: Job = {
    name: 'daily',
    catchUp: 'latest',
    nextDue: (after) => new Date((Math.floor(after.getTime() / (24 * HOUR)) + 1) * 24 * HOUR),
    run: async (now) => {
      runs.push(`daily@${now.toISOString()}`)
      return {}
    },
  }
  const scheduler = new Scheduler(clock, [hourlyJob('hourly', runs), daily], memoryState(), silent)
  await scheduler.start()
  await scheduler.advanceManualClock(new Date('2026-01-02T01:15:00Z'), (to) => clock.set(to))
  assert.equal(clock.now().toISOString(), '2026-01-02T01:15:00.000Z')
  assert.equal(runs.filter((r) => r.startsWith('hourly')).length, 25)
  assert.ok(runs.includes('daily@2026-01-02T00:00:00.000Z'))
  const times = runs.map((r) => r.split('@')[1]!)
  assert.deepEqual(times, [...times].sort(), 'time order')
})

test('a fresh store starts its watermarks at the current time: nothing before it is replayed', async () => {
  const clock = new ManualClock(new Date('2026-01-01T05:30:00Z'))
  const runs: string[] = []
  const scheduler = new Scheduler(clock, [hourlyJob('each', runs, 'each')], memoryState(), silent)
  await scheduler.start()
  assert.deepEqual(runs, [])
})

test('on start, missed occurrences catch up: `each` jobs one by one in time order, `latest` jobs once', async () => {
  const clock = new ManualClock(new Date('2026-01-01T03:30:00Z'))
  const runs: string[] = []
  const state = memoryState({ each: '2026-01-01T00:10:00Z', latest: '2026-01-01T00:10:00Z' })
  const scheduler = new Scheduler(clock, [hourlyJob('each', runs, 'each'), hourlyJob('latest', runs, 'latest')], state, silent)
  await scheduler.start()
  assert.deepEqual(runs, [
    'each@2026-01-01T01:00:00.000Z',
    'latest@2026-01-01T01:00:00.000Z',
    'each@2026-01-01T02:00:00.000Z',
    'each@2026-01-01T03:00:00.000Z',
  ])
  assert.equal((await state.watermark('each'))?.toISOString(), '2026-01-01T03:00:00.000Z')
  assert.equal((await state.watermark('latest'))?.toISOString(), '2026-01-01T03:30:00.000Z', 'the one run covered the gap')
  // Caught up: a second pass, or moving the clock within the hour, runs nothing more.
  await scheduler.catchUp()
  await scheduler.advanceManualClock(new Date('2026-01-01T03:59:00Z'), (to) => clock.set(to))
  assert.equal(runs.length, 4)
})

test('a failed occurrence holds its job back (later ones wait, in order) and is retried on the next pass', async () => {
  const clock = new ManualClock(new Date('2026-01-01T00:30:00Z'))
  const runs: string[] = []
  let failing = true
  const flaky: Job = {
    ...hourlyJob('flaky', runs, 'each'),
    run: async (_now, due) => {
      if (failing && due?.toISOString() === '2026-01-01T02:00:00.000Z') throw new Error('store down')
      runs.push(`flaky@${due?.toISOString()}`)
      return {}
    },
  }
  const scheduler = new Scheduler(clock, [flaky], memoryState(), silent)
  await scheduler.start()
  await scheduler.advanceManualClock(new Date('2026-01-01T04:30:00Z'), (to) => clock.set(to))
  assert.deepEqual(runs, ['flaky@2026-01-01T01:00:00.000Z'])
  failing = false
  await scheduler.catchUp()
  assert.deepEqual(runs, ['flaky@2026-01-01T01:00:00.000Z', 'flaky@2026-01-01T02:00:00.000Z', 'flaky@2026-01-01T03:00:00.000Z', 'flaky@2026-01-01T04:00:00.000Z'])
})

test('two instances sharing one store run each occurrence once', async () => {
  const state = memoryState({ each: '2026-01-01T00:10:00Z' })
  const runs: string[] = []
  const clocks = [new ManualClock(new Date('2026-01-01T00:10:00Z')), new ManualClock(new Date('2026-01-01T00:10:00Z'))]
  const schedulers = clocks.map((clock) => new Scheduler(clock, [hourlyJob('each', runs, 'each')], state, silent))
  await Promise.all(
    schedulers.map((s, i) => s.advanceManualClock(new Date('2026-01-01T05:00:00Z'), (to) => clocks[i]!.set(to))),
  )
  assert.deepEqual(runs, ['1', '2', '3', '4', '5'].map((h) => `each@2026-01-01T0${h}:00:00.000Z`))
  for (const clock of clocks) assert.equal(clock.now().toISOString(), '2026-01-01T05:00:00.000Z')
})

test('the manual clock only moves forward', () => {
  const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'))
  assert.throws(() => clock.set(new Date('2025-12-31T00:00:00Z')))
})
