/**
 * Where a billable view's WAL goes, by relation (issue 53). Not a CPU benchmark: WAL bytes do not
 * depend on how busy the machine is, so this runs a fixed number of views and reads the WAL they wrote.
 *
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/wal-probe.ts [--views 2000] [--mix-viewers 300] [--only fresh,attested,mix] [--round-trips] [--warmup 1000] [--wal-compression off|pglz|lz4|zstd]
 *
 * On a fresh database of the server (created and dropped), the service (as `npm start` runs it, manual
 * clock) is set up as `npm run bench` does, then three windows are measured (`--only`: some of them):
 *  - fresh: `--views` billable views, each of a viewer and address never seen before (the worst case:
 *    every view inserts a viewer-day row, a new viewer's ten-second slot and a new source's counts);
 *  - attested: the same as fresh, each view with a valid, unspent Privacy Pass token (bench/lib/tokens.ts):
 *    an attested view is exempt from the address bounds and writes its token and a spent_tokens row instead;
 *  - mix: a pool of `--mix-viewers` viewers, each behind an address of its own, each seeing an ad
 *    every 10-60 s of service time (uniform), measured after every viewer has been billed once.
 * With `--round-trips` the service reaches PostgreSQL through a counting proxy (bench/lib/pg-round-trips.ts)
 * and each window also reports the service's round trips to PostgreSQL a view (its background timers'
 * included); the proxy's added latency lets more views share a batch, so the WAL figures are taken without it.
 * Each window starts with a CHECKPOINT, so its first change of every page writes a full-page image (as
 * the first change after any checkpoint does); those bytes are reported apart. The WAL between the
 * window's LSNs is read with pg_waldump (the server's WAL directory must be readable: run as root or
 * postgres, on the server's machine) and each record counted for the relation of its first block
 * reference, in this database only; a commit record counts when its transaction touched this database.
 */
import { readdirSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { positiveSetting } from '../tools/lib/args.ts'
import { OriginPool, viewerAddress } from '../tools/lib/http.ts'
import { createDatabase } from '../tools/lib/postgres.ts'
import { buildService, freePort, killChildren, spawnNode, stopProcess, waitHealthy } from '../tools/lib/processes.ts'
import { roundTripProxy, type RoundTripProxy } from './lib/pg-round-trips.ts'
import { ensureIssuerKey, issuerParams, readIssuerKeys, TokenMinter } from './lib/tokens.ts'
import { ADMIN_TOKEN, CLOCK_START, decisionRequest, setUpService, viewRequest } from './lib/workload.ts'

const { values: args } = parseArgs({
  options: {
    views: { type: 'string' },
    'mix-viewers': { type: 'string' },
    only: { type: 'string' },
    'round-trips': { type: 'boolean' },
    warmup: { type: 'string' },
    'wal-compression': { type: 'string' },
  },
})
const WINDOWS = ['fresh', 'attested', 'mix'] as const
const ONLY = (args.only ?? WINDOWS.join(',')).split(',').map((w) => w.trim())
for (const w of ONLY) if (!(WINDOWS as readonly string[]).includes(w)) throw new Error(`--only: one or more of ${WINDOWS.join(', ')}, got "${w}"`)
const VIEWS = Math.floor(positiveSetting(args.views ?? '2000', '--views', 2000))
const MIX_VIEWERS = Math.floor(positiveSetting(args['mix-viewers'] ?? '300', '--mix-viewers', 300))
/** Unmeasured fresh billable views before the windows: the instance's leases sized by a measured rate, as in steady serving. */
const WARMUP_VIEWS = args.warmup === '0' ? 0 : Math.floor(positiveSetting(args.warmup ?? '1000', '--warmup', 1000))
/** The database's `wal_compression` (full-page images only): off (PostgreSQL's default), pglz, lz4 or zstd. */
const WAL_COMPRESSION = args['wal-compression'] ?? 'off'
if (!['off', 'pglz', 'lz4', 'zstd'].includes(WAL_COMPRESSION)) throw new Error(`--wal-compression: off, pglz, lz4 or zstd, got "${WAL_COMPRESSION}"`)
const PG_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL
if (!PG_URL) throw new Error('set TEST_DATABASE_URL (or BENCH_DATABASE_URL) to a PostgreSQL server on this machine')
const CONNECTIONS = 50

interface RelBytes {
  records: number
  bytes: number
  fpiBytes: number
}

interface Breakdown {
  views: number
  /** The service's round trips to PostgreSQL over the window (--round-trips), else null. */
  roundTrips: number | null
  lsnBytes: number
  byRelation: Map<string, RelBytes>
}

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try {
    return (await c.query<T>(text)).rows
  } finally {
    await c.end()
  }
}

/** The one row `text` returns. */
async function queryRow<T extends pg.QueryResultRow>(url: string, text: string): Promise<T> {
  const [row] = await query<T>(url, text)
  if (!row) throw new Error(`no row: ${text}`)
  return row
}

/** The pg_waldump next to the server's binaries (the newest version installed). */
function waldumpPath(): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))
  return `/usr/lib/postgresql/${versions[0]}/bin/pg_waldump`
}

const RECORD = /^rmgr: (\S+)\s+len \(rec\/tot\):\s*(\d+)\/\s*(\d+), tx:\s*(\d+), lsn: \S+, prev \S+, desc: (\S+)(.*)$/
const BLOCK = /blkref #0: rel (\d+)\/(\d+)\/(\d+)(?: fork (\w+))?/

/** The WAL between two LSNs of the cluster, by relation of this database (`dbOid`), names from `names` (relfilenode → name). */
function breakdown(dataDir: string, from: string, to: string, dbOid: number, names: Map<number, string>): Map<string, RelBytes> {
  const out = spawnSync(waldumpPath(), ['-p', `${dataDir}/pg_wal`, '-s', from, '-e', to], { encoding: 'utf8', maxBuffer: 1 << 30 })
  if (out.status !== 0 && !out.stdout) throw new Error(`pg_waldump failed: ${out.stderr}`)
  const byRelation = new Map<string, RelBytes>()
  const ours = new Set<string>()
  const commits: { tx: string; tot: number }[] = []
  const add = (name: string, tot: number, fpi: number) => {
    const r = byRelation.get(name) ?? { records: 0, bytes: 0, fpiBytes: 0 }
    r.records++
    r.bytes += tot
    r.fpiBytes += fpi
    byRelation.set(name, r)
  }
  for (const line of out.stdout.split('\n')) {
    const m = RECORD.exec(line)
    if (!m) continue
    const [, rmgr, rec, tot, tx, , rest] = m
    const fpi = Number(tot) - Number(rec)
    const b = BLOCK.exec(rest!)
    if (b) {
      if (Number(b[2]) !== dbOid) continue
      ours.add(tx!)
      const rel = names.get(Number(b[3])) ?? `relfilenode ${b[3]}`
      add(b[4] && b[4] !== 'main' ? `${rel} (${b[4]})` : rel, Number(tot), fpi)
    } else if (rmgr === 'Transaction') {
      commits.push({ tx: tx!, tot: Number(tot) })
    }
  }
  for (const c of commits) if (ours.has(c.tx)) add('(commit records)', c.tot, 0)
  return byRelation
}

async function main(): Promise<void> {
  const database = await createDatabase(PG_URL!, 'walprobe')
  // Every session of the service on this database compresses its full-page images so (a superuser's setting).
  await query(PG_URL!, `ALTER DATABASE "${database.name}" SET wal_compression = '${WAL_COMPRESSION}'`)
  const proxy: RoundTripProxy | null = args['round-trips'] ? await roundTripProxy(database.url) : null
  const port = await freePort()
  const env: Record<string, string> = {}
  for (const k of ['PATH', 'HOME', 'TMPDIR']) if (process.env[k]) env[k] = process.env[k]!
  const proc = spawnNode(buildService(), {
    ...env,
    HOST: '127.0.0.1',
    PORT: String(port),
    CLOCK: 'manual',
    CLOCK_START,
    TRUST_PROXY: '1',
    LOG_LEVEL: 'warn',
    ADMIN_TOKEN,
    DATABASE_URL: proxy?.url ?? database.url,
  })
  try {
    await waitHealthy(proc, 'service')
    const operator = await setUpService(proc.origin, 'walprobe')
    const pool = new OriginPool(proc.origin, CONNECTIONS, 30_000)
    const { data_directory: dataDir } = await queryRow<{ data_directory: string }>(PG_URL!, 'SHOW data_directory')
    const { oid: dbOid } = await queryRow<{ oid: number }>(PG_URL!, `SELECT oid FROM pg_database WHERE datname = '${database.name}'`)
    const statuses = new Map<string, number>()
    /** Sends `reqs` over the pool, CONNECTIONS at a time; each answer's status counted under `what`. */
    const send = async (what: string, reqs: ReturnType<typeof decisionRequest>[], onOk?: (text: string, i: number) => void) => {
      let next = 0
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (next < reqs.length) {
            const i = next++
            const r = reqs[i]!
            const { 'x-forwarded-for': from, authorization } = r.headers
            const reply = await pool.call('POST', r.path, JSON.parse(r.body!), { 'x-forwarded-for': from!, ...(authorization ? { authorization } : {}) })
            statuses.set(`${what} ${reply.status}`, (statuses.get(`${what} ${reply.status}`) ?? 0) + 1)
            if (reply.status === 200) onOk?.(reply.text, i)
          }
        }),
      )
    }
    const idOf = (text: string) => (JSON.parse(text) as { impression_id: string }).impression_id
    /** Measures `work` (which returns the views it answered 204) between a CHECKPOINT and the WAL position after it. */
    const window = async (work: () => Promise<number>): Promise<Breakdown> => {
      await query(PG_URL!, 'CHECKPOINT')
      const { lsn: from } = await queryRow<{ lsn: string }>(PG_URL!, 'SELECT pg_current_wal_lsn()::text AS lsn')
      const tripsBefore = proxy?.count() ?? 0
      const views = await work()
      await new Promise((r) => setTimeout(r, 500)) // background writes the views caused (counts' flushes)
      const roundTrips = proxy ? proxy.count() - tripsBefore : null
      const { lsn: to, bytes } = await queryRow<{ lsn: string; bytes: string }>(PG_URL!, `SELECT pg_current_wal_lsn()::text AS lsn, pg_wal_lsn_diff(pg_current_wal_lsn(), '${from}')::text AS bytes`)
      const names = new Map(
        (await query<{ relfilenode: number; relname: string }>(database.url, 'SELECT relfilenode::int AS relfilenode, relname FROM pg_class WHERE relfilenode <> 0')).map((r) => [r.relfilenode, r.relname]),
      )
      return { views, roundTrips, lsnBytes: Number(bytes), byRelation: breakdown(dataDir, from, to, dbOid, names) }
    }
    const viewsOf = async (ids: string[], reqOf: (id: string, i: number) => ReturnType<typeof viewRequest>) => {
      const before = statuses.get('view 204') ?? 0
      await send('view', ids.map(reqOf))
      return (statuses.get('view 204') ?? 0) - before
    }

    const results: [string, Breakdown][] = []
    /** Fresh viewers: the decisions first (unmeasured), then the views of their offers; `tokens`: one each, for attested views. */
    const fresh = async (prefix: string, tokens: string[] | null) => {
      if (WARMUP_VIEWS > 0) {
        // Unmeasured, just before: an instance idle for seconds (tokens being minted) has freed its leases.
        const warm: string[] = []
        await send('decision', Array.from({ length: WARMUP_VIEWS }, () => decisionRequest(`${prefix}-warmup`)), (t) => warm.push(idOf(t)))
        await operator.advanceClock(10)
        await viewsOf(warm, (id) => viewRequest(id))
      }
      const ids: string[] = []
      await send('decision', Array.from({ length: VIEWS }, () => decisionRequest(prefix)), (t) => ids.push(idOf(t)))
      await operator.advanceClock(10)
      await new Promise((r) => setTimeout(r, 1_000))
      return window(() =>
        viewsOf(ids, (id, i) => {
          const req = viewRequest(id)
          return tokens ? { ...req, headers: { ...req.headers, authorization: tokens[i]! } } : req
        }),
      )
    }
    if (ONLY.includes('fresh')) results.push(['fresh viewers', await fresh('walprobe-fresh', null)])
    if (ONLY.includes('attested')) {
      // Tokens signed with the issuer's key read from the service's database, for the challenge its decisions announce.
      await ensureIssuerKey(proc.origin)
      const minter = new TokenMinter(await issuerParams(proc.origin), await readIssuerKeys({ url: database.url }))
      const { authorizations } = minter.mint(VIEWS)
      const attestedBefore = await operator.attestedTotal()
      const b = await fresh('walprobe-attested', authorizations)
      const attested = (await operator.attestedTotal()) - attestedBefore
      if (attested !== b.views) throw new Error(`attested window: ${b.views} views answered 204, ${attested} billed as attested`)
      results.push(['attested, fresh viewers', b])
    }
    if (ONLY.includes('mix')) {
      // The mix: rounds of 10 s of service time; a viewer due in a round asks for an ad, the clock moves 10 s, it reports the view.
      let t = 0
      const due = Array.from({ length: MIX_VIEWERS }, () => Math.floor(Math.random() * 60))
      const round = async (): Promise<number> => {
        const who = due.flatMap((d, v) => (d <= t ? [v] : []))
        const req = (v: number) => ({ ...decisionRequest('x'), body: JSON.stringify({ surface: v % 2 ? 'terminal' : 'extension', viewer_id: `walprobe-mix-${v}`, country: 'US' }), headers: { 'content-type': 'application/json', 'x-forwarded-for': viewerAddress(200_000 + v) } })
        const offers: [number, string][] = []
        await send('mix decision', who.map(req), (text, i) => offers.push([who[i]!, idOf(text)]))
        await operator.advanceClock(10)
        t += 10
        for (const v of who) due[v] = t + 10 + Math.floor(Math.random() * 51)
        return viewsOf(
          offers.map((o) => o[1]),
          (id, i) => ({ ...viewRequest(id), headers: { 'content-type': 'application/json', 'x-forwarded-for': viewerAddress(200_000 + offers[i]![0]) } }),
        )
      }
      while (t < 70) await round() // every viewer billed once: its viewer-day row and slot exist
      results.push([
        'mix',
        await window(async () => {
          let n = 0
          while (n < VIEWS) n += await round()
          return n
        }),
      ])
    }
    await pool.close()
    process.stdout.write(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}\n`)
    for (const [label, b] of results) {
      const rows = [...b.byRelation.entries()].sort((x, y) => y[1].bytes - x[1].bytes)
      const counted = rows.reduce((s, [, r]) => s + r.bytes, 0)
      const fpi = rows.reduce((s, [, r]) => s + r.fpiBytes, 0)
      const per = (n: number) => (n / b.views).toFixed(0)
      const trips = b.roundTrips === null ? '' : `; ${(b.roundTrips / b.views).toFixed(3)} round trips to PostgreSQL a view (${b.roundTrips})`
      process.stdout.write(`\n${label}: ${b.views} billable views; WAL ${per(b.lsnBytes)} B a view by LSN (cluster, all databases), ${per(counted)} B in this database's records, of them full-page images ${per(fpi)} B${trips}\n`)
      process.stdout.write('| Relation | records / view | B / view | of it FPI B / view | B / view without FPI |\n|---|---|---|---|---|\n')
      for (const [name, r] of rows) {
        if (r.bytes / b.views < 1) continue
        process.stdout.write(`| ${name} | ${(r.records / b.views).toFixed(2)} | ${per(r.bytes)} | ${per(r.fpiBytes)} | ${per(r.bytes - r.fpiBytes)} |\n`)
      }
    }
  } finally {
    await stopProcess(proc)
    await proxy?.close()
    await database.drop()
  }
}

main().catch((err: unknown) => {
  killChildren()
  console.error(err)
  process.exit(1)
})
