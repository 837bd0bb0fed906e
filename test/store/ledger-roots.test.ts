import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { callService, createDatabase, startService, STORE, ADMIN_TOKEN, type TestService } from '../helpers/service.ts'
import { sealLedgerDays } from '../../src/services/ledger-days.ts'
import { chainSeed, chainStep, bytesToHex, leafHash, ZERO_ROOT } from '../../packages/sdk/src/ledger-verify.ts'
import { nodeSha256 } from '../helpers/ledger.ts'

// A day root is a function of the rows alone: the same rows give the same hex on both stores, after a
// restart, and from the SDK's independent implementation. The rows are written directly, with fixed ids
// and instants (microseconds included), so the expected hex is fixed.

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }

/** Fixed rows: two accounts over two days, every kind of field (null country, reasons, a click, a sub-millisecond instant). */
const FIXTURE = [
  ['2026-11-02 10:00:00.123456+00', 'impression', 'usr_fixtureB', 'cmp_fixture2', 'crv_fixture2', 'terminal', 'DE', true, 2500, null],
  ['2026-11-02 09:00:00.000001+00', 'impression', 'usr_fixtureA', 'cmp_fixture1', 'crv_fixture1', 'extension', 'US', true, 3700, null],
  ['2026-11-02 09:00:00.000001+00', 'view', 'usr_fixtureA', 'cmp_fixture1', 'crv_fixture1', 'extension', null, false, 0, 'short_dwell'],
  ['2026-11-02 09:00:05.5+00', 'repeat_view', 'usr_fixtureA', 'cmp_fixture1', 'crv_fixture1', 'extension', 'US', false, 0, 'repeat'],
  ['2026-11-02 23:59:59.999999+00', 'click', 'usr_fixtureA', 'cmp_fixture1', 'crv_fixture1', 'extension', 'US', true, 0, null],
  ['2026-11-03 00:00:00+00', 'impression', 'usr_fixtureA', 'cmp_fixture1', 'crv_fixture1', 'extension', 'FR', true, 3700, null],
] as const

/** Computed once (on the embedded store) and fixed: both stores and the SDK must reproduce them. */
const EXPECTED = {
  '2026-11-02': {
    usr_fixtureA: '014af1c6f5b2ec6a3cc7f99e752b83b741938a3443d3b06e747554c94987225b',
    usr_fixtureB: '94083300364e21943fb71544e925429cc4ef9b9be81610903b21f7b5f15e612b',
    head: '1113b247c48bbaa274b1c588f96aa5764d4fa049bd20129ece244dc9de06de6c',
  },
  '2026-11-03': {
    usr_fixtureA: '8d235f78ec95f46cd28748e2d911e4b3b0f54b282826dd40a6a8892a85d42dc8',
    head: '6d9615d60605021d97b1acff178218a1508ea3695888754a7c946051934e730d',
  },
}

async function writeFixture(svc: TestService): Promise<void> {
  for (const [at, type, user, campaign, creative, surface, country, billable, debit, reason] of FIXTURE) {
    await sql`INSERT INTO ledger_events (occurred_at, event_type, impression_key, user_id, campaign_id, creative_id, surface, country, billable, debit_micros, reason, viewer_key)
              VALUES (${at}::timestamptz, ${type}, ledger_claim_key(${`imp_${at}`}), ${user}, ${campaign}, ${creative}, ${surface}, ${country}, ${billable}, ${debit}, ${reason}, 'viewer_fixture')`.execute(
      svc.service.store.db,
    )
  }
}

async function roots(svc: TestService) {
  const days = await svc.service.store.db.selectFrom('ledger_days').select([sql<string>`day::text`.as('day'), 'user_id', 'root', 'previous_root']).orderBy('day').orderBy('user_id').execute()
  const heads = await svc.service.store.db.selectFrom('ledger_tree_heads').select([sql<string>`day::text`.as('day'), 'root_hash', 'tree_size']).orderBy('day').execute()
  return { days, heads }
}

test('a day root is fixed by the rows: the expected hex on this store, after a restart, and from the SDK', async () => {
  const database = STORE === 'postgres' ? await createDatabase(process.env.TEST_DATABASE_URL!) : null
  const env: Record<string, string> = database ? { DATABASE_URL: database.url } : {}
  try {
    const first = await startService({ ...env, CLOCK_START: '2026-11-02T08:00:00Z' })
    await writeFixture(first)
    assert.equal((await callService(first, 'POST', '/admin/v1/clock', { now: '2026-11-04T00:20:00Z' }, admin)).status, 200)
    const sealed = await roots(first)
    const dump = first.service.store.dump ? await first.service.store.dump() : undefined
    await first.close()

    const byDay = (r: typeof sealed) => Object.fromEntries(r.heads.map((h) => [h.day, { ...Object.fromEntries(r.days.filter((d) => d.day === h.day).map((d) => [d.user_id, d.root])), head: h.root_hash }]))
    assert.deepEqual(byDay(sealed), EXPECTED)
    assert.equal(sealed.days.find((d) => d.day === '2026-11-03')!.previous_root, EXPECTED['2026-11-02'].usr_fixtureA)

    // The SDK's implementation, from the rows as the export writes them, reaches the same roots.
    let h = chainSeed(nodeSha256, 'usr_fixtureA', '2026-11-02', ZERO_ROOT)
    for (const row of [
      ['2026-11-02T09:00:00.000Z', 'impression', 'cmp_fixture1', 'crv_fixture1', 'extension', 'US', 'true', '3700', ''],
      ['2026-11-02T09:00:00.000Z', 'view', 'cmp_fixture1', 'crv_fixture1', 'extension', '', 'false', '0', 'short_dwell'],
      ['2026-11-02T09:00:05.500Z', 'repeat_view', 'cmp_fixture1', 'crv_fixture1', 'extension', 'US', 'false', '0', 'repeat'],
      ['2026-11-02T23:59:59.999Z', 'click', 'cmp_fixture1', 'crv_fixture1', 'extension', 'US', 'true', '0', ''],
    ]) {
      h = chainStep(nodeSha256, h, row)
    }
    assert.equal(bytesToHex(h), EXPECTED['2026-11-02'].usr_fixtureA)
    assert.match(bytesToHex(leafHash(nodeSha256, 'usr_fixtureA', bytesToHex(h))), /^[0-9a-f]{64}$/)

    // A restart reads the same roots, and closing again changes nothing.
    const second = await startService({ ...env, CLOCK_START: '2026-11-04T01:00:00Z' }, { loadDataDir: dump })
    try {
      assert.deepEqual(await sealLedgerDays(second.service.store.db, new Date('2026-11-04T01:00:00Z')), { days_sealed: 0, sealed_through: '2026-11-03' })
      assert.deepEqual(await roots(second), sealed)
    } finally {
      await second.close()
    }
  } finally {
    await database?.drop()
  }
})
