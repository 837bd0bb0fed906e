import assert from 'node:assert/strict'
import { test } from 'node:test'
import pino from 'pino'
import { ManualClock } from '../../src/platform/clock.ts'
import { Metrics } from '../../src/platform/metrics.ts'
import { Scheduler, type ScheduleState } from '../../src/jobs/scheduler.ts'
import { completionLevel, requestId } from '../../src/http/app.ts'
import { assertHistogramsMonotone, Scrape } from '../helpers/metrics.ts'

const silent = pino({ level: 'silent' })
const noState: ScheduleState = {
  watermarks: async () => new Map(),
  watermark: async () => null,
  advance: async () => {},
  exclusive: async (_job, _wait, work) => ({ value: await work() }),
}

test('a failing job run counts as a run and a failure, with its duration', async () => {
  const metrics = new Metrics()
  const job = (name: string, fail: boolean) => ({
    name,
    nextDue: () => null,
    catchUp: 'latest' as const,
    run: async () => {
      if (fail) throw new Error('store down')
      return {}
    },
  })
  const scheduler = new Scheduler(new ManualClock(new Date('2026-01-01T00:00:00Z')), [job('good', false), job('bad', true)], noState, silent, { metrics })
  metrics.declareJobs(scheduler.names)
  await scheduler.runNow('good')
  await assert.rejects(scheduler.runNow('bad'), /store down/)
  const scrape = new Scrape((await metrics.scrape()).body)
  assert.equal(scrape.value('adapi_job_runs_total', { job: 'good' }), 1)
  assert.equal(scrape.value('adapi_job_failures_total', { job: 'good' }), 0)
  assert.equal(scrape.value('adapi_job_runs_total', { job: 'bad' }), 1)
  assert.equal(scrape.value('adapi_job_failures_total', { job: 'bad' }), 1)
  assert.equal(scrape.count('adapi_job_duration_seconds', { job: 'bad' }), 1)
  assertHistogramsMonotone(scrape)
})

test('views: a reason not bound in advance counts as other; decisions by result; one instance per registry', async () => {
  const a = new Metrics({ viewReasons: ['short_dwell'] })
  const b = new Metrics({ viewReasons: ['short_dwell'] })
  a.view(false, 'short_dwell')
  a.view(false, 'something_new')
  a.view(false, null)
  a.view(true, null)
  a.decision(true)
  a.decision(false)
  a.decision(false)
  a.ledgerBatch(12, 0.004)
  a.request('GET', '/v1/account', 200, 0.002)
  a.request('GET', '/v1/account', 200, 0.02)
  const scrape = new Scrape((await a.scrape()).body)
  assert.equal(scrape.value('adapi_serve_views_total', { billable: 'false', reason: 'short_dwell' }), 1)
  assert.equal(scrape.value('adapi_serve_views_total', { billable: 'false', reason: 'other' }), 2)
  assert.equal(scrape.value('adapi_serve_views_total', { billable: 'true', reason: 'none' }), 1)
  assert.equal(scrape.value('adapi_serve_decisions_total', { result: 'filled' }), 1)
  assert.equal(scrape.value('adapi_serve_decisions_total', { result: 'empty' }), 2)
  assert.equal(scrape.count('adapi_ledger_batch_rows'), 1)
  assert.equal(scrape.sample('adapi_ledger_batch_rows')!.sum, '12')
  assert.equal(scrape.count('adapi_http_request_duration_seconds', { method: 'GET', route: '/v1/account', status: '200' }), 2)
  assert.equal(scrape.sample('adapi_http_request_duration_seconds', { route: '/v1/account' })!.buckets!['0.0025'], '1')
  assertHistogramsMonotone(scrape)
  const other = new Scrape((await b.scrape()).body)
  assert.equal(other.value('adapi_serve_decisions_total', { result: 'filled' }), 0, 'registries are separate')
  assert.equal(other.families.has('adapi_db_pool_connections'), false, 'no pool, no pool gauge')
})

test('request ids: safe ones kept, anything else replaced by a UUID', () => {
  for (const id of ['abc', 'A.b_c:d-e', 'x'.repeat(128)]) assert.equal(requestId(id), id)
  for (const id of [undefined, '', 'x'.repeat(129), 'a b', 'a"b', 'a\nb', 'é', ['a', 'b']]) {
    assert.match(requestId(id), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
  }
})

test('completion line levels: hot path at debug, its client errors at warn, server errors at error', () => {
  assert.equal(completionLevel(200, true), 'debug')
  assert.equal(completionLevel(204, true), 'debug')
  assert.equal(completionLevel(302, true), 'debug')
  assert.equal(completionLevel(429, true), 'warn')
  assert.equal(completionLevel(503, true), 'error')
  assert.equal(completionLevel(200, false), 'info')
  assert.equal(completionLevel(404, false), 'info')
  assert.equal(completionLevel(500, false), 'error')
})
