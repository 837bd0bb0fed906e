import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { openStore } from '../../src/store/db.ts'
import { adminHeaders, call as json, childStore, freePort, spawnService, waitHealthy, type Child } from '../helpers/child-service.ts'
import { impressionKeyHex } from '../helpers/impression-key.ts'

const start = (env: Record<string, string>): Child => spawnService(env)

test('every acknowledged billable view survives SIGKILL, and none is billed twice', { timeout: 300_000 }, async () => {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const { env, cleanup } = await childStore('adapi-kill')
  env.PORT = String(port)

  let child = start(env)
  try {
    await waitHealthy(base, child)
    const admin = adminHeaders
    // One client address sends every viewer's traffic: lift the invalid-traffic bounds (tested in test/api/invalid-traffic*.test.ts).
    const bounds = {
      ivt_max_viewers_per_source_per_day: 1_000_000,
      ivt_max_billable_per_source_per_hour: 10_000_000,
      ivt_max_viewers_per_ipv6_48_per_day: 1_000_000,
      ivt_max_billable_per_ipv6_48_per_hour: 10_000_000,
    }
    assert.equal((await json(base, 'PATCH', '/admin/v1/config', bounds, admin)).status, 200)
    const account = (await json(base, 'POST', '/admin/v1/accounts', { email: 'kill@example.dev' }, admin)).body
    for (const [p, b] of [
      ['write-approval', { approved: true }],
      ['terms', { accepted: true }],
      ['billing', { mode: 'weekly_autopay', card_number: '4242424242424242' }],
    ] as const) {
      await json(base, 'POST', `/admin/v1/accounts/${account.user_id}/${p}`, b, admin)
    }
    const auth = { 'x-service-user-id': account.user_id, 'x-service-api-key': account.api_key }
    const created = await json(base, 'POST', '/v1/campaigns', {
      ad_line: 'Durable delivery line',
      destination_url: 'https://acme.dev/',
      cpm_usd: 1.25,
      impressions: 20_000,
      idempotency_key: 'kill-test',
    }, auth)
    assert.equal(created.status, 201)

    const offers: string[] = []
    for (let wave = 0; wave < 6; wave++) {
      const batch = await Promise.all(
        Array.from({ length: 100 }, (_, i) => json(base, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id: `k-${wave}-${i}` })),
      )
      for (const d of batch) offers.push(d.body.impression_id)
    }
    await json(base, 'POST', '/admin/v1/clock', { advance_seconds: 10 }, admin)

    // Views stream in; the process is killed mid-stream.
    const acknowledged: string[] = []
    let killed = false
    const inflight = offers.map(async (id, i) => {
      await new Promise((r) => setTimeout(r, i))
      try {
        const res = await fetch(`${base}/serve/v1/impressions/${id}/view`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ dwell_ms: 10_000 }),
        })
        if (res.status === 204) acknowledged.push(id)
      } catch {
        // connection cut by the kill: not acknowledged
      }
      if (!killed && acknowledged.length >= 150) {
        killed = true
        child.process.kill('SIGKILL')
      }
    })
    await Promise.all(inflight)
    assert.ok(killed, 'the process was killed while views were in flight')
    assert.ok(acknowledged.length >= 150 && acknowledged.length < offers.length, `acknowledged ${acknowledged.length}`)
    await child.exit

    // Restart on the same data, then resend every view (clients retry): nothing bills twice.
    child = start(env)
    await waitHealthy(base, child)
    await Promise.all(offers.map((id) => json(base, 'POST', `/serve/v1/impressions/${id}/view`, { dwell_ms: 10_000 })))
    const campaign = (await json(base, 'GET', `/v1/campaigns/${created.body.campaign_id}`, undefined, auth)).body
    child.process.kill('SIGTERM')
    await child.exit

    const store = await openStore({ databaseUrl: env.DATABASE_URL ?? null, dataDir: env.DATA_DIR ?? '' })
    try {
      const billed = await store.db
        .selectFrom('ledger_events')
        .select(['impression_key', sql<string>`count(*)`.as('n'), sql<string>`sum(debit_micros)`.as('debit')])
        .where('event_type', '=', 'impression')
        .groupBy('impression_key')
        .execute()
      const byId = new Map(billed.map((r) => [r.impression_key.toString('hex'), Number(r.n)]))
      for (const id of acknowledged) assert.equal(byId.get(impressionKeyHex(id)), 1, `acknowledged view ${id.slice(0, 24)}… is in the ledger once`)
      assert.ok([...byId.values()].every((n) => n === 1), 'no impression billed twice')
      assert.equal(byId.size, offers.length, 'after the retries every offer is billed exactly once')
      assert.equal(campaign.impressions_served, offers.length)
      assert.equal(campaign.lifetime_spent_micros, offers.length * 1250)
    } finally {
      await store.close()
    }
  } finally {
    if (child.process.exitCode === null && child.process.signalCode === null) {
      child.process.kill('SIGKILL')
      await child.exit
    }
    await cleanup()
  }
})
