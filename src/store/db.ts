import { mkdirSync } from 'node:fs'
import { Kysely, PostgresDialect, type CompiledQuery, type QueryResult } from 'kysely'
import pg from 'pg'
import { PGlite } from '@electric-sql/pglite'
import { createPgConfig } from '@electric-sql/pglite/node-postgres'
import type { Database } from './schema.ts'
import { migrateToLatest } from './migrate.ts'
import { storeReachable } from './health.ts'
import { lockDataDir } from './data-dir-lock.ts'

export type Db = Kysely<Database>

export interface Store {
  readonly kind: 'postgres' | 'embedded'
  readonly db: Db
  /** True while the store answers a trivial query. */
  ping(): Promise<boolean>
  /** The connection pool's counts now: connections open, idle, and queries waiting for one (metrics). */
  poolCounts(): { total: number; idle: number; waiting: number }
  /** Embedded only: a compressed dump of the data directory (tests clone a migrated template from it). */
  dump?(): Promise<Blob>
  close(): Promise<void>
}

const INT8_OID = 20
const INT8_ARRAY_OID = 1016
const DATE_OID = 1082

function parseInt8(text: string): number {
  const n = Number(text)
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${text} exceeds the safe integer range`)
  return n
}

/**
 * Both stores speak the PostgreSQL wire protocol to `pg`, so one set of type
 * parsers applies: int8 (micros, cents, counts) becomes a JS number, checked
 * to be exact; a date stays an ISO date string.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (v: string) => unknown {
    if (oid === INT8_OID) return parseInt8
    // A calendar date stays 'YYYY-MM-DD' (pg would make it a local-time Date).
    if (oid === DATE_OID) return (v: string) => v
    if (oid === INT8_ARRAY_OID) {
      const parseArray = pg.types.getTypeParser(oid as never) as (v: string) => string[]
      return (v: string) => parseArray(v).map((x) => (x === null ? x : parseInt8(x)))
    }
    return pg.types.getTypeParser(oid, format ?? 'text') as (v: string) => unknown
  },
}

/**
 * Hot statements run as named prepared statements: the server parses and
 * plans such a statement once per connection, not on every execution (the
 * serving batch's statement took longer to plan than to run). Opt-in, by
 * statement text: only fixed texts whose values are all parameters belong
 * here, so the set of names stays small. Statement texts map to their names.
 */
const preparedNames = new Map<string, string>()

/** Runs `query` as a named prepared statement on whichever connection executes it (see preparedNames). */
export async function executePrepared<R>(db: Db, compiled: CompiledQuery<R>): Promise<QueryResult<R>> {
  if (!preparedNames.has(compiled.sql)) preparedNames.set(compiled.sql, `adapi_${preparedNames.size + 1}`)
  return db.executeQuery(compiled)
}

/**
 * The pool's client: a statement text registered by executePrepared goes out
 * as a named statement (pg parses it once per connection and then only binds
 * and executes); everything else as before. Kysely calls query(text, values).
 */
class PreparingClient extends pg.Client {
  // pg's overloads, passed through unchanged.
  override query(...args: unknown[]): never {
    const [text, values] = args
    const name = typeof text === 'string' && Array.isArray(values) ? preparedNames.get(text) : undefined
    const query = super.query.bind(this) as (...a: unknown[]) => never
    return name ? query({ name, text, values }) : query(...args)
  }
}

export interface OpenStoreOptions {
  databaseUrl: string | null
  dataDir: string
  /** Embedded only: start from this dump of a data directory (tests use a migrated template). */
  loadDataDir?: Blob
  /** Embedded only: keep the database in memory instead of DATA_DIR. */
  inMemory?: boolean
  poolSize?: number
}

export async function openStore(options: OpenStoreOptions): Promise<Store> {
  let store: Store
  if (options.databaseUrl !== null) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10, types, Client: PreparingClient })
    // An idle connection dropped by the server (restart, failover, a forced drop) is discarded by
    // the pool; without a listener the 'error' event would crash the process.
    pool.on('error', () => {})
    store = wrap('postgres', pool, async () => {})
  } else {
    let dataDir: string | undefined
    let unlock = () => {}
    if (!options.inMemory) {
      mkdirSync(options.dataDir, { recursive: true })
      // Before the engine opens the files: a second process on this directory stops here.
      unlock = lockDataDir(options.dataDir)
      dataDir = `${options.dataDir}/pglite`
    }
    let lite: PGlite
    try {
      lite = await PGlite.create({ dataDir, loadDataDir: options.loadDataDir })
    } catch (err) {
      unlock()
      throw err
    }
    // PGlite is one connection on the main thread: a pool of one serializes
    // transactions exactly as PostgreSQL's locks would order them.
    const pool = new pg.Pool({ ...(createPgConfig(lite) as object), max: 1, types, Client: PreparingClient })
    store = {
      ...wrap('embedded', pool, async () => {
        await lite.close()
        unlock()
      }),
      dump: () => lite.dumpDataDir('gzip'),
    }
  }
  await migrateToLatest(store.db as unknown as Kysely<unknown>)
  return store
}

function wrap(kind: Store['kind'], pool: pg.Pool, closeEngine: () => Promise<void>): Store {
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  return {
    kind,
    db,
    ping: () => storeReachable(db),
    poolCounts: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async close() {
      await db.destroy()
      await closeEngine()
    },
  }
}
