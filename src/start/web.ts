import type { CounterStore } from '../platform/counters.ts'
import { MemoryCounterStore } from '../platform/memory-counters.ts'
import { RedisCounterStore } from '../platform/redis-counters.ts'
import { ResilientCounterStore } from '../platform/resilient-counters.ts'
import { TIMEOUTS } from '../platform/timeouts.ts'
import type { Settings } from '../platform/env.ts'
import type { Scheduler } from '../jobs/scheduler.ts'
import { signalJob } from '../store/job-signals.ts'
import { buildApp } from '../http/app.ts'
import type { App } from '../http/types.ts'
import { ServingEngine } from '../serving/engine.ts'
import { ServingLimitsCache } from '../services/serving-limits.ts'
import { devAttesterKey, type AttestationParts } from '../services/attestation.ts'
import { keySealer } from '../services/key-sealing.ts'
import { IssuerKeys } from '../serving/issuer-keys.ts'
import { Attester } from '../platform/attester.ts'
import { openBase, type Base, type InstanceOptions } from './base.ts'
import { createScheduler } from './jobs.ts'
import { followStoredClock, listening, STEPS, type Instance, type Progress } from './instance.ts'

/** The HTTP side of an instance: advertiser, operator and serving APIs and the pages. */
export interface Web {
  app: App
  serving: ServingEngine
  /** Stops taking requests and lets in-flight ones finish, then stops serving. */
  close(progress?: Progress): Promise<void>
}

export async function createWeb(base: Base, scheduler: Scheduler): Promise<Web> {
  const { store, clock, settings, processor, log, mailer, lifecycle, metrics } = base
  // With REDIS_URL, the Redis policy (platform/resilient-counters.ts): local counters while Redis is down.
  let counters: CounterStore = new MemoryCounterStore()
  if (settings.redisUrl) {
    const redis = new RedisCounterStore(settings.redisUrl)
    // Bounded: an instance starts without Redis too, on local counters, and takes Redis up when it answers.
    await redis.waitReady(TIMEOUTS.redis.connectMs)
    counters = new ResilientCounterStore(redis, log.child({ component: 'redis' }))
  }
  const serving = await ServingEngine.create(store.db, clock, log.child({ component: 'serving' }), settings.offerKeys, metrics, (listener) => store.onServingEpoch(listener))
  // The offers this instance counted are in the store before a rollup closes their day.
  scheduler.before('rollups', () => serving.offers.flush())
  const servingLimits = new ServingLimitsCache({ db: store.db })
  // Privacy Pass (docs/attestation.md): the issuer's keys, sealed under the key-sealing ring, and the attester.
  const attestation: AttestationParts = {
    keys: new IssuerKeys(store.db, clock, await keySealer({ db: store.db, settings }), settings.privacyPassKeyDays, new URL(settings.publicUrl).host),
    attester: settings.attester ? await Attester.create(settings.attester, settings.publicUrl, () => devAttesterKey({ db: store.db })) : null,
  }
  // The issuing key read (or, on a new deployment or period, made) while the instance starts: decisions never wait for it.
  attestation.keys.prepare()
  // Lag-tolerant reads (the stats over rolled-up days, the leaderboard, the quote) may go to the replica.
  const reads = base.replica?.requests
  const app = await buildApp(
    { db: store.db, ...(reads ? { reads } : {}), clock, settings, counters, processor, scheduler, serving, servingLimits, mailer, lifecycle, metrics, attestation },
    { logger: log },
  )
  return {
    app,
    serving,
    async close(progress = () => {}) {
      progress(STEPS.http)
      await closeListener(app)
      progress(STEPS.ledger)
      await serving.close()
      progress(STEPS.counters)
      await counters.close()
    },
  }
}

/** How long a connection with no request in progress may stay open once the listener is closed. */
const IDLE_GRACE_MS = 250

/**
 * Closes the listener and waits for in-flight requests. Node's `server.close()`
 * also destroys, at that instant, every connection with no request in
 * progress, including one just accepted whose first request is not read yet:
 * its client would see ECONNRESET. Here such connections are closed only after
 * IDLE_GRACE_MS (and every IDLE_GRACE_MS after that): a request that arrives
 * meanwhile is answered (503 `shutting down` with `Connection: close`,
 * plugins/errors.ts), and a connection still idle then is closed.
 */
async function closeListener(app: App): Promise<void> {
  const server = app.server
  const closeIdle = server.closeIdleConnections.bind(server)
  server.closeIdleConnections = () => {}
  const reaper = setInterval(closeIdle, IDLE_GRACE_MS)
  try {
    await app.close()
  } finally {
    clearInterval(reaper)
    server.closeIdleConnections = closeIdle
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
  const close = async (progress: Progress = () => {}) => {
    stopFollowing()
    await web.close(progress)
    progress(STEPS.jobs)
    await scheduler.stop()
    progress(STEPS.store)
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
