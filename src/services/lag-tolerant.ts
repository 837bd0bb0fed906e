import type { Db } from '../store/db.ts'
import { readRolledThrough } from '../store/rollups.ts'
import type { ServiceContext } from './context.ts'

/**
 * The reads that may go to the read replica (DATABASE_READ_URL;
 * docs/decisions/0347-which-reads-read-replica.md). Everything a use case reads and then
 * acts on, or that a caller must see right after writing it, stays on
 * `ctx.db` (the primary).
 */

type Reads = Pick<ServiceContext, 'db' | 'reads'>

/** A lag-tolerant read: on the replica when `ctx.reads` picks it, else (no replica, or it is down or behind) on `ctx.db`. */
export function lagTolerant<T>(ctx: Reads, read: (db: Db) => Promise<T>): Promise<T> {
  return ctx.reads ? ctx.reads.run(read) : read(ctx.db)
}

/**
 * A read of rolled-up days only, given the primary's watermark
 * `rolledThrough`: on the replica only when it has rolled up the same days
 * (else its answer could miss the day closed last), so the answer is the
 * primary's, except for a closed day the traffic review rolled up again in
 * the last READ_REPLICA_MAX_LAG_MS.
 */
export function rolledUpRead<T>(ctx: Reads, rolledThrough: string | null, read: (db: Db) => Promise<T>): Promise<T> {
  if (!ctx.reads) return read(ctx.db)
  return ctx.reads.run(read, { when: async (replica) => (await readRolledThrough(replica)) === rolledThrough })
}
