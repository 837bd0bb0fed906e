import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { campaignIds, useService, type Advertiser } from '../helpers/api.ts'
import { createDatabase, STORE } from '../helpers/service.ts'
import { impressionKey, impressionKeyHex } from '../helpers/impression-key.ts'
import { commitLedgerBatch } from '../../src/serving/ledger-batch.ts'
import { eventRow, type ViewClaim } from '../../src/serving/ledger-claims.ts'
import type { Offer } from '../../src/domain/offer.ts'
import { LeaseBook } from '../../src/serving/leases.ts'
import { openStore, type Db } from '../../src/store/db.ts'
import { EventColumns, isRace, writeBatch } from '../../src/store/ledger.ts'
import { servingLimitsOf } from '../../src/domain/rate-limits.ts'
import { DEFAULT_CONFIG } from '../../src/domain/order-config.ts'

/**
 * The ledger row holds `impression_key`, `ledger_claim_key(impression_id)` (16 bytes of the id's SHA-256,
 * the key its claims hold), and no impression id (migration 0040; docs/decisions/0580-…), on both
 * stores: as a batch writes it, in every partition (one made after the migration too), and on a store
 * upgraded from 0039 whose rows and claims were written with the id.
 */
const h = useService({}, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })
const db = () => h.svc.service.store.db
const LIMITS = servingLimitsOf(DEFAULT_CONFIG).sources
const NOW = new Date('2026-11-02T09:00:30.000Z')

const campaign = (adv: Advertiser) => campaignIds(h, adv, { cpm_usd: 2 })

/** The ledger's relations (the table and each partition) with their impression columns still there. */
async function impressionColumns(store: Db) {
  const { rows } = await sql<{ rel: string; name: string; type: string; not_null: boolean }>`
    SELECT c.relname AS rel, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null
    FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
    WHERE (c.oid = 'ledger_events'::regclass OR c.oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'ledger_events'::regclass))
      AND a.attname IN ('impression_id', 'impression_key') AND NOT a.attisdropped
    ORDER BY c.relname`.execute(store)
  return rows
}

/** A non-billable view of `impressionId` (short dwell): a batch writes it without lease or bounds. */
function shortView(impressionId: string, offer: Offer, at: Date): EventColumns {
  const e = new EventColumns()
  e.push(eventRow('view', impressionId, offer, at), 0, 3_000, 'short_dwell', false)
  return e
}

test('a billable view\'s ledger row holds the 16-byte key of its impression id, the key its claim holds; no relation of the ledger has an id column', async () => {
  const c = await campaign(await h.advertiser())
  const impressionId = `imp_key_${process.pid}_billable`
  const offer: Offer = { ...c, surface: 'extension', country: 'US', viewerKey: 'vk_key_billable', source: '203.0.113.7', offeredAtMs: NOW.getTime() - 20_000, origin: 0 }
  const view: ViewClaim = { impressionId, offer, dwellMs: 10_000, reason: null, limits: LIMITS }
  const written = await commitLedgerBatch(db(), NOW, { clicks: [], views: [view] }, new LeaseBook())
  assert.deepEqual(written.views, [{ billable: true }])

  const rows = await db().selectFrom('ledger_events').select(['event_type', 'impression_key']).where('campaign_id', '=', c.campaignId).execute()
  assert.deepEqual(rows, [{ event_type: 'impression', impression_key: impressionKey(impressionId) }])
  assert.equal(rows[0]!.impression_key.length, 16)
  const { rows: same } = await sql<{ same: boolean }>`
    SELECT impression_key = ledger_claim_key(${impressionId}) AS same FROM ledger_events WHERE campaign_id = ${c.campaignId}`.execute(db())
  assert.deepEqual(same, [{ same: true }], 'the test\'s key is the store\'s ledger_claim_key')
  const claims = await db().selectFrom('ledger_claims').select('kind').where('impression_key', '=', rows[0]!.impression_key).execute()
  assert.deepEqual(claims, [{ kind: 'view' }])

  // A month partition made after the migration (CREATE TABLE ... LIKE ledger_events) has the key and its CHECK too.
  await sql`SELECT ledger_ensure_partition('2031-07-01')`.execute(db())
  const columns = await impressionColumns(db())
  assert.ok(columns.some((r) => r.rel === 'ledger_events_default') && columns.some((r) => r.rel === 'ledger_events_2031_07'), JSON.stringify(columns))
  assert.ok(columns.length >= 4, 'the table, its DEFAULT partition and month partitions')
  for (const r of columns) assert.deepEqual(r, { rel: r.rel, name: 'impression_key', type: 'bytea', not_null: true })
  const insert = (key: Buffer | null) =>
    sql`INSERT INTO ledger_events (occurred_at, event_type, impression_key, user_id, campaign_id, creative_id, surface, billable, viewer_key)
      VALUES ('2031-07-10T00:00:00Z', 'click', ${key}, ${c.userId}, 'cmp_key', 'crv_key', 'terminal', false, 'vk_key')`.execute(db())
  await assert.rejects(insert(impressionKey('imp_key_short').subarray(0, 15)), (err: { code?: string; constraint?: string }) => err.code === '23514' && err.constraint === 'ledger_impression_key_length')
  await assert.rejects(insert(null), (err: { code?: string }) => err.code === '23502')
  await insert(impressionKey('imp_key_july'))
  const { rows: july } = await sql<{ p: string }>`
    SELECT tableoid::regclass::text AS p FROM ledger_events WHERE impression_key = ledger_claim_key('imp_key_july')`.execute(db())
  assert.deepEqual(july, [{ p: 'ledger_events_2031_07' }])
})

test('a batch names the views it lost to a claim already held by their impression ids', async () => {
  const c = await campaign(await h.advertiser())
  const offer: Offer = { ...c, surface: 'terminal', country: 'DE', viewerKey: 'vk_key_lost', source: null, offeredAtMs: NOW.getTime() - 20_000, origin: 0 }
  const held = `imp_key_${process.pid}_held`
  const fresh = `imp_key_${process.pid}_fresh`
  assert.deepEqual(await writeBatch(db(), NOW, shortView(held, offer, NOW), 'holder_key', [], 0, 'skip', LIMITS), { lost: null })
  const both = shortView(held, offer, NOW)
  both.push(eventRow('view', fresh, offer, NOW), 0, 3_000, 'short_dwell', false)
  assert.deepEqual(await writeBatch(db(), NOW, both, 'holder_key', [], 0, 'skip', LIMITS), { lost: [held] })
  const rows = await db().selectFrom('ledger_events').select('impression_key').where('campaign_id', '=', c.campaignId).orderBy('event_id').execute()
  assert.deepEqual(rows.map((r) => r.impression_key.toString('hex')), [impressionKeyHex(held), impressionKeyHex(fresh)])
})

test('migration 0040 on a store of 0039: rows in a month and the DEFAULT partition keep their impression\'s key; a repeat of one is still refused', async () => {
  const before = '0039_ledger_sourced_time_dropped'
  const pg = STORE === 'postgres' ? await createDatabase(process.env.TEST_DATABASE_URL!) : null
  try {
    const old = await openStore({ databaseUrl: pg?.url ?? null, dataDir: '', inMemory: true, migrateThrough: before })
    // A month partition (the migrations make the real clock's months; this one may be among them) and a row past every partition.
    await sql`SELECT ledger_ensure_partition('2026-11-01')`.execute(old.db)
    const rows = [
      { id: 'imp_old_november_view', at: '2026-11-02T09:00:00Z', type: 'impression', billable: true, reason: null },
      { id: 'imp_old_november_click', at: '2026-11-02T09:01:00Z', type: 'click', billable: false, reason: null },
      { id: 'imp_old_far_future', at: '2040-03-01T12:00:00Z', type: 'view', billable: false, reason: 'short_dwell' },
    ]
    for (const r of rows) {
      await sql`INSERT INTO ledger_events (occurred_at, event_type, impression_id, user_id, campaign_id, creative_id, surface, country, billable, dwell_ms, reason, viewer_key)
        VALUES (${r.at}::timestamptz, ${r.type}, ${r.id}, 'usr_old', 'cmp_old', 'crv_old', 'extension', 'US', ${r.billable}, 10000, ${r.reason}, 'vk_old')`.execute(old.db)
      await sql`INSERT INTO ledger_claims (impression_key, kind, claimed_at)
        VALUES (ledger_claim_key(${r.id}), ${r.type === 'click' ? 'click' : 'view'}, ${r.at}::timestamptz)`.execute(old.db)
    }
    const dump = old.dump ? await old.dump() : undefined
    await old.close()

    const upgraded = await openStore({ databaseUrl: pg?.url ?? null, dataDir: '', inMemory: true, ...(dump ? { loadDataDir: dump } : {}) })
    try {
      const store = upgraded.db
      const keyed = async () =>
        (
          await sql<{ key: string; p: string; event_type: string }>`
            SELECT encode(impression_key, 'hex') AS key, tableoid::regclass::text AS p, event_type FROM ledger_events WHERE user_id = 'usr_old' ORDER BY occurred_at`.execute(store)
        ).rows
      assert.deepEqual(await keyed(), [
        { key: impressionKeyHex('imp_old_november_view'), p: 'ledger_events_2026_11', event_type: 'impression' },
        { key: impressionKeyHex('imp_old_november_click'), p: 'ledger_events_2026_11', event_type: 'click' },
        { key: impressionKeyHex('imp_old_far_future'), p: 'ledger_events_default', event_type: 'view' },
      ])
      for (const r of await impressionColumns(store)) assert.deepEqual(r, { rel: r.rel, name: 'impression_key', type: 'bytea', not_null: true })

      // The DEFAULT partition's row moves into the month made for it (ledger_ensure_partition copies rows by position).
      await sql`SELECT ledger_ensure_partition('2040-03-01')`.execute(store)
      assert.deepEqual((await keyed()).map((r) => r.p), ['ledger_events_2026_11', 'ledger_events_2026_11', 'ledger_events_2040_03'])
      assert.equal((await keyed())[2]!.key, impressionKeyHex('imp_old_far_future'))

      // A repeat of the old measured view: dropped and named lost by a batch judged from the store, failing one judged from known state.
      const offer: Offer = { userId: 'usr_old', campaignId: 'cmp_old', creativeId: 'crv_old', surface: 'extension', country: 'US', viewerKey: 'vk_old', source: null, offeredAtMs: NOW.getTime() - 20_000, origin: 0 }
      assert.deepEqual(await writeBatch(store, NOW, shortView('imp_old_november_view', offer, NOW), 'holder_old', [], 0, 'skip', LIMITS), { lost: ['imp_old_november_view'] })
      await assert.rejects(writeBatch(store, NOW, shortView('imp_old_november_view', offer, NOW), 'holder_old', [], 0, 'fail', LIMITS), (err) => isRace(err))
      assert.equal((await keyed()).length, 3, 'no row written for the repeat')
      // A new impression of the same statement is written with its key.
      assert.deepEqual(await writeBatch(store, NOW, shortView('imp_new_after_upgrade', offer, NOW), 'holder_old', [], 0, 'fail', LIMITS), { lost: null })
      assert.deepEqual(
        (await keyed()).filter((r) => r.key === impressionKeyHex('imp_new_after_upgrade')),
        [{ key: impressionKeyHex('imp_new_after_upgrade'), p: 'ledger_events_2026_11', event_type: 'view' }],
      )
    } finally {
      await upgraded.close()
    }
  } finally {
    await pg?.drop()
  }
})
