import { after } from 'node:test'
import { sql, type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs, type QueryResult, type RootOperationNode, type UnknownRow } from 'kysely'
import pg from 'pg'
import type { Db, Store } from '../../src/store/db.ts'

/**
 * One migrated store per test process, handed to service after service (test/helpers/service.ts),
 * each time set back exactly to the migrated template it was opened from. Booting the embedded
 * store (PGlite, PostgreSQL in WebAssembly) costs about 1.8 s of CPU per service, two thirds of a
 * service's start; on PostgreSQL a store is a `CREATE DATABASE … TEMPLATE` and a `DROP DATABASE`.
 * The app on top (routes, serving engine, counters, scheduler, clock, metrics) is built anew for
 * each service, so nothing of a previous file's service is left in memory: only the store is kept,
 * and resetting a store is exact (docs/decisions/0565-one-store-per-test-process.md).
 *
 * The reset, before the store is handed out again, in one transaction with triggers off:
 * TRUNCATE of every table but Kysely's migration tables, the rows the migrations seeded put back,
 * every sequence set to its template value, and the ledger partitions created since (start-up and
 * the partitions job make them ahead of the clock) dropped; then the sessions are new ones (the
 * embedded store's one session reset, a PostgreSQL store opened again on its database). A store whose relations are not the
 * template's plus such partitions (a partition dropped by retention), that holds an advisory lock,
 * or that fails the reset (a test stopped its engine) is closed instead, and the next service
 * opens a new one.
 */

interface Relation {
  name: string
  kind: string
  /** The partitioned table it is a partition of, if any. */
  parent: string | null
}

interface Template {
  relations: Map<string, Relation>
  /** The one statement that sets the store back to the template. */
  resetSql: string
}

const KEPT_TABLES = new Set(['kysely_migration', 'kysely_migration_lock'])

async function relations(db: Db): Promise<Relation[]> {
  const { rows } = await sql<Relation>`
    SELECT c.relname AS name, c.relkind AS kind, p.relname AS parent
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_inherits i ON i.inhrelid = c.oid
    LEFT JOIN pg_class p ON p.oid = i.inhparent
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'S', 'v', 'm')`.execute(db)
  return rows
}

/** What the store holds now, as the template to come back to (called on a store just opened from the template). */
async function snapshot(db: Db): Promise<Template> {
  const rels = await relations(db)
  const tables = rels.filter((r) => (r.kind === 'r' || r.kind === 'p') && !KEPT_TABLES.has(r.name)).map((r) => r.name)
  const id = (name: string) => pg.escapeIdentifier(name)
  const statements = ['BEGIN', 'SET LOCAL session_replication_role = replica', `TRUNCATE ${tables.map(id).join(', ')}`]
  for (const r of rels.filter((r) => r.kind === 'r' && !KEPT_TABLES.has(r.name))) {
    const { rows } = await sql<{ rows: string | null }>`SELECT json_agg(t)::text AS rows FROM ${sql.table(r.name)} t`.execute(db)
    const json = rows[0]?.rows
    if (!json) continue
    const { rows: columns } = await sql<{ name: string }>`
      SELECT attname AS name FROM pg_attribute
      WHERE attrelid = ${r.name}::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = ''
      ORDER BY attnum`.execute(db)
    const list = columns.map((c) => id(c.name)).join(', ')
    statements.push(`INSERT INTO ${id(r.name)} (${list}) OVERRIDING SYSTEM VALUE SELECT ${list} FROM json_populate_recordset(NULL::${id(r.name)}, ${pg.escapeLiteral(json)})`)
  }
  for (const s of rels.filter((r) => r.kind === 'S')) {
    const { rows } = await sql<{ last_value: number; is_called: boolean }>`SELECT last_value, is_called FROM ${sql.table(s.name)}`.execute(db)
    statements.push(`SELECT setval(${pg.escapeLiteral(s.name)}, ${rows[0]!.last_value}, ${rows[0]!.is_called})`)
  }
  statements.push('COMMIT')
  return { relations: new Map(rels.map((r) => [r.name, r])), resetSql: statements.join(';\n') }
}

/**
 * Sets `store` back to `template`; false when it cannot be (relations changed otherwise than by
 * ledger partitions made since, an advisory lock held, the store not answering).
 */
async function reset(kept: Kept): Promise<boolean> {
  const { store, template } = kept
  try {
    const now = await relations(store.db)
    const names = new Set(now.map((r) => r.name))
    if ([...template.relations.keys()].some((name) => !names.has(name))) return false
    const added = now.filter((r) => !template.relations.has(r.name))
    // Partitions made since, of a partitioned table of the template: dropped. Anything else: not ours to drop.
    if (added.some((r) => r.kind !== 'r' || r.parent === null || template.relations.get(r.parent)?.kind !== 'p')) return false
    const locks = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'`.execute(store.db)
    if (locks.rows[0]!.n > 0) return false
    const drops = added.map((r) => `DROP TABLE ${pg.escapeIdentifier(r.name)}`)
    await sql.raw(drops.length === 0 ? template.resetSql : template.resetSql.replace('TRUNCATE', `${drops.join(';\n')};\nTRUNCATE`)).execute(store.db)
    // Session state (prepared statements above all: a test counts them) as a new store's.
    kept.store = await kept.renew(store)
    return true
  } catch {
    return false
  }
}

/** Refuses every query of a service that has been closed: its late work must not reach the next service's store. */
class Lease implements KyselyPlugin {
  open = true
  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    if (!this.open) throw new Error('this service is closed: its store now belongs to the next service (test/helpers/store-reuse.ts)')
    return node
  }
  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result
  }
}

/** A store opened for a test: its PostgreSQL database's URL (null: embedded) and what drops that database. */
export interface OpenedStore {
  store: Store
  databaseUrl: string | null
  drop: () => Promise<void>
  /** The store with its sessions as a new store's: the embedded one's session reset, a PostgreSQL store opened again. */
  renew: (store: Store) => Promise<Store>
}

interface Kept extends OpenedStore {
  template: Template
}

let sharing = false
/** The kept store not handed out now; at most one. */
let idle: Kept | null = null

async function discard(kept: Kept): Promise<void> {
  await kept.store.close().catch(() => {})
  await kept.drop().catch(() => {})
}

/**
 * Turns store reuse on for this process (the group files of scripts/test.ts call it, before their
 * test files): services started one after another then stand on one store. The kept store is
 * closed when the process's tests end.
 */
export function reuseStores(): void {
  if (sharing) return
  sharing = true
  after(async () => {
    const kept = idle
    idle = null
    if (kept) await discard(kept)
  })
}

/**
 * A store for one service: the kept one, set back to its template, when there is one and reuse is
 * on; otherwise one from `open`. The store's `close` gives it back (kept for the next service) or,
 * reuse off, closes it and drops its database.
 */
export async function leaseStore(open: () => Promise<OpenedStore>): Promise<{ store: Store; databaseUrl: string | null }> {
  let kept: Kept | null = null
  if (idle) {
    const candidate = idle
    idle = null
    if (await reset(candidate)) kept = candidate
    else await discard(candidate)
  }
  if (!kept) {
    const opened = await open()
    const { store, databaseUrl, drop } = opened
    const close = async () => {
      await store.close()
      await drop()
    }
    if (!sharing) return { store: { ...store, close }, databaseUrl }
    try {
      kept = { ...opened, template: await snapshot(store.db) }
    } catch (err) {
      await store.close().catch(() => {})
      await drop().catch(() => {})
      throw err
    }
  }
  const { store, databaseUrl } = kept
  const lease = new Lease()
  const unsubscribe = new Set<() => void>()
  const db = store.db.withPlugin(lease)
  const leased: Store = {
    ...store,
    db,
    jobsDb: store.jobsDb === store.db ? db : store.jobsDb.withPlugin(lease),
    onServingEpoch: (listener) => {
      const off = store.onServingEpoch(listener)
      unsubscribe.add(off)
      return () => {
        unsubscribe.delete(off)
        off()
      }
    },
    close: async () => {
      lease.open = false
      for (const off of unsubscribe) off()
      if (idle === null) idle = kept
      else await discard(kept)
    },
  }
  return { store: leased, databaseUrl }
}
