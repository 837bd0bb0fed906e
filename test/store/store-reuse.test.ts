import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { test } from 'node:test'
import { sql } from 'kysely'
import { openStore, type Db } from '../../src/store/db.ts'
import { ADMIN_TOKEN, STORE, callService, createDatabase, startService } from '../helpers/service.ts'
import { leaseStore, reuseStores } from '../helpers/store-reuse.ts'

/**
 * The store a test process hands from service to service (test/helpers/store-reuse.ts) comes back
 * exactly as the migrated template: every row, sequence and relation, after a service wrote to
 * most tables and ran months of jobs (ledger partitions made ahead included).
 */
reuseStores()

/** Everything a test could read from a store: its relations, every table's rows, every sequence. */
async function contents(db: Db): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  const { rows: rels } = await sql<{ name: string; kind: string }>`
    SELECT c.relname AS name, c.relkind AS kind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'S', 'v', 'm') ORDER BY c.relname`.execute(db)
  for (const { name, kind } of rels) {
    if (kind === 'r') {
      const { rows } = await sql<{ n: number; digest: string }>`
        SELECT count(*)::int AS n, md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS digest FROM ${sql.table(name)} t`.execute(db)
      out[name] = `${rows[0]!.n} rows ${rows[0]!.digest}`
    } else if (kind === 'S') {
      const { rows } = await sql<{ last_value: number; is_called: boolean }>`SELECT last_value, is_called FROM ${sql.table(name)}`.execute(db)
      out[name] = `sequence ${rows[0]!.last_value} ${rows[0]!.is_called}`
    } else out[name] = kind
  }
  // Session state a test can see: a reused store's sessions are new ones.
  const prepared = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_prepared_statements`.execute(db)
  out['(prepared statements)'] = String(prepared.rows[0]!.n)
  return out
}

/** The template's contents, from a store opened on it directly. */
async function templateContents(): Promise<Record<string, string>> {
  if (STORE === 'postgres') {
    const { url, drop } = await createDatabase(process.env.TEST_DATABASE_URL!, undefined, process.env.TEST_PG_TEMPLATE || undefined)
    const store = await openStore({ databaseUrl: url, dataDir: '' })
    try {
      return await contents(store.db)
    } finally {
      await store.close()
      await drop()
    }
  }
  const template = process.env.TEST_PGLITE_TEMPLATE
  const store = await openStore({ databaseUrl: null, dataDir: '', inMemory: true, loadDataDir: template ? new Blob([await readFile(template)]) : undefined })
  try {
    return await contents(store.db)
  } finally {
    await store.close()
  }
}

test('a store handed to the next service is the template again, row for row', async () => {
  const expected = await templateContents()
  const svc = await startService()
  const admin = (method: string, path: string, body?: unknown) => callService(svc, method, path, body, { authorization: `Bearer ${ADMIN_TOKEN}` })
  try {
    const created = await admin('POST', '/admin/v1/accounts', { email: 'reuse@example.dev' })
    assert.equal(created.status, 201, created.text)
    const user = created.body.user_id
    assert.equal((await admin('POST', `/admin/v1/accounts/${user}/write-approval`, { approved: true })).status, 200)
    assert.equal((await admin('POST', `/admin/v1/accounts/${user}/terms`, { accepted: true })).status, 200)
    assert.equal((await admin('POST', `/admin/v1/accounts/${user}/billing`, { mode: 'weekly_autopay', card_number: '4242424242424242' })).status, 200)
    const campaign = await callService(
      svc,
      'POST',
      '/v1/campaigns',
      { ad_line: 'Ship faster with Acme CI', destination_url: 'https://acme.dev/ci', cpm_usd: 2.5, impressions: 3000, idempotency_key: 'reuse-1' },
      { 'x-service-user-id': user, 'x-service-api-key': created.body.api_key },
    )
    assert.equal(campaign.status, 201, campaign.text)
    assert.equal((await admin('PATCH', '/admin/v1/config', { create_rate_limit_per_min: 1000 })).status, 200)
    // A hundred days of jobs: rollups, invoicing, expiry, and ledger partitions made ahead of the clock.
    assert.equal((await admin('POST', '/admin/v1/clock', { advance_seconds: 100 * 86_400 })).status, 200)
    // Session state: a statement prepared on a connection of the store (pg_prepared_statements).
    await sql`PREPARE reuse_probe AS SELECT 1`.execute(svc.service.store.db)
    assert.notDeepEqual(await contents(svc.service.store.db), expected, 'the service changed the store')
  } finally {
    await svc.close()
  }
  const { store } = await leaseStore(async () => {
    throw new Error('the closed service’s store was not kept for the next one')
  })
  try {
    assert.deepEqual(await contents(store.db), expected)
  } finally {
    await store.close()
  }
})
