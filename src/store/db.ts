import { mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { Kysely, PostgresDialect, type CompiledQuery, type QueryResult } from 'kysely'
import pg from 'pg'
import type { Database } from './schema.ts'
import { migrateToLatest } from './migrate.ts'
import { storeReachable } from './health.ts'
import { lockDataDir } from './data-dir-lock.ts'
import type { EngineConnection } from './embedded/connection.ts'
import type { EmbeddedEngine } from './embedded/engine.ts'
import { EpochNotices, SERVING_EPOCH_CHANNEL, type EpochListener } from './epoch-notices.ts'

export type Db = Kysely<Database>

export interface Store {
  readonly kind: 'postgres' | 'embedded'
  /** The request pool: HTTP requests and the serving ledger (short timeouts). */
  readonly db: Db
  /**
   * The jobs' pool (rollups, invoicing, exports, expiry, migrations): the same
   * database with the longer job timeouts. The embedded store has one
   * connection, so there it is `db` itself.
   */
  readonly jobsDb: Db
  /** True while the store answers a trivial query. */
  ping(): Promise<boolean>
  /** The connection pool's counts now: connections open, idle, and queries waiting for one (metrics). */
  poolCounts(): { total: number; idle: number; waiting: number }
  /** Calls `listener` with each new serving epoch as it is committed, by push (src/store/epoch-notices.ts); returns the unsubscribe. */
  onServingEpoch(listener: EpochListener): () => void
  /** Embedded only: a compressed dump of the data directory (tests clone a migrated template from it). */
  dump?(): Promise<Blob>
  /**
   * Embedded only: sets the engine's one session back to how a new session starts (DISCARD ALL:
   * prepared statements, settings, locks, notices listened to) and listens again; tests hand one
   * store from service to service (test/helpers/store-reuse.ts).
   */
  resetSession?(): Promise<void>
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
  constructor(config?: pg.ClientConfig) {
    super(config)
    // A checked-out connection that dies (a server restart, a stall cut by the query timeout) fails
    // its queries; without a listener its 'error' event would also crash the process. The pool
    // discards such a connection when it is released (it is no longer queryable).
    this.on('error', () => {})
  }

  // pg's overloads, passed through unchanged.
  override query(...args: unknown[]): never {
    const [text, values] = args
    const name = typeof text === 'string' && Array.isArray(values) ? preparedNames.get(text) : undefined
    const query = super.query.bind(this) as (...a: unknown[]) => never
    const result: unknown = name ? query({ name, text, values }) : query(...args)
    if (result instanceof Promise) result.catch((err: unknown) => this.#discardIfStalled(err))
    return result as never
  }

  /**
   * pg's query_timeout fails the query but keeps the connection, its reply
   * still owed: every later query on it would queue behind a server that is
   * not answering. Ending it (pg destroys the socket of a connection with a
   * query outstanding) marks it ending, so the pool drops it on release.
   */
  #discardIfStalled(err: unknown): void {
    if (err instanceof Error && err.message === QUERY_READ_TIMEOUT) void this.end().catch(() => {})
  }
}

/** The message of pg's client-side query_timeout error. */
export const QUERY_READ_TIMEOUT = 'Query read timeout'

/** A pool's bounds (src/platform/timeouts.ts holds the numbers; the store takes them as options). */
export interface PoolTimeouts {
  /** Opening a connection and waiting for a free pooled one. */
  connectMs: number
  /** Server-side statement_timeout. */
  statementMs: number
  /** Server-side idle_in_transaction_session_timeout. */
  idleInTransactionMs: number
  /** Client-side query_timeout: no reply at all within it fails the query and discards the connection. */
  queryMs: number
  poolSize: number
}

/** pg.Pool options for PostgreSQL with these bounds (none given: pg's defaults, no timeouts). */
export function postgresPoolConfig(connectionString: string, bounds: PoolTimeouts | undefined, poolSize: number | undefined, keepAliveDelayMs: number): pg.PoolConfig {
  const base: pg.PoolConfig = { connectionString, types, Client: PreparingClient, keepAlive: true, keepAliveInitialDelayMillis: keepAliveDelayMs }
  if (!bounds) return { ...base, max: poolSize ?? 10 }
  return {
    ...base,
    max: poolSize ?? bounds.poolSize,
    connectionTimeoutMillis: bounds.connectMs,
    statement_timeout: bounds.statementMs,
    idle_in_transaction_session_timeout: bounds.idleInTransactionMs,
    query_timeout: bounds.queryMs,
  }
}

/** DATA_DIR cannot hold the embedded store: it is not a directory, or not writable (start-up exits 73). */
export class DataDirError extends Error {
  constructor(
    readonly dataDir: string,
    readonly code: string,
  ) {
    super(
      code === 'EEXIST' || code === 'ENOTDIR'
        ? `DATA_DIR ${dataDir} is not a directory (${code}: a file is in the way)`
        : `DATA_DIR ${dataDir} is not writable (${code})`,
    )
  }
}

/** Why a file-system call on DATA_DIR failed, when it is DATA_DIR's fault (not a directory, not writable, full). */
const DATA_DIR_CODES = new Set(['EEXIST', 'ENOTDIR', 'EACCES', 'EPERM', 'EROFS', 'ENOSPC'])

/** PostgreSQL did not take a connection (refused, unknown host, timed out, refused the login); `reason` is pg's error. */
export class StoreConnectError extends Error {
  constructor(readonly reason: unknown) {
    super(`PostgreSQL did not take a connection: ${reason instanceof Error ? reason.message : String(reason)}`)
  }
}

export interface OpenStoreOptions {
  databaseUrl: string | null
  dataDir: string
  /** Embedded only: start from this dump of a data directory (tests use a migrated template). */
  loadDataDir?: Blob
  /** Embedded only: keep the database in memory instead of DATA_DIR. */
  inMemory?: boolean
  /** The request pool's size (default: timeouts.request.poolSize, else 10). */
  poolSize?: number
  /** PostgreSQL only: the bounds of the request pool and of the jobs' pool (unset: no timeouts). */
  timeouts?: { request: PoolTimeouts; jobs: PoolTimeouts; keepAliveInitialDelayMs: number }
  /** Tests only: migrate through this migration and no further (a store as an older version left it, to test a later migration on its rows). */
  migrateThrough?: string
}

export async function openStore(options: OpenStoreOptions): Promise<Store> {
  let store: Store
  if (options.databaseUrl !== null) {
    const t = options.timeouts
    const keepAliveMs = t?.keepAliveInitialDelayMs ?? 10_000
    const pool = new pg.Pool(postgresPoolConfig(options.databaseUrl, t?.request, options.poolSize, keepAliveMs))
    const jobsPool = new pg.Pool(postgresPoolConfig(options.databaseUrl, t?.jobs, t?.jobs.poolSize, keepAliveMs))
    // An idle connection dropped by the server (restart, failover, a forced drop) is discarded by
    // the pool; without a listener the 'error' event would crash the process.
    pool.on('error', () => {})
    jobsPool.on('error', () => {})
    const notices = new EpochNotices()
    notices.listenOn(pool)
    notices.listenOn(jobsPool)
    notices.keepListening({ connectionString: options.databaseUrl, keepAlive: true, connectionTimeoutMillis: t?.request.connectMs ?? 10_000 })
    const jobsDb = new Kysely<Database>({ dialect: new PostgresDialect({ pool: jobsPool }) })
    store = wrap('postgres', pool, jobsDb, notices, () => notices.close())
    // One connection before anything else, so that "cannot reach the server" is told apart from a failing migration.
    try {
      const client = await pool.connect()
      client.release()
    } catch (err) {
      await store.close().catch(() => {})
      throw new StoreConnectError(err)
    }
  } else {
    let dataDir: string | undefined
    let unlock = () => {}
    if (!options.inMemory) {
      try {
        mkdirSync(options.dataDir, { recursive: true })
        // Before the engine opens the files: a second process on this directory stops here.
        unlock = lockDataDir(options.dataDir)
      } catch (err) {
        const code = err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : ''
        if (DATA_DIR_CODES.has(code)) throw new DataDirError(resolve(options.dataDir), code)
        throw err
      }
      dataDir = `${options.dataDir}/pglite`
    }
    // Loaded only here: PGlite's modules add ~45 MB to a process that never opens the embedded store.
    const [engines, { EngineConnection }] = await Promise.all([import('./embedded/engine.ts'), import('./embedded/connection.ts')])
    let engine: EmbeddedEngine
    try {
      const load = options.loadDataDir
      const loadDataDir = load ? { bytes: await load.arrayBuffer(), type: load.type } : undefined
      engine = await engines.EmbeddedEngine.start({ dataDir, loadDataDir })
    } catch (err) {
      unlock()
      throw err
    }
    // PGlite is one connection, in its own thread (src/store/embedded): a pool of one serializes
    // transactions exactly as PostgreSQL's locks would order them. No timeouts: the engine is part of
    // this process and cannot stall apart from it; if its thread dies, queries fail as store trouble.
    // pg's client takes a ready connection object in place of its socket (a field its typings omit).
    const connection = new EngineConnection(engine)
    const config: pg.PoolConfig & { connection: EngineConnection } = { connection, max: 1, types, Client: PreparingClient, user: 'postgres', database: 'postgres' }
    const pool = new pg.Pool(config)
    // One session: every change commits on the connection that listens, so each notice is in process.
    const notices = new EpochNotices()
    notices.listenOn(pool)
    store = {
      ...wrap('embedded', pool, null, notices, async () => {
        await engine.close()
        unlock()
      }),
      dump: () => engine.dump(),
      async resetSession() {
        await pool.query('DISCARD ALL')
        // pg skips parsing a named statement its connection has parsed: none is, after DISCARD ALL.
        connection.parsedStatements = {}
        connection.submittedNamedStatements = {}
        await pool.query(`LISTEN ${SERVING_EPOCH_CHANNEL}`)
      },
    }
  }
  // Migrations may rewrite large tables: they run under the jobs' bounds.
  try {
    await migrateToLatest(store.jobsDb as unknown as Kysely<unknown>, options.migrateThrough)
  } catch (err) {
    await store.close().catch(() => {})
    throw err
  }
  return store
}

/** `jobsDb` null: the jobs share the request pool (the embedded store's one connection). */
function wrap(kind: Store['kind'], pool: pg.Pool, jobsDb: Db | null, notices: EpochNotices, closeEngine: () => Promise<void>): Store {
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  return {
    kind,
    db,
    jobsDb: jobsDb ?? db,
    ping: () => storeReachable(db),
    poolCounts: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    onServingEpoch: (listener) => notices.subscribe(listener),
    async close() {
      await db.destroy()
      if (jobsDb) await jobsDb.destroy()
      await closeEngine()
    },
  }
}
