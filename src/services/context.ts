import type { Clock } from '../platform/clock.ts'
import type { Settings } from '../platform/env.ts'
import type { Db } from '../store/db.ts'

/** What a use case needs: the store, the one clock and the start-up settings. */
export interface ServiceContext {
  db: Db
  clock: Clock
  settings: Settings
}
