import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { campaignBody, useService, type Advertiser, type TestHarness } from '../helpers/api.ts'
import { exportCsv } from '../helpers/exports.ts'
import { ADMIN_TOKEN, STORE } from '../helpers/service.ts'
import { deliver, privateCountry } from '../helpers/serving.ts'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts'

/**
 * DATABASE_READ_URL (issue 33) against a real streaming standby (.ci/standby
 * makes one on 127.0.0.1:5433): the lag-tolerant reads (stats over rolled-up
 * days, the leaderboard, the quote, the export worker's ledger pages) are
 * answered by the replica, the same as the primary's; with replay paused (the
 * replica falls behind) and with the replica stalled, they are answered by the
 * primary, correctly and in time. The replica is reached through a TCP proxy
 * that can stall. The shared standby is never stopped: replay is paused and
 * always resumed. The clock starts Monday 2026-11-02 09:00 UTC.
 */
const primaryAdmin = process.env.TEST_DATABASE_URL
const replicaAdmin = process.env.TEST_DATABASE_READ_URL
const skip =
  STORE !== 'postgres'
    ? 'a read replica is PostgreSQL only (the PostgreSQL run of the suite)'
    : !primaryAdmin || !replicaAdmin
      ? 'TEST_DATABASE_READ_URL is not set (a streaming standby of TEST_DATABASE_URL, made by .ci/standby)'
      : false

const name = `adapi_test_replica_${process.pid}_${randomBytes(4).toString('hex')}`
const withDatabase = (url: string, db: string) => Object.assign(new URL(url), { pathname: `/${db}` }).toString()
let proxy: TcpProxy | undefined

async function query(url: string, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000, query_timeout: 5000 })
  await client.connect()
  try {
    return await client.query(text)
  } finally {
    await client.end()
  }
}

let h: TestHarness | undefined
if (!skip) {
  // Before the service starts (at the top level: the proxy's port goes into its settings).
  await query(primaryAdmin!, `CREATE DATABASE ${name}`)
  // The new database reaches the standby by replication.
  for (let i = 0; ; i++) {
    const ok = await query(withDatabase(replicaAdmin!, name), 'SELECT 1').then(
      () => true,
      () => false,
    )
    if (ok) break
    if (i > 100) assert.fail('the database did not appear on the standby')
    await sleep(100)
  }
  const replica = new URL(replicaAdmin!)
  proxy = await startTcpProxy(replica.hostname, Number(replica.port || 5432))
  const readUrl = new URL(withDatabase(replicaAdmin!, name))
  readUrl.port = String(proxy.port)
  h = useService(
    { DATABASE_URL: withDatabase(primaryAdmin!, name), DATABASE_READ_URL: readUrl.toString(), READ_REPLICA_MAX_LAG_MS: '2000' },
    { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null },
  )
  after(async () => {
    await query(replicaAdmin!, 'SELECT pg_wal_replay_resume()').catch(() => {})
    await proxy?.close()
    await query(primaryAdmin!, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  })
}

/** The read-replica series of a scrape. */
async function replicaMetrics(t: TestHarness): Promise<{ up: number; replica: number; primary: number; failures: number }> {
  const res = await fetch(`${t.baseUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  const text = await res.text()
  assert.equal(res.status, 200, text)
  const value = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN)
  return {
    up: value(/^adapi_read_replica_up (\S+)$/m),
    replica: value(/^adapi_lag_tolerant_reads_total\{target="replica"\} (\S+)$/m),
    primary: value(/^adapi_lag_tolerant_reads_total\{target="primary"\} (\S+)$/m),
    failures: value(/^adapi_read_replica_failures_total (\S+)$/m),
  }
}

async function until(t: TestHarness, up: 0 | 1): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if ((await replicaMetrics(t)).up === up) return
    await sleep(100)
  }
  assert.fail(`adapi_read_replica_up did not become ${up}: ${JSON.stringify(await replicaMetrics(t))}`)
}

/** Waits until the standby has replayed everything the primary has written so far (a moment, when it is healthy). */
async function replicaCaughtUp(): Promise<void> {
  const target = (await query(primaryAdmin!, 'SELECT pg_current_wal_lsn()::text AS lsn')).rows[0].lsn as string
  for (let i = 0; i < 100; i++) {
    const { rows } = await query(replicaAdmin!, `SELECT pg_last_wal_replay_lsn() >= '${target}'::pg_lsn AS done`)
    if (rows[0].done === true) return
    await sleep(50)
  }
  assert.fail('the standby did not catch up')
}

async function moveTo(t: TestHarness, iso: string): Promise<void> {
  const res = await t.admin.post('/admin/v1/clock', { now: iso })
  assert.equal(res.status, 200, res.text)
}

/** The lag-tolerant reads of one account: a closed day's stats, the leaderboard, a quote, an export of the day. */
async function reads(t: TestHarness, adv: Advertiser, country: string, day: string) {
  const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString()
  const stats = await adv.get(`/v1/stats?start=${day}T00:00:00Z&end=${next}&granularity=day`)
  assert.equal(stats.status, 200, stats.text)
  assert.equal(stats.body.served_from, 'daily_rollup')
  const board = await fetch(`${t.baseUrl}/leaderboard.json`, { headers: { 'x-forwarded-for': `203.0.113.${randomBytes(1)[0]! % 250}` } })
  assert.equal(board.status, 200)
  const quote = await adv.get(`/v1/auction/quote?cpm_usd=1&target_countries=${country}`)
  assert.equal(quote.status, 200, quote.text)
  return { billable: stats.body.totals.billable_impressions as number, board: (await board.json()) as { brands: { brand: string; impressions: number }[] }, quote: quote.body }
}

test('lag-tolerant reads go to the replica, with the primary\'s answers; paused replay or a stalled replica sends them to the primary, in time', { skip }, async () => {
  const t = h!
  await until(t, 1)
  const adv = await t.advertiser()
  const country = privateCountry()
  const brand = `Replica ${randomBytes(3).toString('hex')}`
  const created = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 1000, cpm_usd: 3, brand, optin_leaderboard: true }))
  assert.equal(created.status, 201, created.text)
  assert.equal(await deliver(t, country, 3), 3) // Monday 2026-11-02 09:00
  const before = await replicaMetrics(t)
  // The quote's traffic is the last hour's; the replica is a moment behind at most.
  const quoted = async (n: number) => {
    for (let i = 0; i < 50; i++) {
      const res = await adv.get(`/v1/auction/quote?cpm_usd=1&target_countries=${country}`)
      assert.equal(res.status, 200, res.text)
      if (res.body.based_on.billable_impressions === n) return
      await sleep(100)
    }
    assert.fail(`the quote did not see ${n} impressions`)
  }
  await quoted(3)
  await moveTo(t, '2026-11-03T01:00:00Z') // the rollups close 11-02
  await replicaCaughtUp()

  // Served by the replica (it has the closed day); the answers are the primary's figures.
  const first = await reads(t, adv, country, '2026-11-02')
  assert.equal(first.billable, 3)
  assert.deepEqual(first.board.brands.find((b) => b.brand === brand), { brand, impressions: 3 })
  const exported = await exportCsv(adv, { start: '2026-11-02T00:00:00Z', end: '2026-11-03T00:00:00Z' })
  assert.equal(exported.rows.filter((r) => r.includes('impression')).length, 3, `the day's impressions: ${exported.header}`)
  const served = await replicaMetrics(t)
  assert.ok(served.replica - before.replica >= 5, `the replica answered the quote, the stats, the leaderboard, the quote and the export: ${JSON.stringify({ before, served })}`)
  assert.equal(served.failures, 0)

  // Replay paused: the replica stops at what it has; the primary moves on (another day delivered and closed).
  await query(replicaAdmin!, 'SELECT pg_wal_replay_pause()')
  try {
    assert.equal(await deliver(t, country, 2), 2) // 2026-11-03 01:00
    await moveTo(t, '2026-11-04T01:00:00Z')
    // At once, even before the lag shows: the replica has not rolled up 11-03, so the primary answers.
    const fresh = await reads(t, adv, country, '2026-11-03')
    assert.equal(fresh.billable, 2)
    assert.deepEqual(fresh.board.brands.find((b) => b.brand === brand), { brand, impressions: 5 })
    // Past the bound (2 s), nothing goes to the replica; reads answer from the primary at once.
    await until(t, 0)
    assert.equal(await deliver(t, country, 1), 1) // 2026-11-04 01:00, on the primary only
    const mark = await replicaMetrics(t)
    const started = performance.now()
    const behind = await reads(t, adv, country, '2026-11-03')
    assert.ok(performance.now() - started < 3000, 'answered without waiting on the replica')
    assert.equal(behind.billable, 2)
    assert.equal(behind.quote.based_on.billable_impressions, 1, 'the quote sees the traffic the replica has not replayed')
    const later = await replicaMetrics(t)
    assert.equal(later.replica, mark.replica, 'no read went to the lagging replica')
    assert.ok(later.primary - mark.primary >= 2, `the primary answered the stats and the quote (the leaderboard is reused): ${JSON.stringify({ mark, later })}`)
  } finally {
    await query(replicaAdmin!, 'SELECT pg_wal_replay_resume()')
  }
  await until(t, 1)
  await replicaCaughtUp()
  const resumed = await replicaMetrics(t)
  const caughtUp = await reads(t, adv, country, '2026-11-03')
  assert.equal(caughtUp.billable, 2)
  assert.equal(caughtUp.quote.based_on.billable_impressions, 1)
  assert.ok((await replicaMetrics(t)).replica - resumed.replica >= 2, 'the replica answers again once it has caught up')

  // Stalled (a replica that accepts and never answers): a read caught on it falls back within the replica's
  // query timeout (4.5 s), well inside the request deadline; the periodic check then takes the replica out.
  const mark = await replicaMetrics(t)
  proxy!.stall()
  try {
    const started = performance.now()
    const stalled = await adv.get(`/v1/stats?start=2026-11-02T00:00:00Z&end=2026-11-04T00:00:00Z&granularity=day`)
    const tookMs = performance.now() - started
    assert.equal(stalled.status, 200, stalled.text)
    assert.equal(stalled.body.totals.billable_impressions, 5)
    assert.ok(tookMs < 6000, `answered in ${Math.round(tookMs)} ms`)
    await until(t, 0)
    const quick = performance.now()
    assert.equal((await reads(t, adv, country, '2026-11-03')).billable, 2)
    assert.ok(performance.now() - quick < 2000, 'with the replica out, reads do not touch it')
    const later = await replicaMetrics(t)
    assert.equal(later.replica, mark.replica)
  } finally {
    proxy!.resume()
  }
  await until(t, 1)
})
