import type { Clock } from '../platform/clock.ts'
import type { Settings } from '../platform/env.ts'
import type { Store } from '../store/db.ts'
import type { Scheduler } from '../jobs/scheduler.ts'
import type { App } from '../http/types.ts'
import type { ServingEngine } from '../serving/engine.ts'
import { openBase, type InstanceOptions } from './base.ts'
import { createScheduler, runJobs } from './jobs.ts'
import { listening, STEPS, type Instance, type Progress } from './instance.ts'
import { createWeb, listenOrClose } from './web.ts'
import { startWebhookSender } from './jobs.ts'

export interface Service {
  app: App
  store: Store
  clock: Clock
  scheduler: Scheduler
  serving: ServingEngine
  /** Stops taking requests, lets in-flight ones finish, then closes the store. */
  close(progress?: Progress): Promise<void>
}

/** Options of an instance; kept under this name for the tests that wire one. */
export type ServiceOptions = InstanceOptions

/** ROLE=all: web and jobs in one process, as the embedded store wants (it belongs to one process). */
async function wireAll(settings: Settings, options: InstanceOptions) {
  const base = await openBase(settings, options)
  const scheduler = createScheduler(base)
  const web = await createWeb(base, scheduler)
  // Before serving: close any day that ended while the service was down, run
  // every occurrence that fell due since the stored watermarks, start queued exports.
  await runJobs(base, scheduler, options.tickMs)
  const webhooks = startWebhookSender(base)
  return {
    base,
    scheduler,
    web,
    close: async (progress: Progress = () => {}) => {
      await web.close(progress)
      progress(STEPS.jobs)
      await webhooks.stop()
      await scheduler.stop()
      progress(STEPS.store)
      await base.store.close()
    },
  }
}

/** Wires an instance of ROLE=all, not yet listening (the tests start every service through here). */
export async function createService(settings: Settings, options: ServiceOptions = {}): Promise<Service> {
  const { base, scheduler, web, close } = await wireAll(settings, options)
  return { app: web.app, store: base.store, clock: base.clock, scheduler, serving: web.serving, close }
}

/** ROLE=all (the default, what `npm start` always ran): the same instance, listening on HOST:PORT. */
export async function startAll(settings: Settings, options: InstanceOptions = {}): Promise<Instance> {
  const { base, scheduler, web, close } = await wireAll(settings, options)
  await listenOrClose(web.app, settings, close)
  return { role: 'all', ...base, scheduler, app: web.app, url: listening(web.app.server), close }
}
