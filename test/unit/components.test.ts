import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ApiError, NOT_ACCEPTING_ORDERS } from '../../src/domain/errors.ts'
import {
  componentDisabled,
  componentState,
  componentStatus,
  refuseIfDisabled,
  reportingCovered,
  reportingState,
} from '../../src/domain/components.ts'

const NOW = Date.parse('2026-11-10T09:00:00Z')
const CLOSED = '2026-11-09' // yesterday: rollups are current
const STALE = '2026-11-07' // the day before yesterday is not closed: behind

test('component states: none stored is operational; a state the service does not know is unknown', () => {
  assert.equal(componentState(undefined), 'operational')
  for (const s of ['operational', 'degraded', 'disabled', 'unknown'] as const) assert.equal(componentState(s), s)
  assert.equal(componentState('paused'), 'unknown')
})

test('a disabled component refuses its use cases with 503 and its own message; degraded does not', () => {
  const stored = new Map([
    ['campaign_creation', 'disabled'],
    ['reporting', 'degraded'],
  ])
  assert.equal(componentDisabled(stored, 'campaign_creation'), true)
  assert.equal(componentDisabled(stored, 'reporting'), false)
  assert.equal(componentDisabled(stored, 'exports'), false)
  assert.throws(
    () => refuseIfDisabled(stored, 'campaign_creation'),
    (err) => err instanceof ApiError && err.status === 503 && err.detail === NOT_ACCEPTING_ORDERS,
  )
  assert.doesNotThrow(() => refuseIfDisabled(stored, 'reporting'))
  assert.doesNotThrow(() => refuseIfDisabled(new Map(), 'exports'))
  assert.throws(
    () => refuseIfDisabled(new Map([['exports', 'disabled']]), 'exports'),
    (err) => err instanceof ApiError && err.status === 503 && String(err.detail).startsWith('exports are disabled'),
  )
  assert.throws(
    () => refuseIfDisabled(new Map([['reporting', 'disabled']]), 'reporting'),
    (err) => err instanceof ApiError && err.status === 503 && err.detail === 'reporting is temporarily unavailable; retry later',
  )
})

test('reporting: an operator-set state wins; operational reads degraded while the rollups are behind', () => {
  assert.equal(reportingState(undefined, CLOSED, NOW), 'operational')
  assert.equal(reportingState('operational', CLOSED, NOW), 'operational')
  assert.equal(reportingState(undefined, STALE, NOW), 'degraded')
  assert.equal(reportingState(undefined, null, NOW), 'degraded', 'nothing rolled up yet')
  assert.equal(reportingState('disabled', CLOSED, NOW), 'disabled')
  assert.equal(reportingState('disabled', STALE, NOW), 'disabled')
  assert.equal(reportingState('degraded', CLOSED, NOW), 'degraded')
})

test('reporting covers the ledger only while operational', () => {
  assert.equal(reportingCovered('operational'), true)
  for (const s of ['degraded', 'disabled', 'unknown'] as const) assert.equal(reportingCovered(s), false)
})

test('status: every component, unset ones operational, reporting derived from the rollups', () => {
  const status = componentStatus(new Map([['exports', 'disabled']]), STALE, NOW)
  assert.deepEqual(status, {
    api: 'operational',
    site_proxy: 'operational',
    authentication: 'operational',
    campaign_creation: 'operational',
    reporting: 'degraded',
    exports: 'disabled',
    invoicing: 'operational',
  })
  assert.equal(componentStatus(new Map(), CLOSED, NOW).reporting, 'operational')
})
