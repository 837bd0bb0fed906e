import type { Clock } from '../platform/clock.ts'
import type { Settings } from '../platform/env.ts'
import type { Db } from '../store/db.ts'
import type { LagTolerantReads } from '../store/read-replica.ts'

/** What a use case needs: the store, the one clock and the start-up settings. */
export interface ServiceContext {
  db: Db
  clock: Clock
  settings: Settings
  /**
   * Lag-tolerant reads (DATABASE_READ_URL, docs/decisions/0347-which-reads-read-replica.md):
   * the replica when it is up and close enough, else `db`'s primary. Unset: no
   * replica, such reads run on `db`. Only the reads listed there use it.
   */
  reads?: LagTolerantReads
}

