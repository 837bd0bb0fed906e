import assert from 'node:assert/strict'
import { test } from 'node:test'
import pino from 'pino'
import { ManualClock } from '../../src/platform/clock.ts'
import { Scheduler, type Job } from '../../src/jobs/scheduler.ts'

const HOUR = 3_600_000

function hourlyJob(name: string, runs: string[]): Job {
  return {
    name,
    nextDue: (after) => new Date((Math.floor(after.getTime() / HOUR) + 1) * HOUR),
    run: async (now) => {
      runs.push(`${name}@${now.toISOString()}`)
      return {}
    },
  }
}

test('moving a manual clock runs every job that fell due, in time order, at its due time', async () => {
  const clock = new ManualClock(new Date('2026-01-01T00:30:00Z'))
  const runs: string[] = []
  const daily: Job = {
    name: 'daily',
    nextDue: (after) => new Date((Math.floor(after.getTime() / (24 * HOUR)) + 1) * 24 * HOUR),
    run: async (now) => {
      runs.push(`daily@${now.toISOString()}`)
      return {}
    },
  }
  const scheduler = new Scheduler(clock, [hourlyJob('hourly', runs), daily], pino({ level: 'silent' }))
  await scheduler.advanceManualClock(new Date('2026-01-02T01:15:00Z'), (to) => clock.set(to))
  assert.equal(clock.now().toISOString(), '2026-01-02T01:15:00.000Z')
  assert.equal(runs.filter((r) => r.startsWith('hourly')).length, 25)
  assert.ok(runs.includes('daily@2026-01-02T00:00:00.000Z'))
  const times = runs.map((r) => r.split('@')[1]!)
  assert.deepEqual(times, [...times].sort(), 'time order')
})

test('the manual clock only moves forward', () => {
  const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'))
  assert.throws(() => clock.set(new Date('2025-12-31T00:00:00Z')))
})
