import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService } from '../helpers/api.ts'
import { ADMIN_TOKEN, createDatabase, startService, STORE } from '../helpers/service.ts'
import { loadSettings } from '../../src/platform/env.ts'
import { startInstance } from '../../src/start/roles.ts'
import { advance, decide, privateCountry, view } from '../helpers/serving.ts'
import { assertHistogramsMonotone, Scrape } from '../helpers/metrics.ts'

const h = useService({}, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })

async function scrape(): Promise<Scrape> {
  const res = await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  assert.equal(res.status, 200)
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/)
  return new Scrape(await res.text())
}

test('/metrics needs the operator token: 401 with detail without it or with a wrong one', async () => {
  for (const headers of [{}, { authorization: 'Bearer wrong-token-0123456789' }, { authorization: ADMIN_TOKEN }] as Record<string, string>[]) {
    const res = await fetch(`${h.baseUrl}/metrics`, { headers })
    assert.equal(res.status, 401)
    assert.equal((await res.json()).detail, 'invalid operator token')
    assert.ok(res.headers.get('x-request-id'))
  }
  const ok = await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: `bearer ${ADMIN_TOKEN}` } })
  assert.equal(ok.status, 200)
  assert.equal(ok.headers.get('cache-control'), 'no-store')
})

test('/metrics is absent (404) without ADMIN_TOKEN', async () => {
  const bare = await startService({ ADMIN_TOKEN: '' })
  try {
    for (const headers of [{}, { authorization: `Bearer ${ADMIN_TOKEN}` }] as Record<string, string>[]) {
      const res = await fetch(`${bare.baseUrl}/metrics`, { headers })
      assert.equal(res.status, 404)
      assert.ok((await res.json()).detail)
    }
  } finally {
    await bare.close()
  }
})

test('clicks: billable on a click campaign, else why not', async () => {
  const before = await scrape()
  const adv = await h.advertiser()
  const [clickCountry, impressionCountry] = [privateCountry(), privateCountry()]
  for (const [country, kind] of [[clickCountry, 'click'], [impressionCountry, 'impression']]) {
    const created = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 1000, kind }))
    assert.equal(created.status, 201, created.text)
  }
  const onClick = (await decide(h.anonymous, { country: clickCountry, viewer_id: 'metrics-click' }))!
  const onImpression = (await decide(h.anonymous, { country: impressionCountry, viewer_id: 'metrics-click' }))!
  for (const d of [onClick, onClick, onImpression]) assert.equal((await h.anonymous.get(new URL(d.click_url).pathname)).status, 302)

  const after = await scrape()
  const delta = (labels: Record<string, string>) => after.value('adapi_serve_clicks_total', labels) - before.value('adapi_serve_clicks_total', labels)
  assert.equal(delta({ billable: 'true', reason: 'none' }), 1)
  assert.equal(delta({ billable: 'false', reason: 'repeat' }), 1)
  assert.equal(delta({ billable: 'false', reason: 'impression_campaign' }), 1)
  assert.equal(delta({ billable: 'false', reason: 'block_full' }), 0, 'bound in advance, at zero')
})

test('/metrics is in neither OpenAPI document', async () => {
  const pub = await h.anonymous.get('/v1/openapi.json')
  assert.ok(!Object.keys(pub.body.paths).some((p) => p.includes('metrics')))
  const ops = await h.admin.get('/admin/v1/openapi.json')
  assert.ok(!Object.keys(ops.body.paths).some((p) => p.includes('metrics')))
})

test('decisions, views (billable and not), ledger batches, a job run and requests show in a parseable scrape', async () => {
  const before = await scrape()
  const adv = await h.advertiser()
  const country = privateCountry()
  const created = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 1000 }))
  assert.equal(created.status, 201, created.text)

  const a = (await decide(h.anonymous, { country, viewer_id: 'metrics-a' }))!
  const b = (await decide(h.anonymous, { country, viewer_id: 'metrics-b' }))!
  assert.ok(a && b)
  assert.equal(await decide(h.anonymous, { country: privateCountry(), viewer_id: 'metrics-empty' }), null, 'nothing targets this country')
  await advance(h, 10)
  assert.equal(await view(h.anonymous, a.impression_id, 10_000), 204)
  assert.equal(await view(h.anonymous, b.impression_id, 1_000), 204)
  assert.equal(await view(h.anonymous, a.impression_id, 10_000), 204, 'a repeat')
  assert.equal(await view(h.anonymous, 'not-an-impression', 10_000), 404)
  const job = await h.admin.post('/admin/v1/jobs/rollups/run')
  assert.equal(job.status, 200, job.text)

  const after = await scrape()
  const delta = (name: string, labels: Record<string, string> = {}) => after.value(name, labels) - before.value(name, labels)
  assert.equal(delta('adapi_serve_decisions_total', { result: 'filled' }), 2)
  assert.equal(delta('adapi_serve_decisions_total', { result: 'empty' }), 1)
  assert.equal(delta('adapi_serve_views_total', { billable: 'true', reason: 'none' }), 1)
  assert.equal(delta('adapi_serve_views_total', { billable: 'false', reason: 'short_dwell' }), 1)
  assert.equal(delta('adapi_serve_views_total', { billable: 'false', reason: 'repeat' }), 1)
  assert.equal(delta('adapi_serve_views_total', { billable: 'false', reason: 'unknown_impression' }), 1)
  assert.equal(delta('adapi_serve_views_total', { billable: 'false', reason: 'viewer_frequency' }), 0, 'bound in advance, at zero')
  assert.equal(delta('adapi_job_runs_total', { job: 'rollups' }), 1)
  assert.equal(delta('adapi_job_failures_total', { job: 'rollups' }), 0)
  assert.equal(after.value('adapi_job_failures_total', { job: 'invoicing' }), 0, 'every job is listed before it fails')
  assert.ok(after.count('adapi_job_duration_seconds', { job: 'rollups' }) >= 1)

  // Three views were written (the unknown one never reaches the ledger), in one or more batches with their offers.
  const batches = after.count('adapi_ledger_batch_rows') - before.count('adapi_ledger_batch_rows')
  assert.ok(batches >= 1)
  assert.equal(after.count('adapi_ledger_commit_seconds') - before.count('adapi_ledger_commit_seconds'), batches)
  const rows = Number(after.sample('adapi_ledger_batch_rows')!.sum) - Number(before.sample('adapi_ledger_batch_rows')?.sum ?? 0)
  assert.ok(rows >= 4, `offers and views were batched (${rows} rows)`)

  // Requests by route pattern, never the raw URL.
  const http = 'adapi_http_request_duration_seconds'
  assert.ok(after.count(http, { method: 'POST', route: '/serve/v1/decisions', status: '200' }) - before.count(http, { method: 'POST', route: '/serve/v1/decisions', status: '200' }) >= 2)
  assert.equal(after.count(http, { method: 'POST', route: '/serve/v1/impressions/:impression_id/view', status: '404' }), 1)
  assert.ok(!after.family(http).metrics.some((m) => /not-an-impression|impressions\/[A-Za-z0-9_-]{20,}/.test(m.labels?.route ?? '')))
  const buckets = Object.keys(after.sample(http, { route: '/serve/v1/decisions' })!.buckets!)
  for (const le of ['0.001', '10', '+Inf']) assert.ok(buckets.includes(le), `bucket le=${le}`)

  // The store pool and the event loop.
  assert.ok(after.value('adapi_db_pool_connections', { state: 'total' }) >= 1)
  assert.ok(after.value('adapi_db_pool_connections', { state: 'idle' }) >= 0)
  assert.ok(after.value('adapi_db_pool_connections', { state: 'waiting' }) >= 0)
  assert.equal(after.family('adapi_nodejs_eventloop_lag_seconds').type, 'GAUGE')
  assert.equal(after.family('adapi_nodejs_eventloop_lag_p99_seconds').type, 'GAUGE')

  assertHistogramsMonotone(after)
})

test('an unmatched path is counted under one route label', async () => {
  await fetch(`${h.baseUrl}/no/such/${Math.random()}`)
  const after = await scrape()
  const samples = after.family('adapi_http_request_duration_seconds').metrics
  assert.ok(samples.some((m) => m.labels?.route === 'unmatched' && m.labels.status === '404'))
  assert.ok(!samples.some((m) => (m.labels?.route ?? '').startsWith('/no/such')))
})

test(
  "a worker's /metrics: behind the operator token, with the job metrics; absent without ADMIN_TOKEN",
  { skip: STORE !== 'postgres' && 'ROLE=worker needs PostgreSQL', timeout: 30_000 },
  async () => {
    const database = await createDatabase(process.env.TEST_DATABASE_URL!, 'adapi_metrics')
    const env = { DATABASE_URL: database.url, PORT: '0', ROLE: 'worker', LOG_LEVEL: 'silent', CLOCK: 'manual', CLOCK_START: '2026-11-02T09:00:00Z' }
    const worker = await startInstance(loadSettings({ ...env, ADMIN_TOKEN }))
    try {
      const denied = await fetch(`${worker.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })
      assert.equal(denied.status, 401)
      assert.equal((await denied.json()).detail, 'invalid operator token')
      // At start the worker starts queued exports: one run of the exports job.
      let scraped: Scrape | null = null
      for (let i = 0; i < 100 && !(scraped && scraped.value('adapi_job_runs_total', { job: 'exports' }) >= 1); i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 50))
        const res = await fetch(`${worker.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
        assert.equal(res.status, 200)
        assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/)
        scraped = new Scrape(await res.text())
      }
      assert.ok(scraped!.value('adapi_job_runs_total', { job: 'exports' }) >= 1)
      for (const job of ['rollups', 'invoicing', 'expiry', 'exports', 'traffic-review']) assert.ok(scraped!.sample('adapi_job_failures_total', { job }), `${job} is listed`)
      assert.ok(scraped!.value('adapi_db_pool_connections', { state: 'total' }) >= 1)
      assertHistogramsMonotone(scraped!)
    } finally {
      await worker.close()
    }
    const bare = await startInstance(loadSettings({ ...env, ADMIN_TOKEN: '' }))
    try {
      const res = await fetch(`${bare.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
      assert.equal(res.status, 404)
      assert.ok((await res.json()).detail)
    } finally {
      await bare.close()
      await database.drop()
    }
  },
)
