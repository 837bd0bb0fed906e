import assert from 'node:assert/strict'
import { test } from 'node:test'
import { DAY_MS, hourlySplit, retryWindow, type Window } from '../../src/domain/stats.ts'

const at = (iso: string) => Date.parse(iso)
const win = (start: string, end: string): Window => ({ startMs: at(start), endMs: at(end) })
const show = (w: Window) => [new Date(w.startMs).toISOString(), new Date(w.endMs).toISOString()]
const rolled = at('2026-11-30T00:00:00Z') // closed through 11-30

test('hourly split: whole closed days from rollups, the clipped first day and the rest from the ledger', () => {
  const split = hourlySplit(win('2026-11-02T06:00:00Z', '2026-12-01T12:00:00Z'), 'hour', false, false, rolled)!
  assert.deepEqual(show(split.days), ['2026-11-03T00:00:00.000Z', '2026-12-01T00:00:00.000Z'])
  assert.deepEqual(split.edges.map(show), [
    ['2026-11-02T06:00:00.000Z', '2026-11-03T00:00:00.000Z'],
    ['2026-12-01T00:00:00.000Z', '2026-12-01T12:00:00.000Z'],
  ])
  // Whole closed days: no edge at all.
  assert.deepEqual(hourlySplit(win('2026-11-01T00:00:00Z', '2026-11-30T00:00:00Z'), 'hour', false, false, rolled)!.edges, [])
  // Days after the watermark are an edge (the live tail).
  const tail = hourlySplit(win('2026-11-01T00:00:00Z', '2026-12-02T01:00:00Z'), 'hour', false, false, rolled)!
  assert.deepEqual(show(tail.days), ['2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'])
  assert.deepEqual(tail.edges.map(show), [['2026-12-01T00:00:00.000Z', '2026-12-02T01:00:00.000Z']])
})

test('hourly split: only unfiltered account windows at hour granularity with a whole closed day', () => {
  const w = win('2026-11-01T00:00:00Z', '2026-11-30T00:00:00Z')
  assert.equal(hourlySplit(w, 'day', false, false, rolled), null)
  assert.equal(hourlySplit(w, 'hour', true, false, rolled), null, 'filtered')
  assert.equal(hourlySplit(w, 'hour', false, true, rolled), null, 'group_by=creative')
  assert.equal(hourlySplit(w, 'hour', false, false, null), null, 'nothing rolled up yet')
  assert.equal(hourlySplit(win('2026-11-02T06:00:00Z', '2026-11-03T06:00:00Z'), 'hour', false, false, rolled), null, 'no whole day inside')
  assert.equal(hourlySplit(win('2026-12-01T00:00:00Z', '2026-12-02T00:00:00Z'), 'hour', false, false, rolled), null, 'the day is not closed')
})

test('retry_with for an hour window: snapped onto whole days when the hourly rollups can serve them', () => {
  const sent = win('2026-11-02T06:00:00Z', '2026-11-04T00:00:00Z')
  const perDayEvents = new Map([
    [at('2026-11-02T00:00:00Z'), 15],
    [at('2026-11-03T00:00:00Z'), 1],
  ])
  const canServe = (w: Window) => hourlySplit(w, 'hour', false, false, rolled)?.edges.length === 0
  assert.deepEqual(show(retryWindow(sent, 'hour', { rollupsCanServe: canServe, perDayEvents, maxEvents: 10 })!), [
    '2026-11-02T00:00:00.000Z',
    '2026-11-04T00:00:00.000Z',
  ])
  // When they cannot (a filter), the longest window with the same end that fits.
  const shorter = retryWindow(sent, 'hour', { rollupsCanServe: () => false, perDayEvents, maxEvents: 10 })!
  assert.deepEqual(show(shorter), ['2026-11-03T00:00:00.000Z', '2026-11-04T00:00:00.000Z'])
  assert.equal(shorter.endMs - shorter.startMs, DAY_MS)
})
