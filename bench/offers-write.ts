/**
 * Offer-write benchmark: what writing a batch of offer rows costs PostgreSQL,
 * per row, with nothing else of ours running (src/store/ledger.ts#writeOffers,
 * the decision path's only write). Compares the ways of writing them and what
 * each of the ledger's indexes costs an offer row.
 *
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/offers-write.ts
 *   npx tsx bench/offers-write.ts --batches 300 --size 100 --runs 3 --prefill 200000
 *
 * Method: a database of its own, migrated, its ledger pre-filled with
 * --prefill offers (so the indexes are not tiny); one connection. Each
 * measurement writes --batches batches of --size offer rows (four campaigns of
 * one account, distinct viewers, random ~200-character impression ids, one
 * millisecond apart), one batch after the other, each the way the serving
 * writer does (its own implicit transaction, committed asynchronously):
 *  - insert       the unnest insert (`writeOffers(db, e, 'insert')`);
 *  - copy-text    COPY FROM STDIN, text format;
 *  - copy-binary  COPY FROM STDIN, binary format.
 * Reported per row: the PostgreSQL backend's CPU (from /proc/<pid>/schedstat:
 * nanoseconds on CPU; a local server only), this process's CPU, and the
 * batch's round trip; the median of --runs runs, the ways interleaved. Then
 * the same with the ledger's indexes that hold offer rows dropped one at a
 * time, and the CHECK constraints and the primary key that offer rows pay for
 * (--drop; the difference is what each costs an offer row). The WAL
 * writer's CPU is the server's (other databases' work shows in it), so it is
 * not counted.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { sql } from 'kysely'
import { openStore, type Db } from '../src/store/db.ts'
import { EventColumns, writeOffers, type OfferWrite } from '../src/store/ledger.ts'
import { createDatabase } from '../tools/lib/postgres.ts'
import { onInterrupt } from '../tools/lib/processes.ts'
import { median } from '../tools/lib/stats.ts'

const { values: args } = parseArgs({
  options: {
    batches: { type: 'string', default: '300' },
    size: { type: 'string', default: '100' },
    runs: { type: 'string', default: '3' },
    prefill: { type: 'string', default: '200000' },
    ways: { type: 'string', default: 'insert,copy-text,copy-binary' },
    drop: { type: 'string', default: 'ledger_creative_time,ledger_account_time,ledger_time,ledger_ids_plain,ledger_country_code,ledger_events_pkey' },
  },
  strict: true,
})
const BATCHES = Number(args.batches)
const SIZE = Number(args.size)
const RUNS = Number(args.runs)
const PREFILL = Number(args.prefill)
const WAYS = args.ways.split(',').filter(Boolean).map(offerWrite)
const DROPS = args.drop.split(',').filter(Boolean)
const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL
if (!adminUrl) {
  process.stderr.write('offers-write needs BENCH_DATABASE_URL or TEST_DATABASE_URL (a PostgreSQL server; a database of its own is created and dropped)\n')
  process.exit(2)
}

function offerWrite(s: string): OfferWrite {
  if (s === 'insert' || s === 'copy-text' || s === 'copy-binary') return s
  throw new Error(`unknown way "${s}" (insert, copy-text, copy-binary)`)
}

const USER = `usr_${randomBytes(8).toString('hex')}`
const CAMPAIGNS = Array.from({ length: 4 }, (_, i) => [`cmp_${i}${randomBytes(8).toString('hex')}`, `crv_${i}${randomBytes(8).toString('hex')}`] as const)
let nowMs = Date.parse('2026-11-02T09:00:00Z')
let viewer = 0

function makeBatch(): EventColumns {
  const e = new EventColumns()
  for (let i = 0; i < SIZE; i++) {
    const [campaign, creative] = CAMPAIGNS[i % CAMPAIGNS.length]!
    e.push(
      {
        occurred_at: new Date(nowMs),
        event_type: 'offer',
        impression_id: `imp_${randomBytes(146).toString('base64url')}`,
        user_id: USER,
        campaign_id: campaign,
        creative_id: creative,
        surface: i % 3 === 0 ? 'terminal' : 'extension',
        country: i % 2 === 0 ? 'US' : null,
        billable: false,
        viewer_key: `vk_${(viewer++).toString(36).padStart(8, '0')}${randomBytes(16).toString('base64url')}`,
      },
      0,
      null,
      null,
    )
  }
  nowMs++
  return e
}

/** Nanoseconds `pid` has run on a CPU (/proc/<pid>/schedstat), or null when not readable. */
function cpuNs(pid: number): number | null {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0])
  } catch {
    return null
  }
}

interface Measure {
  backendUs: number | null
  nodeUs: number
  tripUs: number
}

async function measure(db: Db, pid: number, way: OfferWrite): Promise<Measure> {
  const batches = Array.from({ length: BATCHES }, makeBatch)
  const cpu0 = cpuNs(pid)
  const js0 = process.cpuUsage()
  const t0 = process.hrtime.bigint()
  for (const e of batches) await writeOffers(db, e, way)
  const wall = Number(process.hrtime.bigint() - t0) / 1000
  const js = process.cpuUsage(js0)
  const cpu1 = cpuNs(pid)
  const rows = BATCHES * SIZE
  return {
    backendUs: cpu0 === null || cpu1 === null ? null : (cpu1 - cpu0) / 1000 / rows,
    nodeUs: (js.user + js.system) / rows,
    tripUs: wall / BATCHES,
  }
}

const database = await createDatabase(adminUrl, 'adapi_offers')
onInterrupt(() => database.drop())
const store = await openStore({ databaseUrl: database.url, dataDir: '', poolSize: 1 })
try {
  await run(store.db)
} finally {
  await store.close()
  await database.drop()
}

async function run(db: Db): Promise<void> {
  const pid = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db)).rows[0]!.pid
  for (let filled = 0; filled < PREFILL; filled += SIZE) await writeOffers(db, makeBatch(), 'copy-binary')
  await sql`VACUUM ANALYZE ledger_events`.execute(db)
  const indexes = await sql<{ name: string; def: string }>`
    SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE tablename = 'ledger_events' ORDER BY indexname`.execute(db)
  const f = (x: number | null) => (x === null ? 'n/a' : x.toFixed(2))
  const out = (line: string) => process.stdout.write(line + '\n')
  out(`offers-write: ${BATCHES} batches of ${SIZE} offer rows per run, median of ${RUNS} runs, ledger pre-filled with ${PREFILL} offers`)
  out(`ledger_events indexes:\n${indexes.rows.map((r) => `  ${r.def}`).join('\n')}`)
  // Warm-up: plans, caches, the table's current pages.
  for (const way of WAYS) for (let i = 0; i < 50; i++) await writeOffers(db, makeBatch(), way)

  const dropped: string[] = []
  const backendByState: Map<OfferWrite, number | null>[] = []
  for (const state of [null, ...DROPS]) {
    if (state !== null) {
      // An index, or a constraint (a CHECK, or the primary key with its index).
      const constraint = await sql`SELECT 1 FROM pg_constraint WHERE conname = ${state}`.execute(db)
      if (constraint.rows.length > 0) await sql`ALTER TABLE ledger_events DROP CONSTRAINT ${sql.id(state)}`.execute(db)
      else await sql`DROP INDEX ${sql.id(state)}`.execute(db)
      dropped.push(state)
    }
    const results = new Map<OfferWrite, Measure[]>(WAYS.map((w) => [w, []]))
    for (let r = 0; r < RUNS; r++) for (const way of WAYS) results.get(way)!.push(await measure(db, pid, way))
    out(dropped.length === 0 ? 'with every index:' : `without ${dropped.join(', ')}:`)
    const byWay = new Map<OfferWrite, number | null>()
    for (const way of WAYS) {
      const ms = results.get(way)!
      const backend = ms.some((m) => m.backendUs === null) ? null : median(ms.map((m) => m.backendUs!))
      byWay.set(way, backend)
      out(
        `  ${way.padEnd(12)} PostgreSQL backend ${f(backend)} µs a row (runs ${ms.map((m) => f(m.backendUs)).join(', ')}), ` +
          `this process ${f(median(ms.map((m) => m.nodeUs)))} µs a row, round trip ${f(median(ms.map((m) => m.tripUs)))} µs a batch`,
      )
    }
    backendByState.push(byWay)
  }
  if (DROPS.length > 0) {
    out('what each index or constraint costs an offer row (backend CPU, the difference to the state before it was dropped):')
    DROPS.forEach((name, i) => {
      const before = backendByState[i]!
      const after = backendByState[i + 1]!
      out(`  ${name.padEnd(22)} ${WAYS.map((w) => `${w} ${f(before.get(w)! === null || after.get(w)! === null ? null : before.get(w)! - after.get(w)!)}`).join(', ')} µs`)
    })
  }
}
