import { MemoryCounterStore, RedisCounterStore, type CounterStore } from '../platform/counters.ts'
import type { Settings } from '../platform/env.ts'
import type { Scheduler } from '../jobs/scheduler.ts'
import { signalJob } from '../store/job-signals.ts'
import { buildApp } from '../http/app.ts'
import type { App } from '../http/types.ts'
import { ServingEngine } from '../serving/engine.ts'
import { openBase, type Base, type InstanceOptions } from './base.ts'
import { createScheduler } from './jobs.ts'
import { followStoredClock, listening, type Instance } from './instance.ts'

/** The HTTP side of an instance: advertiser, operator and serving APIs and the pages. */
export interface Web {
  app: App
  serving: ServingEngine
  /** Stops taking requests and lets in-flight ones finish, then stops serving. */
  close(): Promise<void>
}

export async function createWeb(base: Base, scheduler: Scheduler): Promise<Web> {
  const { store, clock, settings, processor, log, mailer, metrics } = base
  const counters: CounterStore = settings.redisUrl ? new RedisCounterStore(settings.redisUrl) : new MemoryCounterStore()
  const serving = await ServingEngine.create(store.db, clock, log.child({ component: 'serving' }), settings.offerKeys, metrics)
  const app = await buildApp({ db: store.db, clock, settings, counters, processor, scheduler, serving, mailer, metrics }, { logger: log })
  return {
    app,
    serving,
    async close() {
      await app.close()
      await serving.close()
      await counters.close()
    },
  }
}

/**
 * ROLE=web: serves HTTP and runs no job by itself (no start-up catch-up, no
 * tick). Its scheduler only answers the operator: `POST /admin/v1/jobs/{job}/run`
 * and, under CLOCK=manual, `POST /admin/v1/clock` run here, under the jobs'
 * locks and watermarks, because the operator API answers once they have run.
 * A queued export wakes the workers through PostgreSQL instead of running here.
 */
export async function startWeb(settings: Settings, options: InstanceOptions = {}): Promise<Instance> {
  const base = await openBase(settings, options)
  const scheduler = createScheduler(base, { wakeElsewhere: (job) => signalJob(base.store.db, job) })
  const web = await createWeb(base, scheduler)
  // Under CLOCK=manual it keeps up with a clock moved on another instance; nothing runs on the way.
  const stopFollowing = followStoredClock(base, async (clock, to) => clock.set(to))
  const close = async () => {
    stopFollowing()
    await web.close()
    await scheduler.stop()
    await base.store.close()
  }
  await listenOrClose(web.app, settings, close)
  return { role: 'web', ...base, scheduler, app: web.app, url: listening(web.app.server), close }
}

/** Listens on HOST:PORT; if it cannot (the port is taken), closes what was opened and throws. */
export async function listenOrClose(app: App, settings: Settings, close: () => Promise<void>): Promise<void> {
  try {
    await app.listen({ port: settings.port, host: settings.host })
  } catch (err) {
    await close().catch(() => {})
    throw err
  }
}
