import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, test } from 'node:test'
import { postgresPoolOf } from '../../src/store/db.ts'
import { EventColumns, writeOffers, type OfferWrite } from '../../src/store/ledger.ts'
import { startService, STORE, type TestService } from '../helpers/service.ts'

// Offer batches (src/store/ledger.ts#writeOffers): on PostgreSQL each way (the insert, COPY in text and in
// binary format, src/store/ledger-copy.ts) writes the same rows; the embedded store always inserts.
let svc: TestService
before(async () => {
  svc = await startService()
})
after(async () => {
  await svc.close()
})

const WAYS: OfferWrite[] = ['insert', 'copy-text', 'copy-binary']

function offers(n: number, tag: string, overrides: { country?: string | null; viewer?: string } = {}): EventColumns {
  const e = new EventColumns()
  for (let i = 0; i < n; i++) {
    e.push(
      {
        // Millisecond instants, before and after 2000-01-01 (the binary format's epoch).
        occurred_at: new Date(Date.parse('2026-11-02T09:00:00.123Z') + i * 1001 - (i === 1 ? 30 * 365 * 86_400_000 : 0)),
        event_type: 'offer',
        impression_id: `imp_${tag}_${i}_${randomBytes(140).toString('base64url')}`,
        user_id: 'usr_offers1',
        campaign_id: `cmp_${tag}`,
        creative_id: 'crv_offers1',
        surface: i % 2 === 0 ? 'extension' : 'terminal',
        country: 'country' in overrides ? overrides.country! : i % 3 === 0 ? null : 'DE',
        billable: false,
        // Characters COPY's text format escapes, and non-ASCII text.
        viewer_key: overrides.viewer ?? `vk_${i}${i === 2 ? '\\x\t\n\r é' : ''}`,
      },
      0,
      null,
      null,
    )
  }
  return e
}

async function read(campaignId: string) {
  return svc.service.store.db
    .selectFrom('ledger_events')
    .select(['occurred_at', 'event_type', 'impression_id', 'user_id', 'campaign_id', 'creative_id', 'surface', 'country', 'billable', 'debit_micros', 'dwell_ms', 'reason', 'viewer_key'])
    .where('campaign_id', '=', campaignId)
    .orderBy('event_id')
    .execute()
}

test('the serving writer\'s store can COPY on PostgreSQL, not on the embedded store', () => {
  assert.equal(postgresPoolOf(svc.service.store.db) !== undefined, STORE === 'postgres')
})

for (const way of WAYS) {
  test(`${way}: an offer batch is written row for row${STORE === 'embedded' && way !== 'insert' ? ' (the embedded store inserts)' : ''}`, async () => {
    const tag = way.replace('-', '')
    const e = offers(7, tag)
    await writeOffers(svc.service.store.db, e, way)
    const rows = await read(`cmp_${tag}`)
    assert.equal(rows.length, 7)
    rows.forEach((r, i) => {
      assert.equal(new Date(r.occurred_at).getTime(), e.atMs[i])
      assert.deepEqual(
        [r.event_type, r.impression_id, r.user_id, r.creative_id, r.surface, r.country, r.billable, r.debit_micros, r.dwell_ms, r.reason, r.viewer_key],
        ['offer', e.impression[i], 'usr_offers1', 'crv_offers1', e.surface[i], e.country[i], false, 0, null, null, e.viewer[i]],
      )
    })
  })

  test(`${way}: a batch the ledger refuses writes nothing and leaves the store usable; a batch of 2,000 goes through`, async () => {
    const tag = `${way.replace('-', '')}bad`
    // ledger_country_code (migration 0010) refuses the row: the whole batch fails.
    const bad = offers(5, tag)
    bad.country[3] = 'germany'
    await assert.rejects(writeOffers(svc.service.store.db, bad, way), /ledger_country_code/)
    assert.equal((await read(`cmp_${tag}`)).length, 0)
    const big = offers(2_000, tag, { country: 'FR' })
    await writeOffers(svc.service.store.db, big, way)
    assert.equal((await read(`cmp_${tag}`)).length, 2_000)
  })
}
