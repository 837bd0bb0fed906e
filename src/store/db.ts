import { mkdirSync } from 'node:fs'
import { Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { PGlite } from '@electric-sql/pglite'
import { createPgConfig } from '@electric-sql/pglite/node-postgres'
import type { Database } from './schema.ts'
import { migrateToLatest } from './migrate.ts'

export type Db = Kysely<Database>

export interface Store {
  readonly kind: 'postgres' | 'embedded'
  readonly db: Db
  /** True while the store answers a trivial query. */
  ping(): Promise<boolean>
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
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID) return parseInt8
    // A calendar date stays 'YYYY-MM-DD' (pg would make it a local-time Date).
    if (oid === DATE_OID) return (v: string) => v
    if (oid === INT8_ARRAY_OID) {
      const parseArray = pg.types.getTypeParser(oid as never) as (v: string) => string[]
      return (v: string) => parseArray(v).map((x) => (x === null ? x : parseInt8(x)))
    }
    return pg.types.getTypeParser(oid as never, format ?? 'text')
  },
} as pg.CustomTypesConfig

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
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10, types })
    // An idle connection dropped by the server (restart, failover, a forced drop) is discarded by
    // the pool; without a listener the 'error' event would crash the process.
    pool.on('error', () => {})
    store = wrap('postgres', pool, async () => {})
  } else {
    let dataDir: string | undefined
    if (!options.inMemory) {
      mkdirSync(options.dataDir, { recursive: true })
      dataDir = `${options.dataDir}/pglite`
    }
    const lite = await PGlite.create({ dataDir, loadDataDir: options.loadDataDir })
    // PGlite is one connection on the main thread: a pool of one serializes
    // transactions exactly as PostgreSQL's locks would order them.
    const pool = new pg.Pool({ ...(createPgConfig(lite) as object), max: 1, types })
    store = { ...wrap('embedded', pool, () => lite.close()), dump: () => lite.dumpDataDir('gzip') }
  }
  await migrateToLatest(store.db as unknown as Kysely<unknown>)
  return store
}

function wrap(kind: Store['kind'], pool: pg.Pool, closeEngine: () => Promise<void>): Store {
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  return {
    kind,
    db,
    async ping() {
      try {
        await sql`select 1`.execute(db)
        return true
      } catch {
        return false
      }
    },
    async close() {
      await db.destroy()
      await closeEngine()
    },
  }
}
