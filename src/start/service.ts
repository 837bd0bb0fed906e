import pino, { type DestinationStream, type LoggerOptions } from 'pino'
import { ManualClock, SystemClock, type Clock } from '../platform/clock.ts'
import type { Settings } from '../platform/env.ts'
import { MemoryCounterStore, RedisCounterStore, type CounterStore } from '../platform/counters.ts'
import { SimulatedProcessor } from '../platform/payment-processor.ts'
import { openStore, type Store } from '../store/db.ts'
import { readManualClock } from '../store/settings.ts'
import { Scheduler } from '../jobs/scheduler.ts'
import { storeScheduleState } from '../jobs/schedule-state.ts'
import { expiryJob } from '../jobs/expiry.ts'
import { invoicingJob } from '../jobs/invoicing.ts'
import { exportsJob, kickExports } from '../jobs/exports.ts'
import { rollupsJob, runRollups } from '../jobs/rollups.ts'
import { buildApp, loggerOptions } from '../http/app.ts'
import type { App } from '../http/types.ts'
import { ServingEngine } from '../serving/engine.ts'

export interface Service {
  app: App
  store: Store
  clock: Clock
  scheduler: Scheduler
  serving: ServingEngine
  /** Stops taking requests, lets in-flight ones finish, then closes the store. */
  close(): Promise<void>
}

/**
 * Wires one service instance: web, scheduler and (later) workers in one
 * process, as the embedded default wants; each part is separable for scale.
 */
export interface ServiceOptions {
  /** Embedded store: start from this dump (tests clone a migrated template). */
  loadDataDir?: Blob
  /** Embedded store: keep it in memory instead of DATA_DIR. */
  inMemory?: boolean
  /** Where logs go (default stdout). */
  logStream?: DestinationStream
}

export async function createService(settings: Settings, options: ServiceOptions = {}): Promise<Service> {
  const store = await openStore({
    databaseUrl: settings.databaseUrl,
    dataDir: settings.dataDir,
    loadDataDir: options.loadDataDir,
    inMemory: options.inMemory,
  })
  let clock: Clock
  if (settings.clock === 'manual') {
    // A restart resumes from the last instant the operator moved to, never earlier.
    const persisted = await readManualClock(store.db)
    const start = settings.clockStart ?? new SystemClock().now()
    clock = new ManualClock(persisted && persisted > start ? persisted : start)
  } else {
    clock = new SystemClock()
  }
  const counters: CounterStore = settings.redisUrl ? new RedisCounterStore(settings.redisUrl) : new MemoryCounterStore()
  const log = pino(loggerOptions(settings.logLevel) as LoggerOptions, options.logStream ?? pino.destination(1))
  const processor = new SimulatedProcessor()
  const scheduler = new Scheduler(
    clock,
    [
      rollupsJob(store.db),
      invoicingJob({ db: store.db, clock, settings, processor }),
      expiryJob(store.db),
      exportsJob({ db: store.db, clock, settings }, log.child({ component: 'exports' })),
    ],
    storeScheduleState(store),
    log.child({ component: 'scheduler' }),
  )
  const serving = await ServingEngine.create(store.db, clock, log.child({ component: 'serving' }), settings.offerKeys)
  const app = await buildApp(
    { db: store.db, clock, settings, counters, processor, scheduler, serving },
    { logger: log },
  )
  // Close any day that ended while the service was down before serving reports.
  await runRollups(store.db, clock.now())
  // Runs every occurrence that fell due while the service was down (since the stored watermarks) before serving.
  await scheduler.start()
  // Export jobs left queued by a previous run start at once (POST /exports kicks the worker the same way).
  kickExports(scheduler, log)
  return {
    app,
    store,
    clock,
    scheduler,
    serving,
    async close() {
      await app.close()
      await serving.close()
      await scheduler.stop()
      await counters.close()
      await store.close()
    },
  }
}
