import { randomUUID } from 'node:crypto'
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ADMIN_TOKEN, callService, createDatabase, startService, STORE, type TestService } from '../helpers/service.ts'
import { campaignBody } from '../helpers/api.ts'

/**
 * Missed runs and several instances (issue 19): the scheduler keeps a
 * watermark per job in the store, so an instance started after a due instant
 * runs what it missed, and instances sharing one PostgreSQL run each
 * invoicing occurrence once.
 */

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }

const call = callService

/** A weekly auto-pay advertiser with a campaign in `country` that has delivered `n` impressions at 10,000 micros. */
async function deliveredAdvertiser(svc: TestService, country: string, n: number): Promise<string> {
  const { body } = await call(svc, 'POST', '/admin/v1/accounts', { email: `schedule-${country}-${randomUUID()}@example.dev` }, admin)
  const userId: string = body.user_id
  await call(svc, 'POST', `/admin/v1/accounts/${userId}/write-approval`, { approved: true }, admin)
  await call(svc, 'POST', `/admin/v1/accounts/${userId}/terms`, { accepted: true }, admin)
  await call(svc, 'POST', `/admin/v1/accounts/${userId}/billing`, { mode: 'weekly_autopay', card_number: '4242424242424242' }, admin)
  const auth = { 'x-service-user-id': userId, 'x-service-api-key': body.api_key, 'x-forwarded-for': '203.0.113.9' }
  const created = await call(svc, 'POST', '/v1/campaigns', campaignBody({ target_countries: [country], cpm_usd: 10 }), auth)
  assert.equal(created.status, 201, created.text)
  const offers = []
  for (let i = 0; i < n; i++) {
    const d = await call(svc, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id: `schedule-${country}-${i}`, country })
    assert.equal(d.status, 200, d.text)
    offers.push(d.body.impression_id)
  }
  assert.equal((await call(svc, 'POST', '/admin/v1/clock', { advance_seconds: 10 }, admin)).status, 200)
  for (const id of offers) assert.equal((await call(svc, 'POST', `/serve/v1/impressions/${id}/view`, { dwell_ms: 10_000 })).status, 204)
  return userId
}

const invoices = async (svc: TestService, userId: string) => (await call(svc, 'GET', `/admin/v1/accounts/${userId}/invoices`, undefined, admin)).body.invoices

test('a service stopped before Monday 06:00 and started after it invoices that week on start', async () => {
  // Both stores: PostgreSQL through a database both instances open; the embedded store through its data directory.
  const database = STORE === 'postgres' ? await createDatabase(process.env.TEST_DATABASE_URL!) : null
  const env: Record<string, string> = database ? { DATABASE_URL: database.url } : {}
  try {
    const first = await startService(env) // Monday 2026-11-02 09:00 UTC
    const userId = await deliveredAdvertiser(first, 'SC', 3)
    assert.equal((await call(first, 'POST', '/admin/v1/clock', { now: '2026-11-08T22:00:00Z' }, admin)).status, 200) // Sunday night
    assert.deepEqual(await invoices(first, userId), [])
    const dump = first.service.store.dump ? await first.service.store.dump() : undefined
    await first.close()

    const second = await startService({ ...env, CLOCK_START: '2026-11-09T08:30:00Z' }, { loadDataDir: dump })
    try {
      const [invoice, ...rest] = await invoices(second, userId)
      assert.equal(rest.length, 0)
      assert.equal(invoice.period.end, '2026-11-09T06:00:00.000Z')
      assert.equal(invoice.finalized_at, '2026-11-09T08:30:00.000Z', 'finalized on start, at the service time')
      assert.deepEqual([invoice.delivered_micros, invoice.amount_cents, invoice.status], [30_000, 3, 'paid'])
      // Caught up: moving on from there bills the next Monday once, and nothing twice.
      assert.equal((await call(second, 'POST', '/admin/v1/clock', { now: '2026-11-16T07:00:00Z' }, admin)).status, 200)
      assert.equal((await invoices(second, userId)).length, 1, 'the second week delivered nothing')
    } finally {
      await second.close()
    }
  } finally {
    await database?.drop()
  }
})

test('two instances on one PostgreSQL produce one invoice per period, charged once', { skip: STORE !== 'postgres' && 'two instances need a shared PostgreSQL' }, async () => {
  const a = await startService()
  const b = await startService({ DATABASE_URL: a.databaseUrl! })
  try {
    const userIds = [await deliveredAdvertiser(a, 'TA', 2), await deliveredAdvertiser(b, 'TB', 3)]
    // Both instances move their clocks over three Mondays at the same time, and both run the job on demand.
    for (const monday of ['2026-11-09T06:00:00Z', '2026-11-16T06:00:00Z', '2026-11-23T06:00:00Z']) {
      const moves = await Promise.all([a, b].map((svc) => call(svc, 'POST', '/admin/v1/clock', { now: monday }, admin)))
      for (const m of moves) assert.equal(m.status, 200, m.text)
      await Promise.all([a, b].map((svc) => call(svc, 'POST', '/admin/v1/jobs/invoicing/run', undefined, admin)))
    }
    for (const [i, userId] of userIds.entries()) {
      const all = await invoices(a, userId)
      assert.equal(all.length, 1)
      assert.deepEqual([all[0].period.end, all[0].amount_cents, all[0].status, all[0].charge_attempts], ['2026-11-09T06:00:00.000Z', 2 + i, 'paid', 1])
    }
    const charges = await a.service.store.db
      .selectFrom('billing_events')
      .select('event_type')
      .where('user_id', 'in', userIds)
      .where('event_type', '=', 'charge_attempted')
      .execute()
    assert.equal(charges.length, 2, 'one charge per invoice')
  } finally {
    await b.close()
    await a.close()
  }
})
