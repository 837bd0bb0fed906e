import { Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import type { Database } from './schema.ts'
import { postgresPoolConfig, type Db, type PoolTimeouts } from './db.ts'

/**
 * Lag-tolerant reads on a PostgreSQL streaming replica (DATABASE_READ_URL,
 * issue 33; docs/decisions/0347-which-reads-read-replica.md to 0353). A few reads that may be a
 * little behind (rolled-up days, the leaderboard, the quote, the export
 * worker's ledger pages) run on the replica while it is up and within
 * READ_REPLICA_MAX_LAG_MS of the primary; otherwise, and whenever a replica
 * query fails, on the primary. Everything else never sees the replica.
 *
 * The lag is measured in WAL positions, not replay timestamps: every check
 * (once a second, bounded) notes the primary's `pg_current_wal_lsn()` and the
 * real time it was read; the replica's `pg_last_wal_replay_lsn()` then tells
 * the newest of those notes it has replayed past, and everything committed on
 * the primary before that note's time is on the replica. `now() -
 * pg_last_xact_replay_timestamp()` would grow without bound on an idle primary
 * (no transaction to replay), which a WAL position does not.
 */

export type ReadTarget = 'replica' | 'primary'

/** What the routing reports (the instance's metrics implement it). */
export interface ReadObserver {
  /** A lag-tolerant read answered by `target`. */
  lagTolerantRead(target: ReadTarget): void
  /** A replica query failed (down, stalled, a recovery conflict): the read was run again on the primary. */
  replicaReadFailed(): void
}

export interface ReplicaBounds {
  /** READ_REPLICA_MAX_LAG_MS: reads go to the replica only while it is at most this far behind. */
  maxLagMs: number
  /** How often the lag is measured. */
  checkEveryMs: number
  /** One measurement (primary and replica) must answer within this, else the replica counts as down. */
  checkTimeoutMs: number
  /** The replica's pools: requests (short bounds: a fallback must still answer in time) and the jobs. */
  request: PoolTimeouts
  jobs: PoolTimeouts
  keepAliveInitialDelayMs: number
}

/** What the routing knows now (the metrics' gauges). */
export interface ReplicaStatus {
  /** Lag-tolerant reads go to the replica now. */
  up: boolean
  /** How far behind the primary the replica is at most (ms), as of the last measurement; null: unknown (down). */
  lagMs: number | null
}

/** Lag-tolerant reads for one pool pair: the request pools or the jobs' pools. */
export interface LagTolerantReads {
  /**
   * Runs `read` on the replica when it is up, within the bound and, if given,
   * `when(replica)` holds (e.g. it has rolled up the same days as the
   * primary); else, and when the replica's run fails, on the primary.
   * `read` must only read: it may run twice.
   */
  run<T>(read: (db: Db) => Promise<T>, options?: { when?: (replica: Db) => Promise<boolean> }): Promise<T>
  /**
   * For a unit of work that must see everything committed before it started
   * (an export): the replica only once it has replayed past the primary's WAL
   * position now (waiting up to `waitMs`), else the primary; the returned
   * runner keeps that choice, still falling back to the primary on a failure.
   */
  upToNow(waitMs: number): Promise<LagTolerantReads>
}

/** A WAL position ('16/B374D848') as a number of bytes. */
export function lsnBytes(text: string): bigint {
  const m = /^([0-9A-F]+)\/([0-9A-F]+)$/i.exec(text)
  if (!m) throw new RangeError(`not a WAL position: ${text}`)
  return (BigInt(`0x${m[1]}`) << 32n) + BigInt(`0x${m[2]}`)
}

/** The primary's WAL written so far (what streaming can send; on an idle server the replica reaches exactly this). */
export async function readPrimaryWalLsn(db: Db): Promise<bigint> {
  const { rows } = await sql<{ lsn: string }>`SELECT pg_current_wal_lsn()::text AS lsn`.execute(db)
  return lsnBytes(rows[0]!.lsn)
}

/** How far the replica has replayed, or null when the server is not a standby in recovery. */
export async function readReplayLsn(db: Db): Promise<bigint | null> {
  const { rows } = await sql<{ standby: boolean; lsn: string | null }>`
    SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS lsn`.execute(db)
  const row = rows[0]
  return row?.standby && row.lsn !== null ? lsnBytes(row.lsn) : null
}

/** `promise`, or a rejection after `ms` (real time). */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** One note of the primary's WAL position and the real time (performance.now()) it was read. */
interface Note {
  atMs: number
  lsn: bigint
}

/**
 * How far behind a replica that has replayed `replayed` is at `nowMs`, at
 * most: the time since the newest note it has replayed past (everything
 * committed before that note is on it). Infinity when it has replayed past
 * none of them.
 */
export function lagBound(notes: readonly Note[], replayed: bigint, nowMs: number): number {
  for (let i = notes.length - 1; i >= 0; i--) {
    if (notes[i]!.lsn <= replayed) return nowMs - notes[i]!.atMs
  }
  return Infinity
}

/**
 * The replica's pools and the periodic lag measurement. `primary` is the
 * primary's request pool (the measurements read its WAL position); the
 * views `requests` and `jobs` fall back to the primary pool of their kind.
 */
export class ReadReplica {
  readonly #db: Db
  readonly #jobsDb: Db
  readonly #primary: Db
  readonly #bounds: ReplicaBounds
  readonly #observer: ReadObserver | undefined
  /** Notes of the primary's WAL position, oldest first, as old as the bound needs. */
  #notes: Note[] = []
  /** The real time up to which everything committed on the primary is on the replica (as of the last measurement); null: down. */
  #coveredAtMs: number | null = null
  #lastLagMs: number | null = null
  #timer: NodeJS.Timeout | null = null
  #closed = false

  constructor(url: string, primary: Db, bounds: ReplicaBounds, observer?: ReadObserver) {
    this.#primary = primary
    this.#bounds = bounds
    this.#observer = observer
    const open = (timeouts: PoolTimeouts) => {
      const pool = new pg.Pool(postgresPoolConfig(url, timeouts, timeouts.poolSize, bounds.keepAliveInitialDelayMs))
      // A dropped idle connection (the replica restarted) is discarded by the pool, not a crash.
      pool.on('error', () => {})
      return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
    }
    this.#db = open(bounds.request)
    this.#jobsDb = open(bounds.jobs)
  }

  /** Starts measuring (the first measurement at once); reads go to the primary until one succeeds. */
  start(): void {
    const tick = () => {
      this.#timer = null
      void this.check().finally(() => {
        if (!this.#closed) this.#timer = setTimeout(tick, this.#bounds.checkEveryMs).unref()
      })
    }
    tick()
  }

  /** One measurement (exported for the tests; start() runs it periodically). */
  async check(): Promise<void> {
    const noteAt = performance.now()
    try {
      const lsn = await within(readPrimaryWalLsn(this.#primary), this.#bounds.checkTimeoutMs)
      this.#notes.push({ atMs: noteAt, lsn })
      const replayed = await within(readReplayLsn(this.#db), this.#bounds.checkTimeoutMs)
      if (replayed === null) throw new Error('DATABASE_READ_URL is not a standby in recovery')
      const lag = lagBound(this.#notes, replayed, noteAt)
      this.#coveredAtMs = lag === Infinity ? null : noteAt - lag
      this.#lastLagMs = lag === Infinity ? null : lag
    } catch {
      this.#coveredAtMs = null
      this.#lastLagMs = null
    } finally {
      // Older notes could only say "behind by more than the bound": keep the newest one older than that.
      const keepFrom = noteAt - this.#bounds.maxLagMs - this.#bounds.checkEveryMs
      let older = 0
      while (older + 1 < this.#notes.length && this.#notes[older + 1]!.atMs < keepFrom) older++
      if (older > 0) this.#notes = this.#notes.slice(older)
    }
  }

  /** Whether lag-tolerant reads go to the replica now. */
  usable(): boolean {
    return this.#coveredAtMs !== null && performance.now() - this.#coveredAtMs <= this.#bounds.maxLagMs
  }

  status(): ReplicaStatus {
    return { up: this.usable(), lagMs: this.#lastLagMs }
  }

  /** A failed replica read: down until the next measurement succeeds. */
  #failed(): void {
    this.#coveredAtMs = null
    this.#observer?.replicaReadFailed()
  }

  /** Lag-tolerant reads on the request pools. */
  get requests(): LagTolerantReads {
    return this.#view(this.#db, this.#primary, true)
  }

  /** Lag-tolerant reads on the jobs' pools (the export worker), falling back to `primaryJobs`. */
  jobs(primaryJobs: Db): LagTolerantReads {
    return this.#view(this.#jobsDb, primaryJobs, true)
  }

  #view(replica: Db, primary: Db, mayUseReplica: boolean): LagTolerantReads {
    const onPrimary = async <T>(read: (db: Db) => Promise<T>): Promise<T> => {
      this.#observer?.lagTolerantRead('primary')
      return read(primary)
    }
    return {
      run: async (read, options = {}) => {
        if (!mayUseReplica || !this.usable()) return onPrimary(read)
        let result: { value: Awaited<ReturnType<typeof read>> } | null
        try {
          result = options.when && !(await options.when(replica)) ? null : { value: await read(replica) }
        } catch {
          this.#failed()
          return onPrimary(read)
        }
        if (result === null) return onPrimary(read)
        this.#observer?.lagTolerantRead('replica')
        return result.value
      },
      upToNow: async (waitMs) => {
        if (!mayUseReplica || !this.usable()) return this.#view(replica, primary, false)
        const caughtUp = await this.#replayedPastNow(replica, primary, waitMs).catch(() => false)
        return this.#view(replica, primary, caughtUp)
      },
    }
  }

  /** Whether the replica replays past the primary's WAL position of now within `waitMs` (polled). */
  async #replayedPastNow(replica: Db, primary: Db, waitMs: number): Promise<boolean> {
    const timeout = this.#bounds.checkTimeoutMs
    const target = await within(readPrimaryWalLsn(primary), timeout)
    const until = performance.now() + waitMs
    for (;;) {
      const replayed = await within(readReplayLsn(replica), timeout)
      if (replayed !== null && replayed >= target) return true
      if (replayed === null || performance.now() >= until) return false
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  async close(): Promise<void> {
    this.#closed = true
    if (this.#timer) clearTimeout(this.#timer)
    await Promise.all([this.#db.destroy(), this.#jobsDb.destroy()])
  }
}
