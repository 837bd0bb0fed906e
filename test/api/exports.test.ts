import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { inflateRawSync } from 'node:zlib'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'node:test'
import { campaignBody, useService, type Advertiser, type Reply } from '../helpers/api.ts'
import { advance, decide, deliver, privateCountry, view } from '../helpers/serving.ts'
import fc from 'fast-check'
import { sql } from 'kysely'
import { runPendingExports } from '../../src/services/exports/worker.ts'
import { csvField, eventTypesLeftOut, hasBillingCountry, hasReasons, rowLine, CSV_QUOTE_TRIGGERS, EXPORT_FIELDS, EXPORT_SCHEMA_VERSIONS } from '../../src/domain/export-csv.ts'
import { exportLineSql, planLedgerExport, readLedgerExportText } from '../../src/store/exports.ts'
import { loadSettings } from '../../src/platform/env.ts'
import { impressionKey } from '../helpers/impression-key.ts'

const h = useService({}, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null })

const V1_HEADER = 'timestamp,event_type,campaign_id,creative_id,surface,country,billable,debit_micros'
const V2_HEADER = `${V1_HEADER},processor_billing_country`
const HOUR = 3_600_000
// The harness starts the service with PORT=0 and no PUBLIC_URL, so the service writes URLs with this origin.
const PUBLIC_URL = loadSettings({ PORT: '0' }).publicUrl

const db = () => h.svc.service.store.db
const now = () => h.svc.clock.now()
const iso = (ms: number) => new Date(ms).toISOString()
const quietLog = { info() {}, warn() {}, error() {} }

async function campaign(adv: Advertiser, country: string, overrides: Record<string, unknown> = {}) {
  const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 10_000, ...overrides }))
  assert.equal(res.status, 201, res.text)
  const detail = await adv.get(`/v1/campaigns/${res.body.campaign_id}`)
  return { campaignId: res.body.campaign_id as string, creativeId: detail.body.creatives[0].creative_id as string }
}

async function queue(adv: Advertiser, body: Record<string, unknown>): Promise<any> {
  const res = await adv.post('/v1/exports', body)
  assert.equal(res.status, 202, res.text)
  return res.body
}

/** Polls the status (bounded) until the worker finished the job. */
async function settled(adv: Advertiser, id: string): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const res = await adv.get(`/v1/exports/${id}`)
    assert.equal(res.status, 200, res.text)
    if (res.body.status === 'ready' || res.body.status === 'failed') return res.body
    await sleep(10)
  }
  assert.fail(`export ${id} did not finish`)
}

async function exportCsv(adv: Advertiser, body: Record<string, unknown>): Promise<{ job: any; res: Reply<string>; lines: string[] }> {
  const queued = await queue(adv, body)
  const job = await settled(adv, queued.id)
  assert.equal(job.status, 'ready', JSON.stringify(job))
  const res = await adv.get<string>(`/v1/exports/${job.id}/download`)
  assert.equal(res.status, 200, res.text)
  assert.ok(res.text.endsWith('\r\n'), 'every line ends in CRLF')
  const lines = res.text.slice(0, -2).split('\r\n')
  assert.equal(lines.length, job.row_count + 1, 'a header plus row_count rows')
  return { job, res, lines }
}

/** The account's ledger events in [start, end), straight from the store, in export order. */
async function ledger(userId: string, start: Date, end: Date) {
  return db()
    .selectFrom('ledger_events')
    .selectAll()
    .where('user_id', '=', userId)
    .where('occurred_at', '>=', start)
    .where('occurred_at', '<', end)
    .orderBy('occurred_at')
    .orderBy('event_id')
    .execute()
}

/** Inserts a job row the way POST /exports does, but without kicking the worker. */
async function insertJob(
  adv: Advertiser,
  status: 'queued' | 'running',
  startedAt: Date | null = null,
  window: { start: Date; end: Date } = { start: new Date(now().getTime() - HOUR), end: now() },
): Promise<string> {
  const id = `exp_test${Math.random().toString(36).slice(2, 12)}`
  const t = now()
  await db()
    .insertInto('export_jobs')
    .values({
      export_id: id,
      user_id: adv.userId,
      status,
      schema_version: 'ledger-export-v2',
      filters: JSON.stringify({ start: window.start.toISOString(), end: window.end.toISOString() }),
      window_start: window.start,
      window_end: window.end,
      row_count: null,
      size_bytes: null,
      sha256: null,
      error_code: null,
      created_at: t,
      started_at: startedAt,
      finished_at: null,
      expires_at: new Date(t.getTime() + 24 * HOUR),
    })
    .execute()
  return id
}

const sha256 = (text: string) => createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex')

// ---------------------------------------------------------------------------

test('queue → ready → download: v2 by default, every ledger event of the window, exact bytes, hash and length', async () => {
  const adv = await h.advertiser()
  // The processor billing country is the account's billing-address country (v2 column).
  const enrolled = await h.admin.post(`/admin/v1/accounts/${adv.userId}/billing`, {
    mode: 'weekly_autopay',
    card_number: '4242424242424242',
    billing_country: 'DE',
  })
  assert.equal(enrolled.status, 200, enrolled.text)
  const country = privateCountry()
  const { campaignId, creativeId } = await campaign(adv, country, { cpm_usd: 2.5 })
  const start = now()
  await advance(h, 1)
  assert.equal(await deliver(h, country, 3), 3) // 3 billable impressions (their offers are counted, not exported)
  const short = (await decide(h.anonymous, { country, viewer_id: 'export-short-view' }))!
  await advance(h, 10)
  assert.equal(await view(h.anonymous, short.impression_id, 5_000), 204) // a measured, non-billable view
  assert.equal((await h.anonymous.get(`/serve/v1/impressions/${short.impression_id}/click`)).status, 302)
  await advance(h, 1)
  const end = new Date(now().getTime() + 1000)

  const created = now()
  const queued = await queue(adv, { start: start.toISOString(), end: end.toISOString() })
  assert.match(queued.id, /^exp_/)
  assert.equal(queued.status, 'queued')
  assert.equal(queued.status_url, `/v1/exports/${queued.id}`)
  assert.equal(queued.schema_version, 'ledger-export-v2')
  assert.deepEqual(queued.filters, { start: start.toISOString(), end: end.toISOString() })
  assert.deepEqual([queued.row_count, queued.size_bytes, queued.error_code], [null, null, null])
  assert.equal(queued.created_at, created.toISOString())
  assert.equal(queued.expires_at, iso(created.getTime() + 24 * HOUR))
  assert.ok(!('download_url' in queued))

  const job = await settled(adv, queued.id)
  assert.equal(job.status, 'ready')
  assert.equal(job.download_url, `${PUBLIC_URL}/v1/exports/${job.id}/download`, 'absolute: PUBLIC_URL + path')
  assert.equal(job.schema_version, 'ledger-export-v2')
  assert.equal(job.expires_at, queued.expires_at)

  const res = await adv.get<string>(`/v1/exports/${job.id}/download`)
  assert.equal(res.status, 200, res.text)
  assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8')
  assert.equal(res.headers.get('cache-control'), 'private, no-store')
  assert.equal(res.headers.get('content-disposition'), `attachment; filename="ledger-export-${job.id}.csv"`)
  assert.equal(res.headers.get('x-service-export-schema'), 'ledger-export-v2')
  assert.equal(res.headers.get('x-service-content-sha256'), sha256(res.text), 'the hash of exactly the bytes served')
  assert.equal(res.headers.get('x-service-content-sha256'), job.sha256)
  assert.equal(Number(res.headers.get('content-length')), job.size_bytes)
  assert.equal(Buffer.byteLength(res.text), job.size_bytes)

  assert.ok(res.text.endsWith('\r\n'))
  const lines = res.text.slice(0, -2).split('\r\n')
  assert.equal(lines[0], V2_HEADER)
  const rows = lines.slice(1).map((l) => l.split(','))
  const events = await ledger(adv.userId, start, end)
  assert.equal(job.row_count, events.length)
  assert.equal(rows.length, events.length)
  assert.deepEqual(
    rows,
    events.map((e) => [
      e.occurred_at.toISOString(),
      e.event_type,
      e.campaign_id,
      e.creative_id,
      e.surface,
      e.country ?? '',
      String(e.billable),
      String(e.debit_micros),
      'DE',
    ]),
  )
  // The content, independently of the store: 3 impressions at cpm/1000, one non-billable view, one click; no offer.
  const byType = (t: string) => rows.filter((r) => r[1] === t)
  assert.equal(byType('offer').length, 0)
  assert.equal(rows.length, 5)
  assert.deepEqual(
    byType('impression').map((r) => [r[2], r[3], r[4], r[5], r[6], r[7]]),
    Array(3).fill([campaignId, creativeId, 'extension', country, 'true', '2500']),
  )
  assert.deepEqual(byType('view').map((r) => [r[6], r[7]]), [['false', '0']])
  assert.deepEqual(byType('click').map((r) => [r[6], r[7]]), [['false', '0']])
  for (const r of rows) assert.match(r[0]!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  const sorted = [...rows].sort((a, b) => a[0]!.localeCompare(b[0]!))
  assert.deepEqual(rows.map((r) => r[0]), sorted.map((r) => r[0]), 'ordered by timestamp')

  // No viewer id, viewer key, impression id (which embeds the viewer key) or impression key anywhere in the file.
  assert.doesNotMatch(res.text, /deliver-|export-short-view/)
  assert.ok(!res.text.includes(short.impression_id), 'no impression id')
  for (const e of events) {
    assert.ok(!res.text.includes(e.viewer_key), 'no viewer key')
    assert.ok(!res.text.includes(e.impression_key.toString('hex')), 'no impression key')
  }
})

test('v1 when configured; the version is fixed when a job is queued', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  await campaign(adv, country)
  const start = now()
  await deliver(h, country, 2)
  const end = new Date(now().getTime() + 1)
  const window = { start: start.toISOString(), end: end.toISOString() }

  const before = await queue(adv, window)
  assert.equal(before.schema_version, 'ledger-export-v2')
  await h.config({ export_schema_version: 'ledger-export-v1' })
  let v1: any
  try {
    v1 = await queue(adv, window)
    assert.equal(v1.schema_version, 'ledger-export-v1')
  } finally {
    await h.config({ export_schema_version: 'ledger-export-v2' })
  }
  const v1Job = await settled(adv, v1.id)
  assert.equal(v1Job.schema_version, 'ledger-export-v1', 'still v1 after the config went back to v2')
  const v1Csv = await adv.get<string>(`/v1/exports/${v1.id}/download`)
  assert.equal(v1Csv.headers.get('x-service-export-schema'), 'ledger-export-v1')
  const v1Lines = v1Csv.text.slice(0, -2).split('\r\n')
  assert.equal(v1Lines[0], V1_HEADER)
  assert.equal(v1Lines.length, 3) // the header and 2 impressions (offers are not ledger rows)
  for (const line of v1Lines) assert.equal(line.split(',').length, 8)

  const v2Job = await settled(adv, before.id)
  assert.equal(v2Job.schema_version, 'ledger-export-v2', 'queued before the change: keeps v2')
  const v2Csv = await adv.get<string>(`/v1/exports/${before.id}/download`)
  assert.equal(v2Csv.headers.get('x-service-export-schema'), 'ledger-export-v2')
  const v2Lines = v2Csv.text.slice(0, -2).split('\r\n')
  assert.equal(v2Lines[0], V2_HEADER)
  // No billing country on file (the harness enrolls a card without one): the column is blank.
  for (const line of v2Lines.slice(1)) {
    assert.equal(line.split(',').length, 9)
    assert.ok(line.endsWith(','), line)
  }
  assert.deepEqual(v2Lines.slice(1).map((l) => l.slice(0, -1)), v1Lines.slice(1), 'v2 = v1 + one column')
})

test('filters narrow the rows: campaign_ids, creative_ids, surfaces, countries (intersected)', async () => {
  const adv = await h.advertiser()
  const [countryA, countryB] = [privateCountry(), privateCountry()]
  const a = await campaign(adv, countryA)
  const b = await campaign(adv, countryB, { target_surface: 'terminal' })
  const start = now()
  assert.equal(await deliver(h, countryA, 2, 'extension'), 2)
  assert.equal(await deliver(h, countryB, 3, 'terminal'), 3)
  const window = { start: start.toISOString(), end: new Date(now().getTime() + 1).toISOString() }
  const column = (lines: string[], i: number) => [...new Set(lines.slice(1).map((l) => l.split(',')[i]))]

  // One row per billable impression: the offers are counted, not exported.
  const all = await exportCsv(adv, window)
  assert.equal(all.job.row_count, 5)

  const byCampaign = await exportCsv(adv, { ...window, campaign_ids: [a.campaignId] })
  assert.deepEqual(byCampaign.job.filters, { ...window, campaign_ids: [a.campaignId] })
  assert.equal(byCampaign.job.row_count, 2)
  assert.deepEqual(column(byCampaign.lines, 2), [a.campaignId])

  const byCreative = await exportCsv(adv, { ...window, creative_ids: [b.creativeId] })
  assert.equal(byCreative.job.row_count, 3)
  assert.deepEqual(column(byCreative.lines, 3), [b.creativeId])

  const bySurface = await exportCsv(adv, { ...window, surfaces: ['terminal'] })
  assert.equal(bySurface.job.row_count, 3)
  assert.deepEqual(column(bySurface.lines, 4), ['terminal'])

  const byCountry = await exportCsv(adv, { ...window, countries: [countryA] })
  assert.equal(byCountry.job.row_count, 2)
  assert.deepEqual(column(byCountry.lines, 5), [countryA])

  const none = await exportCsv(adv, { ...window, campaign_ids: [a.campaignId], surfaces: ['terminal'] })
  assert.equal(none.job.row_count, 0)
  assert.deepEqual(none.lines, [V2_HEADER], 'an empty result is a header only')
})

test('a foreign or unknown campaign or creative filter is 404; so is another account\'s export, on status and download', async () => {
  const adv = await h.advertiser()
  const other = await h.advertiser()
  const mine = await campaign(adv, privateCountry())
  const theirs = await campaign(other, privateCountry())
  const window = { start: iso(now().getTime() - HOUR), end: now().toISOString() }

  const foreignCampaign = await adv.post('/v1/exports', { ...window, campaign_ids: [mine.campaignId, theirs.campaignId] })
  const unknownCampaign = await adv.post('/v1/exports', { ...window, campaign_ids: ['cmp_doesnotexist'] })
  assert.equal(foreignCampaign.status, 404)
  assert.deepEqual(foreignCampaign.body, unknownCampaign.body)
  assert.equal((await adv.post('/v1/exports', { ...window, creative_ids: [theirs.creativeId] })).status, 404)

  const job = await queue(other, window)
  await settled(other, job.id)
  for (const path of [`/v1/exports/${job.id}`, `/v1/exports/${job.id}/download`]) {
    const foreign = await adv.get(path)
    const unknown = await adv.get(path.replace(job.id, 'exp_doesnotexist'))
    assert.equal(foreign.status, 404, path)
    assert.deepEqual(foreign.body, unknown.body, 'indistinguishable from an unknown id')
  }
  assert.equal((await other.get(`/v1/exports/${job.id}/download`)).status, 200, 'the owner still downloads')
})

test('validation: end after start, interval within export_max_days, strict body', async () => {
  const adv = await h.advertiser()
  const t0 = Date.parse('2026-10-01T00:00:00Z')
  const bad = async (body: Record<string, unknown>) => {
    const res = await adv.post('/v1/exports', body)
    assert.equal(res.status, 400, res.text)
    return res.body.detail
  }
  assert.deepEqual(await bad({ start: iso(t0), end: iso(t0 - 1) }), { field: 'end', reason: 'end_not_after_start' })
  assert.equal((await bad({ start: iso(t0), end: iso(t0) })).reason, 'end_not_after_start')
  assert.deepEqual(await bad({ start: iso(t0), end: iso(t0 + 31 * 24 * HOUR + 1) }), { field: 'end', reason: 'interval_too_long', max_days: 31 })
  assert.equal((await adv.post('/v1/exports', { start: iso(t0), end: iso(t0 + 31 * 24 * HOUR) })).status, 202, 'exactly 31 days')

  await h.config({ export_max_days: 7 })
  try {
    assert.deepEqual(await bad({ start: iso(t0), end: iso(t0 + 8 * 24 * HOUR) }), { field: 'end', reason: 'interval_too_long', max_days: 7 })
  } finally {
    await h.config({ export_max_days: 31 })
  }

  const window = { start: iso(t0), end: iso(t0 + HOUR) }
  assert.deepEqual(await bad({ start: iso(t0) }), { field: 'end', reason: 'required' })
  assert.equal((await bad({ ...window, start: 'yesterday' })).reason, 'invalid_format')
  assert.deepEqual(await bad({ ...window, format: 'csv' }), { field: 'format', reason: 'unknown_field' })
  assert.equal((await bad({ ...window, campaign_ids: Array.from({ length: 101 }, (_, i) => `cmp_${i}`) })).reason, 'too_many_items')
  assert.equal((await bad({ ...window, countries: Array.from({ length: 51 }, () => 'DE') })).reason, 'too_many_items')
  assert.equal((await bad({ ...window, surfaces: ['web'] })).reason, 'invalid_value')
  assert.equal((await bad({ ...window, countries: ['de'] })).reason, 'invalid_format')
  assert.equal((await bad({ ...window, campaign_ids: [] })).reason, 'too_few_items')
})

test('over export_max_rows the job fails with row_limit_exceeded and the download is 409; at the limit it is ready', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  await campaign(adv, country)
  const start = now()
  await deliver(h, country, 2) // 2 rows: the impressions (offers are not ledger rows)
  const window = { start: start.toISOString(), end: new Date(now().getTime() + 1).toISOString() }

  await h.config({ export_max_rows: 1 })
  let failed: any
  try {
    failed = await settled(adv, (await queue(adv, window)).id)
  } finally {
    await h.config({ export_max_rows: 2 })
  }
  assert.equal(failed.status, 'failed')
  assert.equal(failed.error_code, 'row_limit_exceeded')
  assert.deepEqual([failed.row_count, failed.size_bytes, failed.sha256], [null, null, null])
  assert.ok(!('download_url' in failed))
  const download = await adv.get(`/v1/exports/${failed.id}/download`)
  assert.equal(download.status, 409)
  assert.equal(download.body.detail.reason, 'export_failed')
  assert.equal(download.body.detail.error_code, 'row_limit_exceeded')

  try {
    const atLimit = await exportCsv(adv, window)
    assert.equal(atLimit.job.row_count, 2)
  } finally {
    await h.config({ export_max_rows: 250_000 })
  }
})

test('download before the worker ran is 409; the scheduled job picks up queued jobs and reclaims stuck ones', async () => {
  const adv = await h.advertiser()
  // Rows as the worker had not run yet (nothing kicks it).
  const queued = await insertJob(adv, 'queued')
  const running = await insertJob(adv, 'running', now())
  for (const [id, status] of [[queued, 'queued'], [running, 'running']] as const) {
    const res = await adv.get(`/v1/exports/${id}/download`)
    assert.equal(res.status, 409, res.text)
    assert.deepEqual(res.body.detail, { field: 'export_id', reason: 'not_ready', status })
    const job = (await adv.get(`/v1/exports/${id}`)).body
    assert.equal(job.status, status)
    assert.ok(!('download_url' in job))
  }

  const run = await h.admin.post('/admin/v1/jobs/exports/run')
  assert.equal(run.status, 200, run.text)
  assert.deepEqual(run.body.result.ready, [queued], 'the queued job; the running one has a live lease')
  assert.equal((await adv.get(`/v1/exports/${queued}/download`)).status, 200)
  assert.equal((await adv.get(`/v1/exports/${running}`)).body.status, 'running')

  // Ten minutes of service time later the lease is stale: a minute tick reclaims and finishes it.
  await advance(h, 11 * 60)
  const reclaimed = (await adv.get(`/v1/exports/${running}`)).body
  assert.equal(reclaimed.status, 'ready')
  assert.equal((await adv.get(`/v1/exports/${running}/download`)).text.split('\r\n')[0], V2_HEADER)
})

test('two workers never run one job twice (atomic claims)', async () => {
  const adv = await h.advertiser()
  const ids = []
  for (let i = 0; i < 8; i++) ids.push(await insertJob(adv, 'queued'))
  const ctx = { db: db(), clock: h.svc.clock, settings: loadSettings({ PORT: '0' }) }
  const [a, b] = await Promise.all([runPendingExports(ctx, quietLog), runPendingExports(ctx, quietLog)])
  const done = [...a.ready, ...b.ready].sort()
  assert.deepEqual(done, [...ids].sort(), 'each job exactly once')
  assert.deepEqual([...a.lost, ...b.lost, ...a.failed, ...b.failed], [])
})

test('keyset pages and chunks: a large ledger streams whole, in (timestamp, ledger) order, whatever the page size', async () => {
  const adv = await h.advertiser()
  const { campaignId, creativeId } = await campaign(adv, privateCountry())
  const base = now().getTime() + 1000
  // 12,345 events, inserted newest first so ledger ids run against time, seven sharing each instant (so pages end mid-instant).
  const total = 12_345
  const rows = Array.from({ length: total }, (_, i) => ({
    occurred_at: new Date(base + Math.floor((total - i) / 7) * 1000),
    event_type: 'click' as const,
    impression_key: impressionKey(`imp_synthetic_${i}`),
    user_id: adv.userId,
    campaign_id: campaignId,
    creative_id: creativeId,
    surface: 'extension',
    country: i % 3 === 0 ? null : 'NL',
    billable: false,
    dwell_ms: null,
    reason: null,
    viewer_key: `vk_secret_${i}`,
  }))
  for (let i = 0; i < rows.length; i += 1000) await db().insertInto('ledger_events').values(rows.slice(i, i + 1000)).execute()
  const window = { start: iso(base), end: iso(base + 3 * HOUR) }

  // The default page size (one page here), through the API.
  const { job, res, lines } = await exportCsv(adv, window)
  assert.equal(job.row_count, total)
  // Pages of 1,000 (and 999: a page boundary inside an instant), through the worker itself: the same bytes.
  const ctx = { db: db(), clock: h.svc.clock, settings: loadSettings({ PORT: '0' }) }
  for (const pageRows of [1000, 999]) {
    const id = await insertJob(adv, 'queued', null, { start: new Date(base), end: new Date(base + 3 * HOUR) })
    const run = await runPendingExports(ctx, quietLog, { pageRows })
    assert.deepEqual(run.ready, [id])
    const paged = await adv.get<string>(`/v1/exports/${id}/download`)
    assert.equal(paged.status, 200)
    assert.equal(paged.text, res.text, `pages of ${pageRows}`)
    assert.equal((await adv.get(`/v1/exports/${id}`)).body.row_count, total)
  }
  const chunks = await db().selectFrom('export_chunks').select(['seq', 'data']).where('export_id', '=', job.id).orderBy('seq').execute()
  assert.ok(chunks.length >= 4, `several chunks (${chunks.length})`)
  assert.deepEqual(chunks.map((c) => c.seq), chunks.map((_, i) => i))
  // Stored deflated, each 256 KiB piece of the CSV on its own; the download serves them inflated.
  assert.equal((await db().selectFrom('export_jobs').select('artifact_encoding').where('export_id', '=', job.id).executeTakeFirstOrThrow()).artifact_encoding, 'deflate-raw')
  const pieces = chunks.map((c) => inflateRawSync(c.data))
  for (const p of pieces.slice(0, -1)) assert.equal(p.length, 256 * 1024)
  assert.ok(chunks.reduce((n, c) => n + c.data.length, 0) < res.text.length / 4, 'compressed in the store')
  assert.equal(Buffer.concat(pieces).toString('utf8'), res.text)
  assert.equal(res.headers.get('x-service-content-sha256'), sha256(res.text))

  const expected = await ledger(adv.userId, new Date(base), new Date(base + 3 * HOUR))
  assert.deepEqual(
    lines.slice(1),
    expected.map((e) => `${e.occurred_at.toISOString()},click,${campaignId},${creativeId},extension,${e.country ?? ''},false,0,`),
    'every event exactly once, in (occurred_at, event_id) order',
  )
  assert.doesNotMatch(res.text, /vk_secret|imp_synthetic/)
})

test('the store renders CSV lines byte for byte like the domain formatter, on awkward values', async () => {
  const adv = await h.advertiser()
  // Every value the store admits in the text columns (migration 0010): tokens of one character up to long ones, every
  // character class, both surfaces, countries and none.
  const tokens = ['a', 'Z', '0', '_', 'cmp_0aZ9', 'crv_' + 'x'.repeat(60), ...fc.sample(fc.stringMatching(/^[A-Za-z0-9_]{1,30}$/), { numRuns: 40, seed: 5 })]
  const surfaces = ['extension', 'terminal']
  const countries = ['DE', 'US', 'ZZ']
  const texts = tokens
  // Timestamps: whole seconds, every millisecond digit pattern, microseconds (truncated, like Date parsing), 1969, years 999
  // and 500 (instants beyond 2^53 µs from the epoch), a leap day.
  const times = [
    '2026-06-01 00:00:00+00', '2026-06-01 00:00:00.001+00', '2026-06-01 00:00:00.01+00', '2026-06-01 00:00:00.1+00',
    '2026-06-01 00:00:00.999+00', '2026-06-01 00:00:00.123456+00', '2026-06-01 00:00:00.999999+00', '2026-06-01 23:59:59.5+02',
    '1969-12-31 23:59:59.999+00', '0999-03-04 05:06:07.089+00', '2028-02-29 12:00:00+00', '2026-06-01 00:00:00.000500+00', '0500-01-01 00:00:00.000001+00', '0500-01-01 00:00:00.000003+00',
  ]
  // Non-billable views carry every reason, current and stored before issue 25 (v3 writes the current name).
  const reasons = ['short_dwell', 'dwell_exceeds_elapsed', 'viewer_frequency', 'inventory_exhausted', 'campaign_cancelled', 'too_fast', 'block_full']
  const rows = texts.map((t, i) => {
    const type = (['click', 'impression', 'view', 'click', 'repeat_view', 'expired_view'] as const)[i % 6]!
    const reason = type === 'view' ? reasons[i % reasons.length]! : type === 'repeat_view' ? 'repeat' : type === 'expired_view' ? 'expired' : null
    return sql`(${times[i % times.length]}::timestamptz, ${type}, ledger_claim_key(${`imp_awkward_${i}`}), ${adv.userId}, ${t}, ${texts[(i + 1) % texts.length]},
      ${surfaces[i % 2]}, ${i % 5 === 0 ? null : countries[i % 3]}, ${type === 'impression'},
      ${type === 'impression' ? [0, 1, 2500, 9_007_199_254_740_991][i % 4]! : 0}::bigint, ${`vk_${i}`}, ${reason})`
  })
  await sql`INSERT INTO ledger_events (occurred_at, event_type, impression_key, user_id, campaign_id, creative_id, surface, country, billable, debit_micros, viewer_key, reason)
    VALUES ${sql.join(rows)}`.execute(db())
  const window = {
    userId: adv.userId,
    start: new Date('0001-01-01T00:00:00Z'),
    end: new Date('2100-01-01T00:00:00Z'),
    filters: { campaignIds: null, creativeIds: null, surfaces: null, countries: null },
    leaveOut: [],
  }
  const stored = await db()
    .selectFrom('ledger_events')
    .select(['occurred_at', 'event_type', 'campaign_id', 'creative_id', 'surface', 'country', 'billable', 'debit_micros', 'reason'])
    .where('user_id', '=', adv.userId)
    .orderBy('occurred_at')
    .orderBy('event_id')
    .execute()
  assert.equal(stored.length, texts.length)
  for (const version of EXPORT_SCHEMA_VERSIONS) {
    // v1 and v2 leave out the repeat and late view reports (migration 0025); v3 and v4 list every event.
    const versionWindow = { ...window, leaveOut: eventTypesLeftOut(version) }
    const listed = stored.filter((r) => !(versionWindow.leaveOut as readonly string[]).includes(r.event_type))
    assert.equal(listed.length < stored.length, !hasReasons(version))
    for (const billingCountry of hasBillingCountry(version) ? [null, 'DE', 'a,"b"\r\n'] : [null]) {
      const expected = listed.map((r) => rowLine(version, r, billingCountry)).join('')
      const line = exportLineSql(version, hasBillingCountry(version) ? csvField(billingCountry ?? '') : null)
      const whole = await readLedgerExportText(db(), versionWindow, null, null, line)
      assert.equal(whole.rows, listed.length)
      assert.equal(whole.text, expected, `${version}, billing country ${JSON.stringify(billingCountry)}`)
      // The same text across pages of 7 (many events share an instant; microsecond instants included).
      // Many events share an instant here, so pages run past 7 and the plan's count is a lower bound.
      const plan = await planLedgerExport(db(), versionWindow, 1000, 7)
      assert.ok(plan.rows <= listed.length && plan.rows >= 7 * plan.pageEnds.length, `${plan.rows} of ${listed.length}`)
      assert.ok(plan.pageEnds.length >= 2, 'several pages')
      assert.deepEqual([...plan.pageEnds].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)), plan.pageEnds, 'page ends in order')
      assert.equal(new Set(plan.pageEnds).size, plan.pageEnds.length, 'no empty page')
      let text = ''
      let rows = 0
      for (const [k, through] of [...plan.pageEnds, null].entries()) {
        const page = await readLedgerExportText(db(), versionWindow, plan.pageEnds[k - 1] ?? null, through, line)
        rows += page.rows
        text += page.text
      }
      assert.equal(rows, listed.length)
      assert.equal(text, expected)
    }
  }
  // An event recorded into the window after the plan joins a page; no planned event is skipped.
  const plan = await planLedgerExport(db(), window, 1000, 7)
  const line = exportLineSql('ledger-export-v1', null)
  await sql`INSERT INTO ledger_events (occurred_at, event_type, impression_key, user_id, campaign_id, creative_id, surface, country, billable, debit_micros, viewer_key)
    VALUES ('2026-06-01 00:00:00.0005+00', 'click', ledger_claim_key('imp_awkward_late'), ${adv.userId}, 'late', 'late', 'terminal', NULL, false, 0, 'vk_late')`.execute(db())
  let paged = ''
  for (const [k, through] of [...plan.pageEnds, null].entries()) paged += (await readLedgerExportText(db(), window, plan.pageEnds[k - 1] ?? null, through, line)).text
  const current = await readLedgerExportText(db(), window, null, null, line)
  assert.equal(current.rows, stored.length + 1)
  assert.equal(paged, current.text)
  // And an empty page is empty.
  const none = await readLedgerExportText(db(), { ...window, start: new Date('2099-01-01T00:00:00Z') }, null, null, line)
  assert.deepEqual(none, { rows: 0, text: '' })
  assert.deepEqual(await planLedgerExport(db(), { ...window, start: new Date('2099-01-01T00:00:00Z') }, 10, 7), { rows: 0, pageEnds: [] })
  // Counting stops at the cap (the row limit + 1): two pages of 7 are enough to know there are more than 10.
  const capped = await planLedgerExport(db(), window, 11, 7)
  assert.deepEqual([capped.rows, capped.pageEnds.length], [14, 2])
})

test('an artifact stored before compression (identity) still downloads byte for byte', async () => {
  const adv = await h.advertiser()
  const id = await insertJob(adv, 'running', now())
  const csv = `${V2_HEADER}\r\n` + 'x'.repeat(300_000) + '\r\n'
  const bytes = Buffer.from(csv)
  const pieces = [bytes.subarray(0, 256 * 1024), bytes.subarray(256 * 1024)]
  await db().insertInto('export_chunks').values(pieces.map((data, seq) => ({ export_id: id, seq, data }))).execute()
  await db()
    .updateTable('export_jobs')
    .set({ status: 'ready', row_count: 1, size_bytes: bytes.length, sha256: sha256(csv), finished_at: now() })
    .where('export_id', '=', id)
    .execute()
  const job = await db().selectFrom('export_jobs').select('artifact_encoding').where('export_id', '=', id).executeTakeFirstOrThrow()
  assert.equal(job.artifact_encoding, 'identity', 'the column default: how artifacts were stored before migration 0011')
  const res = await adv.get<string>(`/v1/exports/${id}/download`)
  assert.equal(res.status, 200)
  assert.equal(res.text, csv)
  assert.equal(res.headers.get('x-service-content-sha256'), sha256(csv))
})

test('the store refuses any exported text the CSV would have to quote (the export renders tokens as they are)', async () => {
  const adv = await h.advertiser()
  const good = { campaign_id: 'cmp_ok', creative_id: 'crv_ok', surface: 'extension', country: 'DE' as string | null }
  const insert = (values: typeof good, i: number) =>
    db()
      .insertInto('ledger_events')
      .values({ occurred_at: now(), event_type: 'click', impression_key: impressionKey(`imp_refused_${i}`), user_id: adv.userId, billable: false, viewer_key: 'vk', ...values })
      .execute()
  await insert(good, 0)
  let i = 1
  const tokenSources = EXPORT_FIELDS.filter((f) => f.kind === 'token' || f.kind === 'optional_token').map((f) => f.source)
  assert.deepEqual(tokenSources, ['event_type', 'campaign_id', 'creative_id', 'surface', 'country'])
  for (const column of ['campaign_id', 'creative_id', 'surface', 'country'] as const) {
    for (const bad of [...CSV_QUOTE_TRIGGERS.map((c) => `${good[column]}${c}`), `${good[column]} `, '', column === 'country' ? 'de' : 'ü']) {
      await assert.rejects(insert({ ...good, [column]: bad }, i++), (err: { code?: string }) => err.code === '23514', `${column} = ${JSON.stringify(bad)}`)
    }
  }
  await assert.rejects(insert({ ...good, surface: 'web' }, i++), (err: { code?: string }) => err.code === '23514')
  await assert.rejects(
    sql`INSERT INTO ledger_events (occurred_at, event_type, impression_key, user_id, campaign_id, creative_id, surface, billable, viewer_key)
      VALUES (now(), 'offer,x', ledger_claim_key('imp_refused_type'), ${adv.userId}, 'c', 'c', 'terminal', false, 'vk')`.execute(db()),
    (err: { code?: string }) => err.code === '23514',
  )
})

test('after 24 hours the download is 410 (also once the artifact is purged); the status stays readable', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  await campaign(adv, country)
  const start = now()
  await deliver(h, country, 1)
  const { job } = await exportCsv(adv, { start: start.toISOString(), end: new Date(now().getTime() + 1).toISOString() })

  await h.admin.post('/admin/v1/clock', { now: job.expires_at })
  const expired = await adv.get(`/v1/exports/${job.id}/download`)
  assert.equal(expired.status, 410, expired.text)
  assert.deepEqual(expired.body.detail, { field: 'export_id', reason: 'expired', expires_at: job.expires_at })
  const status = await adv.get(`/v1/exports/${job.id}`)
  assert.equal(status.status, 200)
  assert.equal(status.body.status, 'ready', 'a job keeps its status after expiry')
  assert.equal(status.body.expires_at, job.expires_at)

  const purge = await h.admin.post('/admin/v1/jobs/expiry/run')
  assert.equal(purge.status, 200, purge.text)
  assert.ok(purge.body.result.export_artifacts_deleted >= 1)
  const left = await db().selectFrom('export_chunks').select('seq').where('export_id', '=', job.id).execute()
  assert.deepEqual(left, [])
  assert.equal((await adv.get(`/v1/exports/${job.id}/download`)).status, 410)
  assert.equal((await adv.get(`/v1/exports/${job.id}`)).body.status, 'ready')

  // A week after expiry the job row goes too (the daily expiry run): then it is an unknown id.
  await h.admin.post('/admin/v1/clock', { now: iso(Date.parse(job.expires_at) + 7 * 24 * HOUR + 1) })
  assert.equal((await h.admin.post('/admin/v1/jobs/expiry/run')).status, 200)
  assert.equal((await adv.get(`/v1/exports/${job.id}`)).status, 404)
  assert.equal((await adv.get(`/v1/exports/${job.id}/download`)).status, 404)
})

test('the exports component disabled: POST and download 503, status readable, queued jobs wait', async () => {
  const adv = await h.advertiser()
  const window = { start: iso(now().getTime() - HOUR), end: now().toISOString() }
  const ready = await settled(adv, (await queue(adv, window)).id)
  const waiting = await insertJob(adv, 'queued')
  const put = async (state: string) => assert.equal((await h.admin.put('/admin/v1/components/exports', { state })).status, 200)
  await put('disabled')
  try {
    assert.equal((await h.anonymous.get('/v1/status')).body.components.exports, 'disabled')
    const post = await adv.post('/v1/exports', window)
    assert.equal(post.status, 503)
    assert.match(post.body.detail, /exports are disabled/)
    assert.equal((await adv.get(`/v1/exports/${ready.id}/download`)).status, 503)
    assert.equal((await adv.get(`/v1/exports/${ready.id}`)).status, 200)
    const run = await h.admin.post('/admin/v1/jobs/exports/run')
    assert.equal(run.body.result.paused, true)
    assert.equal((await adv.get(`/v1/exports/${waiting}`)).body.status, 'queued')
  } finally {
    await put('operational')
  }
  await h.admin.post('/admin/v1/jobs/exports/run')
  assert.equal((await adv.get(`/v1/exports/${waiting}`)).body.status, 'ready')
})

test('exports are reads: no write access needed, and they count against the read rate limit', async () => {
  const adv = await h.advertiser({ approved: false, terms: false, billing: 'none' })
  const res = await adv.post('/v1/exports', { start: iso(now().getTime() - HOUR), end: now().toISOString() })
  assert.equal(res.status, 202, res.text)
  assert.match(res.headers.get('ratelimit-policy') ?? '', /q=100000/)
})
