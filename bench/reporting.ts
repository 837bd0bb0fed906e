/**
 * Reporting benchmarks (`npm run bench:reporting`): not timed tests, a
 * measurement. For each store — the embedded PGlite store in a temp DATA_DIR,
 * and PostgreSQL when BENCH_DATABASE_URL (or TEST_DATABASE_URL) is set (a
 * database of its own is created and dropped) — it:
 *
 *  1. migrates, generates and loads the ledger of one advertiser account
 *     (bench/generate-ledger.ts: COPY; load time and rows/s), runs the rollup
 *     job over every closed day and times one busy day's rollup (5 runs);
 *  2. starts the service in-process (createService, CLOCK=manual just after the
 *     data, LOG_LEVEL=warn), raises the read rate limit, rotates the account's
 *     key through the operator API;
 *  3. measures over real HTTP (sequential, after 3 warm-ups): GET /v1/stats for
 *     the 2-year daily window (must be served_from daily_rollup) and a 31-day
 *     hourly window (served_from ledger; its window_too_costly estimate is read
 *     first by lowering stats_max_live_events, then the limit is raised so the
 *     window is served), plus a few informative extras;
 *  4. when src/http/routes/v1/exports.ts exists: exports a window of ≈250,000
 *     rows (POST /v1/exports → poll → download), sampling RSS/heap;
 *  5. EXPLAIN (ANALYZE, BUFFERS) of the exact SQL behind the measured calls
 *     (captured from src/store/* through a dry-run Kysely), into .tmp/.
 *
 * Options: --events N (both stores, default 10,000,000), --pg-events N,
 * --embedded-events N, --stores embedded,postgres, --seed, --requests (30+),
 * --keep (keep the PostgreSQL database / DATA_DIR for inspection), --reuse URL
 * (measure again on a database kept by --keep: no load, no rollups),
 * --reuse-data-dir DIR (the same for an embedded DATA_DIR kept by --keep),
 * --embedded-analyze (also measure the embedded store after VACUUM ANALYZE).
 * Results: a table on stdout; JSON in .tmp/bench-reporting.json (one entry per
 * store, merged with an earlier run's other store).
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import pg from 'pg'
import {
  CompiledQuery,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
} from 'kysely'
import { loadSettings } from '../src/platform/env.ts'
import { createService, type Service } from '../src/start/service.ts'
import { openStore, type Db } from '../src/store/db.ts'
import type { Database } from '../src/store/schema.ts'
import { dayWindowViewers, edgeViewersNotIn, estimateEventsPerDay, hourlyRollupPoints, ledgerMetrics, rollupMetrics } from '../src/store/stats.ts'
import type { ReportFilters } from '../src/domain/report-filters.ts'
import { everyProcessCpu } from '../tools/lib/cpu.ts'
import { jsonRequest } from '../tools/lib/http.ts'
import { createDatabase } from '../tools/lib/postgres.ts'
import { root } from '../tools/lib/processes.ts'
import { ascending, mean, nearestRank } from '../tools/lib/stats.ts'
import { DAY_MS, DEFAULT_OPTIONS, loadLedger, runAndTimeRollups, type LoadReport, type RollupReport } from './generate-ledger.ts'
const ADMIN_TOKEN = 'bench-reporting-admin-token'
const EXPORT_ROWS = 250_000

const { values: args } = parseArgs({
  options: {
    events: { type: 'string' },
    'pg-events': { type: 'string' },
    'embedded-events': { type: 'string' },
    stores: { type: 'string' },
    seed: { type: 'string', default: String(DEFAULT_OPTIONS.seed) },
    requests: { type: 'string', default: '40' },
    warmups: { type: 'string', default: '3' },
    keep: { type: 'boolean', default: false },
    'embedded-analyze': { type: 'boolean', default: false },
    experiments: { type: 'boolean', default: false },
    /** Measure again on a PostgreSQL database kept by --keep (no load, no rollups). */
    reuse: { type: 'string' },
    /** Measure again on an embedded DATA_DIR kept by --keep (no load, no rollups). */
    'reuse-data-dir': { type: 'string' },
    /** Only the experiments, on an already loaded database (a kept --keep run). */
    'experiments-on': { type: 'string' },
  },
})

const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? null
const stores = (args.stores ?? (adminUrl ? 'embedded,postgres' : 'embedded')).split(',') as ('embedded' | 'postgres')[]
const baseEvents = Number(args.events ?? DEFAULT_OPTIONS.events)
const eventsFor = (s: 'embedded' | 'postgres') => Number((s === 'postgres' ? args['pg-events'] : args['embedded-events']) ?? baseEvents)
const REQUESTS = Math.max(30, Number(args.requests))
const WARMUPS = Number(args.warmups)
const log = (m: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${m}`)

// ---------------------------------------------------------------- CPU: is the machine shared?

/**
 * CPU used during a phase, in cores (CPU seconds / wall seconds): this
 * process, PostgreSQL server processes, and everything else (another
 * benchmark or a test run on the same 2-core machine shows up there).
 */
function cpuMeter() {
  let before = everyProcessCpu()
  let t = performance.now()
  return {
    reset() {
      before = everyProcessCpu()
      t = performance.now()
    },
    read() {
      const after = everyProcessCpu()
      const wall = (performance.now() - t) / 1000
      const by = { bench: 0, postgres: 0, other: 0 }
      const others = new Map<string, number>()
      for (const [pid, a] of after) {
        const used = a.s - (before.get(pid)?.s ?? 0)
        if (used <= 0) continue
        if (pid === process.pid) by.bench += used
        else if (a.comm === 'postgres') by.postgres += used
        else {
          by.other += used
          others.set(a.comm, (others.get(a.comm) ?? 0) + used)
        }
      }
      const cores = (x: number) => Math.round((x / wall) * 100) / 100
      const top = [...others].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([c, x]) => `${c} ${cores(x)}`)
      return { wall_s: Math.round(wall * 10) / 10, bench_cores: cores(by.bench), postgres_cores: cores(by.postgres), other_cores: cores(by.other), other_top: top }
    },
  }
}

/**
 * Waits (at most `maxMs`) until processes other than this one and PostgreSQL
 * use less than `maxOtherCores` over a 2-second sample: another benchmark
 * running on the same 2-core machine would otherwise be measured too.
 * Answers how long it waited and the last sample.
 */
async function waitForIdle(label: string, maxOtherCores = 0.25, maxMs = 8 * 60_000) {
  const t0 = performance.now()
  for (;;) {
    const cpu = cpuMeter()
    await new Promise((r) => setTimeout(r, 2000))
    const sample = cpu.read()
    const waited = Math.round((performance.now() - t0) / 1000)
    if (sample.other_cores <= maxOtherCores || performance.now() - t0 > maxMs) {
      if (waited > 3) log(`  (${label}: waited ${waited} s for the machine; other processes now ${sample.other_cores} cores)`)
      return { waited_s: waited, other_cores: sample.other_cores, other_top: sample.other_top }
    }
  }
}

// ---------------------------------------------------------------- HTTP helpers

interface Timing {
  n: number
  p50: number
  p95: number
  max: number
  min: number
  mean: number
}

function summarize(ms: number[]): Timing {
  const s = ascending(ms)
  const r = (x: number) => Math.round(x * 10) / 10
  return { n: s.length, p50: r(nearestRank(s, 0.5)), p95: r(nearestRank(s, 0.95)), max: r(s[s.length - 1]!), min: r(s[0]!), mean: r(mean(s)) }
}

async function call(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const r = await jsonRequest(base, method, path, { body, headers, retryGet: true })
  // A body that is not JSON is kept as its text.
  const json = r.json !== undefined ? r.json : r.text ? r.text : null
  return { status: r.status, body: json as Record<string, unknown>, bytes: r.text.length }
}

function findKey(o: unknown, key: string): unknown {
  if (o === null || typeof o !== 'object') return undefined
  if (key in o) return (o as Record<string, unknown>)[key]
  for (const v of Object.values(o)) {
    const f = findKey(v, key)
    if (f !== undefined) return f
  }
  return undefined
}

interface StatsMeasurement extends Timing {
  label: string
  path: string
  served_from: string
  points: number
  response_bytes: number
  totals: unknown
}

async function measureStats(
  base: string,
  auth: Record<string, string>,
  label: string,
  path: string,
  n: number,
  expect: string,
  warmups = WARMUPS,
): Promise<StatsMeasurement> {
  const idle = await waitForIdle(label)
  for (let i = 0; i < warmups; i++) {
    const r = await call(base, 'GET', path, auth)
    if (r.status !== 200) throw new Error(`${label}: ${r.status} ${JSON.stringify(r.body)}`)
  }
  const times: number[] = []
  let last: Awaited<ReturnType<typeof call>> | null = null
  const cpu = cpuMeter()
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    last = await call(base, 'GET', path, auth)
    times.push(performance.now() - t)
    if (last.status !== 200) throw new Error(`${label}: ${last.status} ${JSON.stringify(last.body)}`)
  }
  const body = last!.body as { served_from: string; points: unknown[]; totals: unknown }
  if (body.served_from !== expect) throw new Error(`${label}: served_from ${body.served_from}, expected ${expect}`)
  const m = { label, path, served_from: body.served_from, points: body.points.length, response_bytes: last!.bytes, totals: body.totals, ...summarize(times), cpu: cpu.read(), idle_wait: idle }
  log(
    `  ${label}: p50 ${m.p50} ms, p95 ${m.p95} ms, max ${m.max} ms (${m.served_from}, ${m.points} points); ` +
      `CPU cores bench ${m.cpu.bench_cores}, postgres ${m.cpu.postgres_cores}, other ${m.cpu.other_cores} ${m.cpu.other_top.join(', ')}`,
  )
  return m
}

// ---------------------------------------------------------------- EXPLAIN of the service's own SQL

/** A Kysely that executes nothing and records the compiled SQL of every query. */
function dryRun(): { db: Db; captured: CompiledQuery[] } {
  const captured: CompiledQuery[] = []
  const db = new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    log: (e) => {
      if (e.level === 'query') captured.push(e.query)
    },
  })
  return { db, captured }
}

async function explain(
  db: Db,
  label: string,
  queries: readonly CompiledQuery[],
  inRolledBackTransaction = false,
): Promise<{ label: string; sql: string; executionMs: number | null; plan: string }[]> {
  const out: { label: string; sql: string; executionMs: number | null; plan: string }[] = []
  const runAll = async (d: Db) => {
    for (const q of queries) {
      const r = await d.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`EXPLAIN (ANALYZE, BUFFERS) ${q.sql}`, [...q.parameters]))
      const plan = r.rows.map((x) => x['QUERY PLAN']).join('\n')
      const m = /Execution Time: ([\d.]+) ms/.exec(plan)
      out.push({ label, sql: q.sql.replace(/\s+/g, ' ').trim(), executionMs: m ? Number(m[1]) : null, plan })
    }
  }
  if (!inRolledBackTransaction) {
    await runAll(db)
    return out
  }
  // Writes (the rollup's DELETEs and INSERT … SELECTs) run in one transaction that is rolled back.
  const rollback = new Error('rollback')
  await db
    .transaction()
    .execute(async (trx) => {
      await runAll(trx)
      throw rollback
    })
    .catch((err: unknown) => {
      if (err !== rollback) throw err
    })
  return out
}

// ---------------------------------------------------------------- exports

interface MemSample {
  rss: number
  heapUsed: number
  external: number
}

function memSampler() {
  const samples: { phase: string; m: MemSample }[] = []
  let phase = 'idle'
  const take = () => {
    const u = process.memoryUsage()
    samples.push({ phase, m: { rss: u.rss, heapUsed: u.heapUsed, external: u.external } })
  }
  const timer = setInterval(take, 20)
  return {
    set(p: string) {
      phase = p
      take()
    },
    stop() {
      clearInterval(timer)
      take()
      const mb = (b: number) => Math.round((b / 1048576) * 10) / 10
      const by = (p: string) => samples.filter((s) => s.phase === p).map((s) => s.m)
      const peak = (xs: MemSample[]) => ({
        rss_mb: mb(Math.max(...xs.map((x) => x.rss))),
        heap_used_mb: mb(Math.max(...xs.map((x) => x.heapUsed))),
        external_mb: mb(Math.max(...xs.map((x) => x.external))),
        samples: xs.length,
      })
      const base = by('baseline')
      return {
        baseline: peak(base.length ? base : [samples[0]!.m]),
        job_peak: peak(by('job').length ? by('job') : [samples[0]!.m]),
        download_peak: peak(by('download').length ? by('download') : [samples[0]!.m]),
        after: peak([samples[samples.length - 1]!.m]),
      }
    },
  }
}

/**
 * The export window: ends at the data's end and holds as close to 250,000 rows as possible (never more: the job refuses
 * more than export_max_rows). Found once, before the first export: its two scans of up to 31 days would otherwise evict
 * the window's pages from the store's cache between the warm-up and the measured runs.
 */
async function exportWindow(service: Service, userId: string, endMs: number): Promise<{ start: Date; end: Date; expected: number }> {
  const db = service.store.db
  const end = new Date(endMs)
  const maxStart = new Date(endMs - 31 * DAY_MS)
  const nth = await sql<{ at: Date }>`
    SELECT occurred_at AS at FROM ledger_events
    WHERE user_id = ${userId} AND occurred_at < ${end} AND occurred_at >= ${maxStart}
    ORDER BY occurred_at DESC, event_id DESC OFFSET ${EXPORT_ROWS - 1} LIMIT 1`.execute(db)
  let start = nth.rows[0] ? new Date(nth.rows[0].at) : maxStart
  const count = async (s: Date) =>
    Number(
      (
        await sql<{ n: string }>`SELECT count(*)::text AS n FROM ledger_events WHERE user_id = ${userId} AND occurred_at >= ${s} AND occurred_at < ${end}`.execute(
          db,
        )
      ).rows[0]!.n,
    )
  let expected = await count(start)
  if (expected > EXPORT_ROWS) {
    start = new Date(start.getTime() + 1)
    expected = await count(start)
  }
  return { start, end, expected }
}

async function measureExport(base: string, auth: Record<string, string>, window: { start: Date; end: Date; expected: number }, run: number) {
  const { start, end, expected } = window
  const label = run === 0 ? 'export warm-up (not measured)' : `export #${run}`
  log(`  ${label}: window ${start.toISOString()} → ${end.toISOString()} (${expected.toLocaleString('en-US')} rows)`)

  // The machine is checked idle once, before the warm-up; the measured runs follow it back to back (as /stats' requests
  // follow their warm-ups). After a couple of idle seconds this VM runs the next second of work ~20% slower (measured:
  // an export took 0.98-1.09 s after 2.5 s idle, 0.80-0.84 s after 2.5 s of busy CPU), which the warm-up absorbs.
  const idle = run === 0 ? await waitForIdle(label) : null
  const mem = memSampler()
  mem.set('baseline')
  await new Promise((r) => setTimeout(r, 200))
  mem.set('job')
  const cpu = cpuMeter()
  const t0 = performance.now()
  const queued = await call(base, 'POST', '/v1/exports', auth, { start: start.toISOString(), end: end.toISOString() })
  if (queued.status !== 202) throw new Error(`POST /v1/exports: ${queued.status} ${JSON.stringify(queued.body)}`)
  const id = queued.body.id as string
  let status = queued.body
  let polls = 0
  while (status.status === 'queued' || status.status === 'running') {
    await new Promise((r) => setTimeout(r, 10))
    status = (await call(base, 'GET', `/v1/exports/${id}`, auth)).body
    polls++
  }
  const readyMs = performance.now() - t0
  const jobCpu = cpu.read()
  if (status.status !== 'ready') throw new Error(`export ${id} ended ${String(status.status)}: ${JSON.stringify(status)}`)

  mem.set('download')
  const t1 = performance.now()
  const res = await fetch(`${base}/v1/exports/${id}/download`, { headers: auth })
  if (res.status !== 200 || !res.body) throw new Error(`download: ${res.status}`)
  const hash = createHash('sha256')
  let bytes = 0
  let lines = 0
  let firstByteMs: number | null = null
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    if (firstByteMs === null) firstByteMs = performance.now() - t1
    hash.update(chunk)
    bytes += chunk.length
    for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++
  }
  const downloadMs = performance.now() - t1
  const memory = mem.stop()
  const rows = lines - 1
  const sha = hash.digest('hex')
  const result = {
    run,
    window: { start: start.toISOString(), end: end.toISOString() },
    rows,
    row_count: status.row_count,
    size_bytes: status.size_bytes,
    sha256_ok: sha === status.sha256,
    queue_to_ready_ms: Math.round(readyMs),
    generate_rows_per_sec: Math.round(rows / (readyMs / 1000)),
    polls,
    download_ms: Math.round(downloadMs),
    download_first_byte_ms: Math.round(firstByteMs ?? 0),
    download_rows_per_sec: Math.round(rows / (downloadMs / 1000)),
    download_mb_per_sec: Math.round((bytes / 1048576 / (downloadMs / 1000)) * 10) / 10,
    end_to_end_rows_per_sec: Math.round(rows / ((readyMs + downloadMs) / 1000)),
    job_cpu: jobCpu,
    idle_wait: idle,
    memory,
  }
  log(
    `  ${label}: ${rows.toLocaleString('en-US')} rows, ready in ${result.queue_to_ready_ms} ms (${result.generate_rows_per_sec.toLocaleString('en-US')} rows/s), ` +
      `download ${result.download_ms} ms (${result.download_rows_per_sec.toLocaleString('en-US')} rows/s), RSS ${memory.baseline.rss_mb} → ` +
      `${Math.max(memory.job_peak.rss_mb, memory.download_peak.rss_mb)} MB, heap peak ${memory.job_peak.heap_used_mb} MB, ` +
      `sha256 ${result.sha256_ok ? 'ok' : 'MISMATCH'}; job CPU cores bench ${jobCpu.bench_cores}, postgres ${jobCpu.postgres_cores}, other ${jobCpu.other_cores}`,
  )
  return result
}

// ---------------------------------------------------------------- experiments (--experiments)

/**
 * Measures candidate src changes on the loaded data without touching the
 * service's tables: scratch tables `bench_*` are built from the rollups, then
 * each query runs once to warm up and 5 times timed (median). Each candidate
 * returns the same exact number as the current query (checked).
 */
async function experiments(db: Db, userId: string, fromDay: string, toDay: string, w31: { start: Date; end: Date }) {
  const time = async (q: ReturnType<typeof sql>) => {
    await q.execute(db)
    const runs: number[] = []
    let rows: unknown[] = []
    for (let i = 0; i < 5; i++) {
      const t = performance.now()
      rows = (await q.execute(db)).rows
      runs.push(performance.now() - t)
    }
    runs.sort((a, b) => a - b)
    return { ms: Math.round(runs[2]! * 10) / 10, rows }
  }
  const setup = async (label: string, q: ReturnType<typeof sql>) => {
    const t = performance.now()
    await q.execute(db)
    const ms = Math.round(performance.now() - t)
    log(`  setup ${label}: ${ms} ms`)
    return { label, ms }
  }
  const win = sql`user_id = ${userId} AND day >= ${fromDay}::date AND day < ${toDay}::date`
  const setups = []
  for (const t of ['bench_viewer_days_prev', 'bench_daily_account_viewers', 'bench_account_viewer_days_int', 'bench_viewer_ids', 'bench_account_viewer_days'])
    await sql`DROP TABLE IF EXISTS ${sql.table(t)}`.execute(db)
  setups.push(
    await setup(
      'bench_account_viewer_days (account-level viewer per day, COLLATE "C")',
      sql`CREATE TABLE bench_account_viewer_days AS SELECT DISTINCT user_id, day, viewer_key COLLATE "C" AS viewer_key FROM daily_viewers`,
    ),
  )
  setups.push(await setup('  its primary key', sql`ALTER TABLE bench_account_viewer_days ADD PRIMARY KEY (user_id, day, viewer_key)`))
  setups.push(
    await setup(
      'bench_viewer_ids (viewer dictionary: int4 per account and key)',
      sql`CREATE TABLE bench_viewer_ids AS SELECT user_id, viewer_key, (row_number() OVER ())::int AS vid FROM (SELECT DISTINCT user_id, viewer_key FROM bench_account_viewer_days) k`,
    ),
  )
  setups.push(
    await setup(
      'bench_account_viewer_days_int (day, int4 viewer id, prev active day)',
      sql`CREATE TABLE bench_account_viewer_days_int AS
        SELECT d.user_id, d.day, i.vid, lag(d.day) OVER (PARTITION BY d.user_id, i.vid ORDER BY d.day) AS prev_day
        FROM bench_account_viewer_days d JOIN bench_viewer_ids i USING (user_id, viewer_key)`,
    ),
  )
  setups.push(await setup('  its primary key (user_id, day, vid) + index (user_id, day) INCLUDE (prev_day)', sql`ALTER TABLE bench_account_viewer_days_int ADD PRIMARY KEY (user_id, day, vid)`))
  await sql`CREATE INDEX bench_avdi_prev ON bench_account_viewer_days_int (user_id, day) INCLUDE (prev_day)`.execute(db)
  setups.push(
    await setup(
      'bench_daily_account_viewers (per-day exact distinct, unfiltered)',
      sql`CREATE TABLE bench_daily_account_viewers AS SELECT user_id, day, count(*)::int AS viewers FROM bench_account_viewer_days GROUP BY 1, 2`,
    ),
  )
  await sql`ALTER TABLE bench_daily_account_viewers ADD PRIMARY KEY (user_id, day)`.execute(db)
  setups.push(await setup('VACUUM ANALYZE of the scratch tables', sql`VACUUM (ANALYZE) bench_account_viewer_days, bench_account_viewer_days_int, bench_daily_account_viewers`))
  const sizes = (
    await sql<{ t: string; n: string; bytes: string }>`
      SELECT c.relname AS t, c.reltuples::bigint::text AS n, pg_total_relation_size(c.oid)::text AS bytes FROM pg_class c
      WHERE c.relname IN ('daily_viewers', 'bench_account_viewer_days', 'bench_account_viewer_days_int', 'bench_daily_account_viewers')`.execute(db)
  ).rows

  const results: { label: string; ms: number; value: string }[] = []
  const one = async (label: string, q: ReturnType<typeof sql>) => {
    const r = await time(q)
    const value = JSON.stringify(r.rows.length === 1 ? Object.values(r.rows[0] as object)[0] : `${r.rows.length} rows`)
    results.push({ label, ms: r.ms, value })
    log(`  ${label}: ${r.ms} ms → ${value}`)
  }
  // 2-year totals: unique viewers over the whole window.
  await one('totals now: count(DISTINCT viewer_key) FROM daily_viewers', sql`SELECT count(DISTINCT viewer_key) AS v FROM daily_viewers WHERE ${win}`)
  await one('totals: count(DISTINCT viewer_key COLLATE "C") FROM daily_viewers', sql`SELECT count(DISTINCT viewer_key COLLATE "C") AS v FROM daily_viewers WHERE ${win}`)
  await one('totals: count(*) FROM (… GROUP BY viewer_key) (hash aggregate)', sql`SELECT count(*) AS v FROM (SELECT viewer_key FROM daily_viewers WHERE ${win} GROUP BY viewer_key) s`)
  await one('totals: count(DISTINCT) over account-level viewer-days (C)', sql`SELECT count(DISTINCT viewer_key) AS v FROM bench_account_viewer_days WHERE ${win}`)
  await one('totals: GROUP BY over account-level viewer-days (C)', sql`SELECT count(*) AS v FROM (SELECT viewer_key FROM bench_account_viewer_days WHERE ${win} GROUP BY viewer_key) s`)
  await one('totals: count(DISTINCT vid) over int4 viewer-days', sql`SELECT count(DISTINCT vid) AS v FROM bench_account_viewer_days_int WHERE ${win}`)
  await one('totals: GROUP BY vid over int4 viewer-days', sql`SELECT count(*) AS v FROM (SELECT vid FROM bench_account_viewer_days_int WHERE ${win} GROUP BY vid) s`)
  await one(
    'totals: count(*) of first-in-window viewer-days (prev_day < start)',
    sql`SELECT count(*) AS v FROM bench_account_viewer_days_int WHERE ${win} AND (prev_day IS NULL OR prev_day < ${fromDay}::date)`,
  )
  // 2-year daily points: unique viewers per day.
  await one('points now: per-day count(DISTINCT) FROM daily_viewers', sql`SELECT date_trunc('day', day)::date::text AS b, count(DISTINCT viewer_key) AS v FROM daily_viewers WHERE ${win} GROUP BY 1`)
  await one('points: per-day count(DISTINCT … COLLATE "C") FROM daily_viewers', sql`SELECT day, count(DISTINCT viewer_key COLLATE "C") AS v FROM daily_viewers WHERE ${win} GROUP BY 1`)
  await one('points: precomputed per-day counts', sql`SELECT day, viewers AS v FROM bench_daily_account_viewers WHERE ${win}`)
  // 31-day hourly from the ledger.
  const lw = sql`e.user_id = ${userId} AND e.occurred_at >= ${w31.start} AND e.occurred_at < ${w31.end}`
  const metricCols = (distinct: ReturnType<typeof sql>) => sql`count(*) AS events, count(*) FILTER (WHERE e.event_type = 'impression') AS billable,
      coalesce(sum(least(e.dwell_ms, 10000) / 1000) FILTER (WHERE e.event_type IN ('impression', 'view')), 0) AS ticks,
      count(*) FILTER (WHERE e.event_type = 'click') AS clicks, coalesce(sum(e.debit_micros), 0) AS spend, ${distinct} AS viewers`
  await one('31d hourly now, points', sql`SELECT date_trunc('hour', e.occurred_at, 'UTC') AS b, ${metricCols(sql`count(DISTINCT e.viewer_key)`)} FROM ledger_events e WHERE ${lw} GROUP BY 1`)
  await one('31d hourly now, totals', sql`SELECT ${metricCols(sql`count(DISTINCT e.viewer_key)`)} FROM ledger_events e WHERE ${lw}`)
  await one(
    '31d hourly: points + totals in one scan (GROUPING SETS), COLLATE "C"',
    sql`SELECT date_trunc('hour', e.occurred_at, 'UTC') AS b, ${metricCols(sql`count(DISTINCT e.viewer_key COLLATE "C")`)} FROM ledger_events e WHERE ${lw} GROUP BY GROUPING SETS ((1), ())`,
  )
  await one('31d hourly: points, COLLATE "C"', sql`SELECT date_trunc('hour', e.occurred_at, 'UTC') AS b, ${metricCols(sql`count(DISTINCT e.viewer_key COLLATE "C")`)} FROM ledger_events e WHERE ${lw} GROUP BY 1`)
  await one('31d hourly: totals, COLLATE "C"', sql`SELECT ${metricCols(sql`count(DISTINCT e.viewer_key COLLATE "C")`)} FROM ledger_events e WHERE ${lw}`)
  return { setups, sizes, results }
}

// ---------------------------------------------------------------- one store

/** What the measurements need of the generator's plan. */
interface BenchPlan {
  opts: { startDay: string }
  userId: string
  startMs: number
  endMs: number
  campaigns: { campaignId: string }[]
}

/** The plan of a database loaded by an earlier run (--reuse): its account, its days, its first campaign, its busiest day. */
async function planOfStore(db: Db): Promise<{ plan: BenchPlan; busiestDay: string }> {
  const userId = (await db.selectFrom('accounts').select('user_id').executeTakeFirstOrThrow()).user_id
  const span = (await sql<{ a: string; b: string; busy: string }>`SELECT min(day)::text AS a, (max(day) + 1)::text AS b,
    (SELECT day::text FROM daily_account_rollups ORDER BY events DESC LIMIT 1) AS busy FROM daily_rollups`.execute(db)).rows[0]!
  const campaigns = await db.selectFrom('campaigns').select('campaign_id').where('user_id', '=', userId).orderBy('created_at').orderBy('campaign_id').execute()
  const startMs = Date.parse(`${span.a}T00:00:00Z`)
  return {
    plan: { opts: { startDay: span.a }, userId, startMs, endMs: Date.parse(`${span.b}T00:00:00Z`), campaigns: campaigns.map((c) => ({ campaignId: c.campaign_id })) },
    busiestDay: span.busy,
  }
}

async function benchStore(kind: 'embedded' | 'postgres', events: number) {
  log(`=== ${kind}: ${events.toLocaleString('en-US')} events ===`)
  const t0 = performance.now()
  let databaseUrl: string | null = null
  let dataDir = ''
  let cleanup = async () => {}
  const reused = (kind === 'postgres' && args.reuse) || (kind === 'embedded' && args['reuse-data-dir'])
  if (kind === 'postgres' && args.reuse) {
    databaseUrl = args.reuse
    log(`  reusing ${databaseUrl} (loaded and rolled up by an earlier --keep run)`)
  } else if (kind === 'embedded' && args['reuse-data-dir']) {
    dataDir = args['reuse-data-dir']
    log(`  reusing DATA_DIR ${dataDir} (loaded and rolled up by an earlier --keep run)`)
  } else if (kind === 'postgres') {
    const database = await createDatabase(adminUrl!, 'adapi_bench')
    const name = database.name
    const admin = new pg.Client({ connectionString: adminUrl! })
    await admin.connect()
    const version = (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version
    const settings = (
      await admin.query<{ name: string; setting: string; unit: string | null }>(
        `SELECT name, setting, unit FROM pg_settings WHERE name IN ('shared_buffers','work_mem','maintenance_work_mem','effective_cache_size','max_parallel_workers_per_gather','jit','random_page_cost')`,
      )
    ).rows
    await admin.end()
    log(`  PostgreSQL ${version}, database ${name}; ${settings.map((s) => `${s.name}=${s.setting}${s.unit ?? ''}`).join(' ')}`)
    databaseUrl = database.url
    cleanup = async () => {
      if (args.keep) return log(`  kept database ${databaseUrl}`)
      await database.drop()
    }
  } else {
    dataDir = mkdtempSync(join(tmpdir(), 'adapi-bench-reporting-'))
    cleanup = async () => {
      if (args.keep) return log(`  kept DATA_DIR ${dataDir}`)
      rmSync(dataDir, { recursive: true, force: true })
    }
  }

  const result: Record<string, unknown> = { store: kind, events_requested: events }
  try {
    // 1. Migrate, load (with the store closed: PGlite is single-process), roll up.
    let plan: BenchPlan
    let busiestDay: string
    if (reused) {
      const store = await openStore({ databaseUrl, dataDir })
      try {
        ;({ plan, busiestDay } = await planOfStore(store.db))
      } finally {
        await store.close()
      }
      result.reused = databaseUrl ?? dataDir
      result.store = `${kind}-remeasured`
    } else {
      await (await openStore({ databaseUrl, dataDir })).close()
      const loaded = await loadLedger(
        databaseUrl ? { kind: 'postgres', url: databaseUrl } : { kind: 'embedded', dataDir },
        { ...DEFAULT_OPTIONS, events, seed: Number(args.seed) },
        'rebuild',
        (m) => log(m),
      )
      plan = loaded.plan
      const load = loaded.report
      busiestDay = load.generation.busiestDay
      result.load = load satisfies LoadReport
      const store = await openStore({ databaseUrl, dataDir })
      try {
        const cpu = cpuMeter()
        result.rollups = (await runAndTimeRollups(store.db, new Date(plan.endMs + 30 * 60_000), busiestDay, load.generation.busiestDayEvents, kind === 'postgres', (m) =>
          log(m),
        )) satisfies RollupReport
        result.rollups_cpu = cpu.read()
        if (kind === 'postgres') {
          // Like the daily tables (runAndTimeRollups): what autovacuum would do after the catch-up.
          await sql`VACUUM (ANALYZE) hourly_rollups, hourly_viewers, account_viewer_days, daily_viewer_returns, daily_account_rollups`.execute(store.db)
        }
        const counts = await sql<{ h: string; v: string; a: string; r: string }>`SELECT (SELECT count(*) FROM hourly_rollups)::text AS h,
          (SELECT count(*) FROM hourly_viewers)::text AS v, (SELECT count(*) FROM account_viewer_days)::text AS a,
          (SELECT count(*) FROM daily_viewer_returns)::text AS r`.execute(store.db)
        result.rollup_tables = counts.rows[0]
        log(`  rollup tables: ${JSON.stringify(counts.rows[0])}`)
      } finally {
        await store.close()
      }
    }
    const now = new Date(plan.endMs + 30 * 60_000)

    // 2. The service, in-process.
    const settings = loadSettings({
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: dataDir }),
      CLOCK: 'manual',
      CLOCK_START: now.toISOString(),
      ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
      PORT: '0',
    })
    const ts = performance.now()
    const service = await createService(settings)
    await service.app.listen({ port: 0, host: '127.0.0.1' })
    const addr = service.app.server.address() as { port: number }
    const base = `http://127.0.0.1:${addr.port}`
    result.service_start_ms = Math.round(performance.now() - ts)
    try {
      const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
      const patch = async (body: Record<string, unknown>) => {
        const r = await call(base, 'PATCH', '/admin/v1/config', admin, body)
        if (r.status !== 200) throw new Error(`PATCH /admin/v1/config: ${r.status} ${JSON.stringify(r.body)}`)
      }
      await patch({ read_rate_limit_per_min: 1_000_000 })
      const key = await call(base, 'POST', `/admin/v1/accounts/${plan.userId}/rotate-key`, admin)
      if (key.status !== 200) throw new Error(`rotate-key: ${key.status}`)
      const auth = { 'x-service-user-id': plan.userId, 'x-service-api-key': key.body.api_key as string }

      // 3. /stats.
      const endIso = new Date(plan.endMs).toISOString()
      const twoYears = `/v1/stats?start=${plan.opts.startDay}T00:00:00Z&end=${endIso}&granularity=day`
      const hourly = `/v1/stats?start=${new Date(plan.endMs - 31 * DAY_MS).toISOString()}&end=${endIso}&granularity=hour`
      // The ledger part of the 31-day hourly window (window_too_costly's estimate), read by lowering the limit to 1:
      // a window of whole closed days reads no ledger (hourly rollups) and is answered at once.
      await patch({ stats_max_live_events: 1 })
      const refused = await call(base, 'GET', hourly, auth)
      const estimate = refused.status === 200 ? 0 : Number(findKey(refused.body, 'estimated_events'))
      if (!(refused.status === 200 || (refused.status === 400 && Number.isFinite(estimate)))) {
        throw new Error(`expected 200 or window_too_costly, got ${refused.status} ${JSON.stringify(refused.body)}`)
      }
      const maxLive = Math.max(5_000_000, estimate * 2)
      await patch({ stats_max_live_events: maxLive })
      log(`  31-day hourly window: ledger estimate ${estimate.toLocaleString('en-US')} events (${refused.status}); stats_max_live_events ${maxLive.toLocaleString('en-US')}`)
      result.hourly_estimate = { estimated_events: estimate, status_at_limit_1: refused.status, stats_max_live_events: maxLive }
      const hourlyEdges = `/v1/stats?start=${new Date(plan.endMs - 31 * DAY_MS + 12 * 3_600_000).toISOString()}&end=${new Date(plan.endMs - 12 * 3_600_000).toISOString()}&granularity=hour`

      const measure = async () => {
        const stats: StatsMeasurement[] = []
        stats.push(await measureStats(base, auth, '2y daily', twoYears, REQUESTS, 'daily_rollup'))
        stats.push(await measureStats(base, auth, '31d hourly', hourly, REQUESTS, 'ledger'))
        // Extras: fewer requests, for the analysis (5 when the 2-year window is already slow, to keep a run short).
        const slow = stats[0]!.p50 > 1000
        const extra = slow ? 5 : Math.max(10, Math.floor(REQUESTS / 3))
        const extraWarmups = slow ? 1 : WARMUPS
        stats.push(await measureStats(base, auth, '2y monthly', twoYears.replace('granularity=day', 'granularity=month').replace(`start=${plan.opts.startDay}`, `start=${plan.opts.startDay.slice(0, 8)}01`), extra, 'daily_rollup', extraWarmups))
        stats.push(await measureStats(base, auth, '7d default', '/v1/stats', extra, 'daily_rollup', extraWarmups))
        stats.push(await measureStats(base, auth, '2y daily, 1 campaign', `${twoYears}&campaign_id=${plan.campaigns[0]!.campaignId}`, extra, 'daily_rollup', extraWarmups))
        stats.push(await measureStats(base, auth, '31d daily, country=US', `${hourly.replace('granularity=hour', 'granularity=day')}&country=US`, extra, 'ledger', extraWarmups))
        stats.push(await measureStats(base, auth, '31d hourly, 12 h edges', hourlyEdges, extra, 'ledger', extraWarmups))
        stats.push(await measureStats(base, auth, '31d hourly, 1 campaign', `${hourly}&campaign_id=${plan.campaigns[0]!.campaignId}`, extra, 'ledger', extraWarmups))
        return stats
      }
      result.stats = await measure()

      // 4. Export of ≈250,000 rows.
      if (existsSync(join(root, 'src/http/routes/v1/exports.ts'))) {
        // Like /stats' warm-ups: the first export runs cold (code paths not yet optimized by V8 and, on the embedded store,
        // by the WASM engine; the window's pages not yet in the store's cache), 15-30% slower on the embedded store. It is
        // run and reported, not measured.
        const window = await exportWindow(service, plan.userId, plan.endMs)
        result.export_warmup = await measureExport(base, auth, window, 0)
        result.exports = [await measureExport(base, auth, window, 1), await measureExport(base, auth, window, 2)]
      } else {
        result.exports = 'skipped: src/http/routes/v1/exports.ts does not exist'
      }

      // 5. EXPLAIN ANALYZE of the SQL behind the measurements.
      const noFilters: ReportFilters = { campaignIds: null, creativeIds: null, surfaces: null, countries: null }
      const oneCampaign: ReportFilters = { ...noFilters, campaignIds: [plan.campaigns[0]!.campaignId] }
      const w2y = { startMs: plan.startMs, endMs: plan.endMs }
      const w31 = { startMs: plan.endMs - 31 * DAY_MS, endMs: plan.endMs }
      const rolled = plan.endMs - DAY_MS
      const explains = []
      for (const [label, fn] of [
        ['2y daily: rollup points', (d: Db) => rollupMetrics(d, plan.userId, w2y, 'day', noFilters, { byBucket: true })],
        ['2y daily: rollup totals', (d: Db) => rollupMetrics(d, plan.userId, w2y, 'day', noFilters, { byBucket: false })],
        ['31d hourly: hourly rollup points', (d: Db) => hourlyRollupPoints(d, plan.userId, w31)],
        ['31d hourly: day-window viewers', (d: Db) => dayWindowViewers(d, plan.userId, w31)],
        [
          '31d hourly, 12 h edges: edge viewers not in the days',
          (d: Db) =>
            edgeViewersNotIn(
              d,
              plan.userId,
              [
                { startMs: w31.startMs + 12 * 3_600_000, endMs: w31.startMs + DAY_MS },
                { startMs: w31.endMs - DAY_MS, endMs: w31.endMs - 12 * 3_600_000 },
              ],
              { startMs: w31.startMs + DAY_MS, endMs: w31.endMs - DAY_MS },
            ),
        ],
        ['31d hourly, 1 campaign: estimate', (d: Db) => estimateEventsPerDay(d, plan.userId, w31, oneCampaign, rolled, maxLive)],
        ['31d hourly, 1 campaign: ledger points', (d: Db) => ledgerMetrics(d, plan.userId, w31, 'hour', oneCampaign, { byBucket: true, byCreative: false })],
        ['31d hourly, 1 campaign: ledger totals', (d: Db) => ledgerMetrics(d, plan.userId, w31, 'hour', oneCampaign, { byBucket: false, byCreative: false })],
      ] as const) {
        const dry = dryRun()
        await fn(dry.db)
        explains.push(...(await explain(service.store.db, label, dry.captured)))
      }
      {
        // The rollup of the busy day (its two INSERT … SELECT; rolled back).
        const { rollUpDay } = await import('../src/store/rollups.ts')
        const dry = dryRun()
        await rollUpDay(dry.db, busiestDay)
        explains.push(...(await explain(service.store.db, `rollUpDay ${busiestDay}`, dry.captured, true)))
      }
      mkdirSync(join(root, '.tmp'), { recursive: true })
      const planFile = join(root, `.tmp/bench-explain-${kind}.txt`)
      writeFileSync(planFile, explains.map((e) => `### ${e.label} (${e.executionMs ?? '?'} ms)\n${e.sql}\n\n${e.plan}\n`).join('\n'))
      result.explain = explains.map((e) => ({ label: e.label, sql: e.sql.slice(0, 160), execution_ms: e.executionMs }))
      for (const e of explains) log(`  EXPLAIN ${e.label}: ${e.executionMs ?? '?'} ms — ${e.sql.slice(0, 90)}…`)
      log(`  plans: ${planFile}`)

      if (args.experiments) {
        log('  experiments (scratch bench_* tables)…')
        result.experiments = await experiments(service.store.db, plan.userId, plan.opts.startDay, new Date(plan.endMs).toISOString().slice(0, 10), {
          start: new Date(plan.endMs - 31 * DAY_MS),
          end: new Date(plan.endMs),
        })
      }

      if (kind === 'embedded' && args['embedded-analyze']) {
        const t = performance.now()
        await sql`VACUUM (ANALYZE)`.execute(service.store.db)
        log(`  embedded: VACUUM ANALYZE in ${((performance.now() - t) / 1000).toFixed(1)} s; measuring again`)
        try {
          result.stats_after_analyze = await measure()
        } catch (err) {
          result.stats_after_analyze = `failed: ${String(err)}`
          log(`  measuring after VACUUM ANALYZE failed: ${String(err)}`)
        }
      }
    } finally {
      await service.close()
    }
    result.total_ms = Math.round(performance.now() - t0)
    return result
  } finally {
    await cleanup()
  }
}

// ---------------------------------------------------------------- report

type StoreResult = Awaited<ReturnType<typeof benchStore>>

function printTable(results: StoreResult[]) {
  const rows: string[][] = [['store', 'events', 'measure', 'p50', 'p95', 'max', 'target', 'verdict']]
  for (const r of results) {
    const load = r.load as LoadReport | undefined
    const roll = r.rollups as RollupReport | undefined
    const ev = load ? load.events.toLocaleString('en-US') : 'reused'
    if (load && roll) {
      rows.push([String(r.store), ev, `load (COPY + indexes + analyze)`, `${(load.totalMs / 1000).toFixed(0)} s`, '', '', `${load.rowsPerSec.toLocaleString('en-US')} rows/s`, ''])
      rows.push([String(r.store), ev, `rollups, all ${roll.daysRolled} days`, `${(roll.runMs / 1000).toFixed(1)} s`, '', '', '', ''])
      rows.push([String(r.store), ev, `rollUpDay ${roll.busyDay} (${roll.busyDayEvents} ev)`, `${roll.busyDayMedianMs} ms`, '', `${Math.max(...roll.busyDayRunsMs)} ms`, '', ''])
    }
    for (const s of r.stats as StatsMeasurement[]) {
      const target = s.label === '2y daily' ? 50 : s.label === '31d hourly' ? 300 : null
      rows.push([
        String(r.store),
        ev,
        `/stats ${s.label}`,
        `${s.p50} ms`,
        `${s.p95} ms`,
        `${s.max} ms`,
        target ? `p95 <= ${target} ms` : '',
        target ? (s.p95 <= target ? 'PASS' : 'FAIL') : '',
      ])
    }
    if (Array.isArray(r.exports)) {
      for (const x of r.exports as Awaited<ReturnType<typeof measureExport>>[]) {
        rows.push([
          String(r.store),
          ev,
          `export #${x.run} ${x.rows} rows: queue→ready / download`,
          `${x.queue_to_ready_ms} ms`,
          `${x.download_ms} ms`,
          '',
          '>= 250,000 rows/s',
          `${x.generate_rows_per_sec.toLocaleString('en-US')} / ${x.download_rows_per_sec.toLocaleString('en-US')} rows/s ${x.generate_rows_per_sec >= 250_000 ? 'PASS' : 'FAIL'}`,
        ])
        const m = x.memory
        rows.push([String(r.store), ev, `export #${x.run} RSS base / job / download`, `${m.baseline.rss_mb} MB`, `${m.job_peak.rss_mb} MB`, `${m.download_peak.rss_mb} MB`, 'flat', ''])
      }
    }
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
  for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  '))
}

async function experimentsOn(url: string) {
  const store = await openStore({ databaseUrl: url, dataDir: '' })
  try {
    const db = store.db
    const userId = (await db.selectFrom('accounts').select('user_id').executeTakeFirstOrThrow()).user_id
    const span = (await sql<{ a: string; b: string }>`SELECT min(day)::text AS a, (max(day) + 1)::text AS b FROM daily_rollups`.execute(db)).rows[0]!
    const end = new Date(`${span.b}T00:00:00Z`)
    const out = await experiments(db, userId, span.a, span.b, { start: new Date(end.getTime() - 31 * DAY_MS), end })
    mkdirSync(join(root, '.tmp'), { recursive: true })
    writeFileSync(join(root, '.tmp/bench-experiments.json'), JSON.stringify(out, null, 2))
    log('  written .tmp/bench-experiments.json')
  } finally {
    await store.close()
  }
}

async function main() {
  if (args['experiments-on']) return experimentsOn(args['experiments-on'])
  const results: StoreResult[] = []
  for (const s of stores) {
    if (s === 'postgres' && !adminUrl) throw new Error('postgres needs BENCH_DATABASE_URL or TEST_DATABASE_URL')
    results.push(await benchStore(s, eventsFor(s)))
    // Write after each store, so a long embedded run never loses the PostgreSQL figures.
    mkdirSync(join(root, '.tmp'), { recursive: true })
    const file = join(root, '.tmp/bench-reporting.json')
    let previous: Record<string, unknown> = {}
    try {
      previous = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
    } catch {
      previous = {}
    }
    const byStore = { ...((previous.stores as Record<string, unknown> | undefined) ?? {}) }
    for (const r of results) byStore[String(r.store)] = { ...r, measured_at: new Date().toISOString() }
    writeFileSync(
      file,
      JSON.stringify({ node: process.version, platform: `${process.platform} ${process.arch}`, requests: REQUESTS, warmups: WARMUPS, stores: byStore }, null, 2),
    )
  }
  console.log('')
  printTable(results)
  console.log(`\nJSON: .tmp/bench-reporting.json; plans: .tmp/bench-explain-<store>.txt`)
}

main().catch((err: unknown) => {
  console.error(err)
  process.exit(1)
})
