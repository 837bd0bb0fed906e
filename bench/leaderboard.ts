/**
 * Leaderboard benchmark (`npm run bench:leaderboard`): a measurement, not a
 * timed test. For each store (the embedded store in a temp DATA_DIR, and
 * PostgreSQL when BENCH_DATABASE_URL or TEST_DATABASE_URL is set: a database
 * of its own, dropped afterwards):
 *
 *  1. migrates, then writes "10M ledger events' worth" of daily rollups
 *     straight with SQL (generate_series; the leaderboard reads only the
 *     rollups, never the ledger): many advertisers, campaigns spread over a
 *     year with 14-120 days of delivery each on one or both surfaces, brands
 *     with spelling variants, some opted out, some without a brand. The
 *     rows' `events` add up to --events; billable impressions are ~35 % of
 *     events. The watermark says every day before the clock's is rolled up;
 *     PostgreSQL is VACUUM ANALYZEd (autovacuum would), the embedded store is
 *     left as the service keeps it;
 *  2. times the store query itself (store/leaderboard.ts#brandImpressions),
 *     in-process;
 *  3. starts the service in-process (CLOCK=manual, TRUST_PROXY so each request
 *     comes from an address of its own and the per-address budget never
 *     answers) and measures GET /leaderboard.json over real HTTP, sequential:
 *     `served` (what clients get: the board of the current window, computed
 *     once and then reused) and `computed` (every request a window the
 *     instance has not computed: the clock moves one day before each, outside
 *     the timing).
 *
 * Options: --events N (10,000,000), --campaigns N (5,000), --accounts N
 * (1,000), --brands N (1,500), --days N (365), --requests N (served, 200),
 * --computed N (40), --stores embedded,postgres, --keep (keep the database or
 * DATA_DIR). Results: a table on stdout, JSON in .tmp/bench-leaderboard.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { sql } from 'kysely'
import { loadSettings } from '../src/platform/env.ts'
import { createService } from '../src/start/service.ts'
import { openStore, type Db } from '../src/store/db.ts'
import { brandImpressions } from '../src/store/leaderboard.ts'
import { leaderboardWindow } from '../src/domain/leaderboard.ts'
import { DAY_MS, isoDay } from '../src/domain/stats.ts'
import { jsonRequest, viewerAddress } from '../tools/lib/http.ts'
import { createDatabase } from '../tools/lib/postgres.ts'
import { root } from '../tools/lib/processes.ts'
import { ascending, nearestRank, round2 } from '../tools/lib/stats.ts'

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '10000000' },
    campaigns: { type: 'string', default: '5000' },
    accounts: { type: 'string', default: '1000' },
    brands: { type: 'string', default: '1500' },
    days: { type: 'string', default: '365' },
    requests: { type: 'string', default: '200' },
    computed: { type: 'string', default: '40' },
    stores: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
})

const EVENTS = Number(args.events)
const CAMPAIGNS = Number(args.campaigns)
const ACCOUNTS = Number(args.accounts)
const BRANDS = Number(args.brands)
const DAYS = Number(args.days)
const REQUESTS = Number(args.requests)
const COMPUTED = Number(args.computed)
const ADMIN_TOKEN = 'bench-leaderboard-admin-token'
const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? null
const stores = (args.stores ?? (adminUrl ? 'embedded,postgres' : 'embedded')).split(',') as ('embedded' | 'postgres')[]
const log = (m: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${m}`)

/** The data's first day; the clock starts 300 days in, so the computed windows (one day later each) stay inside the data. */
const FIRST_DAY = '2025-12-01'
const CLOCK_DAY = Date.parse(`${FIRST_DAY}T00:00:00Z`) + Math.min(300, DAYS - 1) * DAY_MS
const CLOCK_START = new Date(CLOCK_DAY + 12 * 3_600_000).toISOString()

interface Summary {
  n: number
  p50: number
  p95: number
  p99: number
  max: number
}
function summarize(samples: number[]): Summary {
  const s = ascending(samples)
  return { n: s.length, p50: round2(nearestRank(s, 0.5)), p95: round2(nearestRank(s, 0.95)), p99: round2(nearestRank(s, 0.99)), max: round2(s[s.length - 1]!) }
}

/** Accounts, campaigns with their creatives, and the daily rollups, all in SQL. Returns rows and the sum of events. */
async function generate(db: Db): Promise<{ rows: number; events: number; seconds: number }> {
  const t0 = performance.now()
  await sql`SELECT setseed(0.42)`.execute(db)
  await sql`
    INSERT INTO accounts (user_id, email, created_at, api_key_hash, key_prefix, key_created_at)
    SELECT 'usr_bench_' || a, 'bench-' || a || '@example.dev', ${`${FIRST_DAY}T00:00:00Z`}::timestamptz, '\\x00'::bytea, 'sk_live_bench', ${`${FIRST_DAY}T00:00:00Z`}::timestamptz
    FROM generate_series(1, ${ACCOUNTS}::int) a`.execute(db)
  // One plan row per campaign: its account, first day, length, surfaces, opt-in and brand (a variant spelling now and then).
  await sql`
    CREATE TEMP TABLE bench_plan AS
    SELECT c, 'cmp_bench_' || c AS campaign_id, 'crv_bench_' || c AS creative_id, 'usr_bench_' || (1 + c % ${ACCOUNTS}::int) AS user_id,
      floor(random() * ${DAYS}::int)::int AS start_day, 14 + floor(random() * 107)::int AS days,
      CASE WHEN random() < 0.5 THEN 2 ELSE 1 END AS surfaces,
      random() < 0.85 AS optin,
      CASE WHEN random() < 0.12 THEN NULL ELSE 'Brand ' || (1 + floor(random() * ${BRANDS}::int)::int) END AS brand,
      floor(random() * 4)::int AS variant
    FROM generate_series(1, ${CAMPAIGNS}::int) c`.execute(db)
  await sql`
    INSERT INTO campaigns (campaign_id, user_id, creation_channel, name, status, kind, cpm_micros, impressions, block_count,
      target_surface, optin_leaderboard, start_paused, amount_cents, created_at, updated_at)
    SELECT campaign_id, user_id, 'advertiser_api', 'Bench ' || c, 'active', 'impression', 2500000, 100000, 100,
      CASE WHEN surfaces = 2 THEN 'blended' ELSE 'extension' END, optin, false, 25000,
      ${`${FIRST_DAY}T00:00:00Z`}::timestamptz + start_day * interval '1 day', ${`${FIRST_DAY}T00:00:00Z`}::timestamptz
    FROM bench_plan`.execute(db)
  await sql`
    INSERT INTO creatives (creative_id, campaign_id, user_id, ad_line, destination_url, brand, moderation_status, created_at, updated_at)
    SELECT creative_id, campaign_id, user_id, 'Ship faster with bench CI', 'https://bench.example/', 
      CASE variant WHEN 1 THEN upper(brand) WHEN 2 THEN lower(brand) ELSE brand END,
      'approved', ${`${FIRST_DAY}T00:00:00Z`}::timestamptz, ${`${FIRST_DAY}T00:00:00Z`}::timestamptz
    FROM bench_plan`.execute(db)
  const planned = await sql<{ rows: number }>`
    SELECT coalesce(sum(least(days, ${DAYS}::int - start_day) * surfaces), 0)::int8 AS rows FROM bench_plan`.execute(db)
  const perRow = EVENTS / planned.rows[0]!.rows
  await sql`
    INSERT INTO daily_rollups (day, user_id, campaign_id, creative_id, surface, events, billable_impressions, viewable_ticks, clicks, spend_micros)
    SELECT ${FIRST_DAY}::date + (p.start_day + d), p.user_id, p.campaign_id, p.creative_id, (ARRAY['extension', 'terminal'])[s],
      g.events, floor(g.events * 0.35), floor(g.events * 0.35) * 10, floor(g.events * 0.007), floor(g.events * 0.35) * 2500
    FROM bench_plan p
    CROSS JOIN LATERAL generate_series(0, least(p.days, ${DAYS}::int - p.start_day) - 1) d
    CROSS JOIN LATERAL generate_series(1, p.surfaces) s
    -- (d and s are named inside so that random() is drawn for every row, not once.)
    CROSS JOIN LATERAL (SELECT 1 + floor(random() * (2 * ${perRow}::float8 - 1))::int8 + 0 * d + 0 * s AS events) g`.execute(db)
  await sql`UPDATE rollup_state SET rolled_through = ${isoDay(CLOCK_DAY - DAY_MS)}::date, updated_at = ${CLOCK_START}::timestamptz WHERE id = 1`.execute(db)
  const total = await sql<{ rows: number; events: number }>`SELECT count(*)::int8 AS rows, coalesce(sum(events), 0)::int8 AS events FROM daily_rollups`.execute(db)
  return { ...total.rows[0]!, seconds: round2((performance.now() - t0) / 1000) }
}

async function measureStore(kind: 'embedded' | 'postgres') {
  let databaseUrl: string | null = null
  let drop = async () => {}
  let dataDir = ''
  if (kind === 'postgres') {
    if (!adminUrl) throw new Error('postgres needs BENCH_DATABASE_URL or TEST_DATABASE_URL')
    const scratch = await createDatabase(adminUrl, 'adapi_bench_leaderboard')
    databaseUrl = scratch.url
    drop = () => scratch.drop()
  } else {
    dataDir = mkdtempSync(join(tmpdir(), 'adapi-bench-leaderboard-'))
  }
  try {
    log(`${kind}: migrating and generating rollups (${CAMPAIGNS} campaigns, ${EVENTS.toLocaleString('en-US')} events' worth)`)
    const store = await openStore({ databaseUrl, dataDir })
    const generated = await generate(store.db)
    if (kind === 'postgres') await sql`VACUUM ANALYZE`.execute(store.db)
    log(`${kind}: ${generated.rows.toLocaleString('en-US')} daily rollup rows, ${generated.events.toLocaleString('en-US')} events, in ${generated.seconds} s`)

    // The store query alone, in-process.
    const window = leaderboardWindow(Date.parse(CLOCK_START), isoDay(CLOCK_DAY - DAY_MS))
    const inWindow = await sql<{ rows: number }>`
      SELECT count(*)::int8 AS rows FROM daily_rollups WHERE day >= ${isoDay(window.startMs)}::date AND day < ${isoDay(window.endMs)}::date`.execute(store.db)
    const querySamples: number[] = []
    let spellings = 0
    for (let i = 0; i < 23; i++) {
      const t = performance.now()
      spellings = (await brandImpressions(store.db, window)).length
      if (i >= 3) querySamples.push(performance.now() - t)
    }
    await store.close()
    const query = summarize(querySamples)
    log(`${kind}: window rows ${inWindow.rows[0]!.rows}, brand spellings ${spellings}; query p50 ${query.p50} ms, p95 ${query.p95} ms`)

    const settings = loadSettings({
      PORT: '0',
      HOST: '127.0.0.1',
      ADMIN_TOKEN,
      CLOCK: 'manual',
      CLOCK_START,
      TRUST_PROXY: 'true',
      LOG_LEVEL: 'warn',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: dataDir }),
    })
    const service = await createService(settings)
    await service.app.listen({ port: 0, host: '127.0.0.1' })
    const address = service.app.server.address()
    if (address === null || typeof address === 'string') throw new Error('no address')
    const origin = `http://127.0.0.1:${address.port}`
    let client = 0
    const timedGet = async (): Promise<{ ms: number; brands: number }> => {
      const t = performance.now()
      const res = await fetch(`${origin}/leaderboard.json`, { headers: { 'x-forwarded-for': viewerAddress(client++) } })
      const text = await res.text()
      const ms = performance.now() - t
      if (res.status !== 200) throw new Error(`GET /leaderboard.json: ${res.status} ${text.slice(0, 200)}`)
      return { ms, brands: (JSON.parse(text) as { brands: unknown[] }).brands.length }
    }
    try {
      let brands = 0
      for (let i = 0; i < 3; i++) brands = (await timedGet()).brands
      const served: number[] = []
      for (let i = 0; i < REQUESTS; i++) served.push((await timedGet()).ms)
      const computed: number[] = []
      for (let i = 0; i < COMPUTED; i++) {
        const moved = await jsonRequest(origin, 'POST', '/admin/v1/clock', { body: { advance_seconds: 86_400 }, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
        if (moved.status !== 200) throw new Error(`clock: ${moved.status} ${moved.text}`)
        computed.push((await timedGet()).ms)
      }
      const result = {
        store: kind,
        campaigns: CAMPAIGNS,
        accounts: ACCOUNTS,
        brand_names: BRANDS,
        days: DAYS,
        rollup_rows: generated.rows,
        events: generated.events,
        window_rows: inWindow.rows[0]!.rows,
        brand_spellings_in_window: spellings,
        board_rows: brands,
        load_seconds: generated.seconds,
        query_ms: query,
        served_ms: summarize(served),
        computed_ms: summarize(computed),
        // A shared machine shows here: other processes' load during the measurement (1-minute average, 2 cores).
        load_average: round2(loadavg()[0]!),
      }
      log(`${kind}: served p50 ${result.served_ms.p50} / p95 ${result.served_ms.p95} ms; computed p50 ${result.computed_ms.p50} / p95 ${result.computed_ms.p95} ms`)
      return result
    } finally {
      await service.close()
    }
  } finally {
    if (args.keep) log(`${kind}: kept ${databaseUrl ?? dataDir}`)
    else {
      await drop()
      if (dataDir) rmSync(dataDir, { recursive: true, force: true })
    }
  }
}

const results = []
for (const kind of stores) results.push(await measureStore(kind))
console.log('\n| Store | Rollup rows (events) | Rows in window | Query p50 / p95 | Served p50 / p95 / p99 | Computed p50 / p95 | Load |')
console.log('|---|---|---|---|---|---|---|')
for (const r of results) {
  console.log(
    `| ${r.store} | ${r.rollup_rows.toLocaleString('en-US')} (${r.events.toLocaleString('en-US')}) | ${r.window_rows.toLocaleString('en-US')} | ` +
      `${r.query_ms.p50} / ${r.query_ms.p95} ms | ${r.served_ms.p50} / ${r.served_ms.p95} / ${r.served_ms.p99} ms | ${r.computed_ms.p50} / ${r.computed_ms.p95} ms | ${r.load_average} |`,
  )
}
mkdirSync(join(root, '.tmp'), { recursive: true })
writeFileSync(join(root, '.tmp/bench-leaderboard.json'), JSON.stringify(results, null, 2))
