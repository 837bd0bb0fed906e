import assert from 'node:assert/strict'
import { test } from 'node:test'
import pg from 'pg'
import { createDatabase, STORE } from '../helpers/service.ts'
import { startTcpProxy } from '../helpers/tcp-proxy.ts'
import { impressionKeyHex } from '../helpers/impression-key.ts'
import { accountWithCampaign, adminHeaders, startChild, timedCall, type Timed } from '../helpers/child-service.ts'

/** Every request answers within this whatever PostgreSQL does (issue 23). */
const BOUND_MS = 10_000

function assertUnavailable(name: string, r: Timed): void {
  assert.equal(r.status, 503, `${name}: 503 while PostgreSQL is stalled, got ${r.status} ${JSON.stringify(r.body)}`)
  assert.ok(Number(r.headers.get('retry-after')) >= 1, `${name}: Retry-After`)
  assert.equal(typeof (r.body as { detail?: unknown }).detail, 'string', `${name}: detail`)
}

test(
  'PostgreSQL stalled: every request answers within 10 s (503 + Retry-After), /readyz 503, and everything recovers without a restart',
  { skip: STORE === 'embedded' ? 'the embedded store runs in the process: there is no connection to stall' : false, timeout: 120_000 },
  async () => {
    const adminUrl = new URL(process.env.TEST_DATABASE_URL!)
    const db = await createDatabase(adminUrl.toString(), 'adapi_pgstall')
    const proxy = await startTcpProxy(adminUrl.hostname, Number(adminUrl.port || 5432))
    const viaProxy = new URL(db.url)
    viaProxy.hostname = '127.0.0.1'
    viaProxy.port = String(proxy.port)
    const svc = await startChild({ DATABASE_URL: viaProxy.toString() })
    try {
      const { base } = svc
      const { auth } = await accountWithCampaign(base, 'pgstall@example.dev')
      const decide = (i: number) => timedCall(base, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id: `pgstall-${i}` })
      const offers: string[] = []
      for (let i = 0; i < 40; i++) {
        const d = await decide(i)
        assert.equal(d.status, 200)
        offers.push((d.body as { impression_id: string }).impression_id)
      }
      await timedCall(base, 'POST', '/admin/v1/clock', { advance_seconds: 10 }, adminHeaders)
      const view = (id: string) => timedCall(base, 'POST', `/serve/v1/impressions/${id}/view`, { dwell_ms: 10_000 })
      const acknowledged: string[] = []
      for (const id of offers.slice(0, 10)) {
        const r = await view(id)
        assert.equal(r.status, 204)
        acknowledged.push(id)
      }
      assert.equal((await timedCall(base, 'GET', '/readyz')).status, 200)

      proxy.stall()
      // Two rounds: the first meets pooled connections that stop answering, the second new ones that never open.
      for (const round of [1, 2]) {
        const [account, decision, stalledView, ready] = await Promise.all([
          timedCall(base, 'GET', '/v1/account', undefined, auth),
          decide(100 + round),
          view(offers[10 + round]!),
          timedCall(base, 'GET', '/readyz'),
        ])
        for (const [name, r] of Object.entries({ account, decision, stalledView, ready })) {
          assert.ok(r.status !== 0 && r.ms < BOUND_MS, `round ${round}: ${name} answered in ${Math.round(r.ms)} ms (status ${r.status})`)
        }
        assertUnavailable(`round ${round}: GET /v1/account`, account)
        // A view is acknowledged only once durable: with the store stalled it cannot be.
        assertUnavailable(`round ${round}: view`, stalledView)
        assert.ok([200, 204, 503].includes(decision.status), `round ${round}: decision ${decision.status}`)
        if (decision.status === 503) assertUnavailable(`round ${round}: decision`, decision)
        assertUnavailable(`round ${round}: /readyz`, ready)
        assert.ok(ready.ms < 3_000, `/readyz answered in ${Math.round(ready.ms)} ms`)
        assert.deepEqual((ready.body as { checks: unknown }).checks, { store: 'down', redis: 'off' })
      }

      proxy.resume()
      // Recovery without a restart: the pool replaces the connections it dropped.
      let account: Timed | undefined
      for (let i = 0; i < 60; i++) {
        account = await timedCall(base, 'GET', '/v1/account', undefined, auth)
        if (account.status === 200) break
        await new Promise((r) => setTimeout(r, 500))
      }
      assert.equal(account?.status, 200, 'GET /v1/account answers 200 again after the stall')
      assert.equal((await timedCall(base, 'GET', '/readyz')).status, 200)
      assert.equal((await decide(200)).status, 200)
      for (const id of offers.slice(20, 25)) {
        const r = await view(id)
        assert.equal(r.status, 204, 'views are acknowledged again')
        acknowledged.push(id)
      }

      // Straight to PostgreSQL: each acknowledged view billed exactly once, nothing billed twice.
      const direct = new pg.Client({ connectionString: db.url })
      await direct.connect()
      try {
        const { rows } = await direct.query<{ key: string; n: string }>(
          `select encode(impression_key, 'hex') as key, count(*) as n from ledger_events where event_type = 'impression' group by impression_key`,
        )
        const billed = new Map(rows.map((r) => [r.key, Number(r.n)]))
        for (const id of acknowledged) assert.equal(billed.get(impressionKeyHex(id)), 1, `acknowledged view ${id.slice(0, 16)}… is in the ledger once`)
        assert.ok([...billed.values()].every((n) => n === 1), 'no impression billed twice')
      } finally {
        await direct.end()
      }
    } finally {
      await svc.kill()
      await proxy.close()
      await db.drop()
    }
  },
)
