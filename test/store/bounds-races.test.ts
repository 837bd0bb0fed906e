import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { campaignIds, useService, type Advertiser } from '../helpers/api.ts'
import { createDatabase, STORE } from '../helpers/service.ts'
import { openStore } from '../../src/store/db.ts'
import { readSourceUse } from '../../src/store/ledger-state.ts'
import { commitLedgerBatch } from '../../src/serving/ledger-batch.ts'
import { LeaseBook } from '../../src/serving/leases.ts'
import { servingLimitsOf } from '../../src/domain/rate-limits.ts'
import { DEFAULT_CONFIG } from '../../src/domain/order-config.ts'
import type { ViewClaim } from '../../src/serving/ledger-claims.ts'

/**
 * The bounds' rows under concurrent batches (migration 0041, src/store/ledger.ts#writeBatch): a
 * source's first viewer of the day is held in its counts row, its other viewers listed, and a viewer's
 * ten-second slot is a row of its own; all three are written by plain inserts, so a batch that loses
 * the race to insert one fails on its key and is judged again from the store (`isRace`). Whatever
 * the interleaving, the counts equal the distinct viewers billed, each held once.
 */
const h = useService({}, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })
const NOW = new Date('2026-11-02T09:00:30.000Z')
const db = () => h.svc.service.store.db
const skip = STORE !== 'postgres' ? 'concurrent writers need PostgreSQL (the embedded store has one connection)' : false

const campaign = (adv: Advertiser) => campaignIds(h, adv, { cpm_usd: 4 })

let n = 0
function viewOf(c: Awaited<ReturnType<typeof campaign>>, viewerKey: string, source: string): ViewClaim {
  n++
  return {
    impressionId: `bounds-race-${process.pid}-${n}`,
    offer: { ...c, surface: 'terminal', country: 'US', viewerKey, source, offeredAtMs: NOW.getTime() - 20_000, origin: 0 },
    dwellMs: 10_000,
    reason: null,
    limits: servingLimitsOf(DEFAULT_CONFIG).sources,
  }
}

const viewersOf = async (source: string) => {
  const counts = await db().selectFrom('source_counts').select(['viewers', 'hour_billable', 'first_viewer']).where('source', '=', source).executeTakeFirstOrThrow()
  const listed = await db().selectFrom('source_day_viewers').select('viewer_key').where('source', '=', source).execute()
  return { ...counts, held: [counts.first_viewer, ...listed.map((r) => r.viewer_key)].sort() }
}

test('eight batches at once on one new source: its counts equal the distinct viewers billed, each held once', { skip }, async () => {
  const c = await campaign(await h.advertiser())
  const source = '198.51.100.71'
  // Eight instances, each with three viewers of the source; viewers 0-3 are in two batches each.
  const batches = Array.from({ length: 8 }, (_, b) => [0, 1, 2].map((i) => viewOf(c, `race-viewer-${(b * 3 + i) % 20}`, source)))
  const results = await Promise.all(batches.map((views) => commitLedgerBatch(db(), NOW, { views, clicks: [] }, new LeaseBook())))
  const billedViewers = new Set(results.flatMap((r, b) => r.views.flatMap((v, i) => (v.billable ? [batches[b]![i]!.offer.viewerKey] : []))))
  const refused = results.flatMap((r) => r.views.filter((v) => !v.billable).map((v) => v.reason))
  // A viewer's second view in the same ten seconds is refused, whichever batch came first.
  assert.deepEqual(refused, Array(4).fill('viewer_frequency'))
  assert.equal(billedViewers.size, 20)
  const got = await viewersOf(source)
  assert.equal(got.viewers, 20)
  assert.equal(got.hour_billable, 20)
  assert.deepEqual(got.held, [...billedViewers].sort(), 'each billed viewer held once: the first in the counts row, the others listed')
  const slots = await sql<{ n: number }>`SELECT count(*)::int AS n FROM viewer_last_billable WHERE viewer_key LIKE 'race-viewer-%'`.execute(db())
  assert.equal(slots.rows[0]!.n, 20)
})

test('a batch that loses the race to insert a source\'s counts row is judged again and counts its viewer beside the winner\'s', { skip }, async () => {
  const c = await campaign(await h.advertiser())
  const source = '198.51.100.72'
  let pending: Promise<unknown> | undefined
  await db().transaction().execute(async (trx) => {
    // Another writer holds the source's first row of the day, not yet committed...
    await sql`INSERT INTO source_counts (source, day, first_viewer, viewers, hour, hour_billable)
      VALUES (${source}, '2026-11-02', 'the-winner', 1, '2026-11-02T09:00:00Z', 1)`.execute(trx)
    // ... while this batch, whose snapshot has no row for the source, inserts one too: it waits on the key.
    pending = commitLedgerBatch(db(), NOW, { views: [viewOf(c, 'the-loser', source)], clicks: [] }, new LeaseBook())
    await new Promise((r) => setTimeout(r, 300))
  })
  const result = (await pending) as Awaited<ReturnType<typeof commitLedgerBatch>>
  assert.equal(result.views[0]!.billable, true)
  assert.ok(result.retries >= 1, 'the first statement failed on source_counts_pkey and the batch was judged again')
  const got = await viewersOf(source)
  assert.deepEqual({ viewers: got.viewers, hour_billable: got.hour_billable, held: got.held }, { viewers: 2, hour_billable: 2, held: ['the-loser', 'the-winner'] })
})

/** A token's bytes as the batch statement reads them: type, nonce (bytes 3-34), digest, key id (67-98), authenticator. */
function tokenOf(seed: number) {
  const bytes = Buffer.alloc(354, seed)
  bytes.writeUInt16BE(2, 0)
  return { bytes, nonce: bytes.subarray(2, 34).toString('hex') }
}

test('one token in two batches at once bills once: the batch that loses the nonce is judged again and finds it spent', { skip }, async () => {
  const c = await campaign(await h.advertiser())
  const token = tokenOf(0x5a)
  const [a, b] = [viewOf(c, 'token-viewer-a', '198.51.100.73'), viewOf(c, 'token-viewer-b', '198.51.100.74')]
  const results = await Promise.all([a, b].map((v) => commitLedgerBatch(db(), NOW, { views: [{ ...v, token }], clicks: [] }, new LeaseBook())))
  const outcomes = results.map((r) => (r.views[0]!.billable ? 'billable' : r.views[0]!.reason)).sort()
  assert.deepEqual(outcomes, ['billable', 'invalid_token'])
  const spent = await sql<{ n: number }>`SELECT count(*)::int AS n FROM spent_tokens WHERE nonce = ${token.bytes.subarray(2, 34)}`.execute(db())
  assert.equal(spent.rows[0]!.n, 1)
})

test('a token another writer is spending is refused once that writer commits', { skip }, async () => {
  const c = await campaign(await h.advertiser())
  const token = tokenOf(0x6b)
  let pending: Promise<unknown> | undefined
  await db().transaction().execute(async (trx) => {
    await sql`INSERT INTO spent_tokens (nonce, token_key_id, spent_at) VALUES (${token.bytes.subarray(2, 34)}, ${token.bytes.subarray(66, 98)}, ${NOW})`.execute(trx)
    pending = commitLedgerBatch(db(), NOW, { views: [{ ...viewOf(c, 'token-viewer-c', '198.51.100.75'), token }], clicks: [] }, new LeaseBook())
    await new Promise((r) => setTimeout(r, 300))
  })
  const result = (await pending) as Awaited<ReturnType<typeof commitLedgerBatch>>
  assert.equal(result.views[0]!.billable, false)
  assert.equal(result.views[0]!.reason, 'invalid_token')
  assert.ok(result.retries >= 1, 'the first statement failed on spent_tokens_pkey and the batch was judged again')
})

const seqScans = async () => {
  // Statistics reach the shared counters within a second of a backend going idle (PostgreSQL 15).
  await new Promise((r) => setTimeout(r, 1_200))
  const { rows } = await sql<{ relname: string; seq_scan: number }>`
    SELECT relname, seq_scan::int AS seq_scan FROM pg_stat_user_tables WHERE relname IN ('source_counts', 'source_day_viewers') ORDER BY relname`.execute(db())
  return rows
}

test('the batch statement probes the bounds by key even with plans made while the tables were nearly empty', { skip }, async () => {
  const c = await campaign(await h.advertiser())
  await sql`ANALYZE source_counts, source_day_viewers, viewer_last_billable`.execute(db())
  // Enough batches for every pooled connection to keep a generic plan made on these statistics...
  for (let i = 0; i < 40; i++) await commitLedgerBatch(db(), NOW, { views: [viewOf(c, `plan-viewer-${i}`, `198.18.0.${i}`)], clicks: [] }, new LeaseBook())
  // ... then the tables grow as a day of traffic grows them, with no ANALYZE since.
  await sql`INSERT INTO source_counts (source, day, first_viewer, viewers, hour, hour_billable)
    SELECT '172.20.' || (g / 256) || '.' || (g % 256), '2026-11-02', 'v' || g, 2, '2026-11-02T09:00:00Z', 2 FROM generate_series(1, 20000) g`.execute(db())
  await sql`INSERT INTO source_day_viewers (source, day, viewer_key)
    SELECT '172.20.' || (g / 256) || '.' || (g % 256), '2026-11-02', 'w' || g FROM generate_series(1, 20000) g`.execute(db())
  const before = await seqScans()
  for (let i = 0; i < 20; i++) await commitLedgerBatch(db(), NOW, { views: [viewOf(c, `plan-viewer-late-${i}`, `198.18.1.${i}`)], clicks: [] }, new LeaseBook())
  assert.deepEqual(await seqScans(), before, 'no batch scanned source_counts or source_day_viewers')
})

test('a source counted before migration 0041 keeps every viewer listed: its first viewer is none, and its viewers are known', async () => {
  const pg = STORE === 'postgres' ? await createDatabase(process.env.TEST_DATABASE_URL!) : null
  try {
    const old = await openStore({ databaseUrl: pg?.url ?? null, dataDir: '', inMemory: true, migrateThrough: '0040_ledger_impression_key' })
    await sql`INSERT INTO source_counts (source, day, viewers, hour, hour_billable) VALUES ('203.0.113.41', '2026-11-02', 2, '2026-11-02T09:00:00Z', 2)`.execute(old.db)
    await sql`INSERT INTO source_day_viewers (source, day, viewer_key) VALUES ('203.0.113.41', '2026-11-02', 'old-viewer-1'), ('203.0.113.41', '2026-11-02', 'old-viewer-2')`.execute(old.db)
    const dump = old.dump ? await old.dump() : undefined
    await old.close()
    const upgraded = await openStore({ databaseUrl: pg?.url ?? null, dataDir: '', inMemory: true, ...(dump ? { loadDataDir: dump } : {}) })
    try {
      const state = await sql<{ viewer_key: string; counted: boolean; first_viewer: string | null; listed: boolean; viewers: number }>`
        SELECT viewer_key, counted, first_viewer, listed, viewers FROM source_day_state(
          ARRAY['203.0.113.41', '203.0.113.41'], ARRAY['old-viewer-1', 'a-new-viewer'], ARRAY[1, 1], '2026-11-02') ORDER BY viewer_key`.execute(upgraded.db)
      assert.deepEqual(state.rows, [
        { viewer_key: 'a-new-viewer', counted: true, first_viewer: null, listed: false, viewers: 2 },
        { viewer_key: 'old-viewer-1', counted: true, first_viewer: null, listed: true, viewers: 2 },
      ])
      const use = await readSourceUse(upgraded.db, [{ source: '203.0.113.41', viewerKey: 'old-viewer-1' }, { source: '203.0.113.41', viewerKey: 'a-new-viewer' }], NOW.getTime())
      const u = use.get('203.0.113.41')!
      assert.equal(u.viewers, 2)
      assert.deepEqual([...u.knownViewers], ['old-viewer-1'])
    } finally {
      await upgraded.close()
    }
  } finally {
    await pg?.drop()
  }
})
