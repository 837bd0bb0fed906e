import { createServer, type Server, type ServerResponse } from 'node:http'
import type { Settings } from '../platform/env.ts'
import { listenForJobSignals } from '../store/job-signals.ts'
import { notReadyDetail, readiness } from '../services/status.ts'
import { TIMEOUTS } from '../platform/timeouts.ts'
import { openBase, type Base, type InstanceOptions } from './base.ts'
import { createScheduler, runJobs } from './jobs.ts'
import { followStoredClock, listening, STEPS, type Instance, type Progress } from './instance.ts'

/**
 * ROLE=worker: runs the scheduler (every job occurrence, under the store's
 * watermarks and the jobs' advisory locks, so any number of workers run each
 * occurrence once) and the export worker, woken at once by web instances
 * through PostgreSQL NOTIFY (and every minute regardless). Under
 * CLOCK=manual it follows the clock an operator moves on a web instance and
 * runs what falls due on the way. Its only HTTP is /healthz and /readyz.
 */
export async function startWorker(settings: Settings, options: InstanceOptions = {}): Promise<Instance> {
  if (settings.databaseUrl === null) throw new Error('ROLE=worker needs DATABASE_URL') // loadSettings refuses it first
  const base = await openBase(settings, options)
  const scheduler = createScheduler(base)
  const health = healthServer(base)
  let stopListening = async () => {}
  let stopFollowing = () => {}
  // /readyz answers 503 (draining) while the running job finishes; the health listener closes after it.
  const close = async (progress: Progress = () => {}) => {
    stopFollowing()
    progress(STEPS.signals)
    await stopListening()
    progress(STEPS.jobs)
    await scheduler.stop()
    progress(STEPS.health)
    if (health.listening) await new Promise<void>((resolve) => health.close(() => resolve()))
    progress(STEPS.store)
    await base.store.close()
  }
  try {
    stopListening = await listenForJobSignals(
      settings.databaseUrl,
      (job) => void scheduler.wake(job),
      (err) => base.log.warn({ err }, 'job signals interrupted; reconnecting (jobs still run on their schedule)'),
    )
    await runJobs(base, scheduler, options.tickMs)
    stopFollowing = followStoredClock(base, (clock, to) => scheduler.advanceManualClock(to, (at) => clock.set(at)))
    await new Promise<void>((resolve, reject) => {
      health.once('error', reject)
      health.listen(settings.port, settings.host, () => resolve())
    })
  } catch (err) {
    await close().catch(() => {})
    throw err
  }
  return { role: 'worker', ...base, scheduler, app: null, url: listening(health), close }
}

/** A worker's HTTP: `GET /healthz` (200 once it runs jobs) and `GET /readyz` (200 while the store answers, else 503; 503 once shutting down). */
function healthServer(base: Base): Server {
  const send = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(JSON.stringify(body))
  const bounds = { requestTimeout: TIMEOUTS.http.requestMs, headersTimeout: TIMEOUTS.http.headersMs, connectionsCheckingInterval: TIMEOUTS.http.checkIntervalMs }
  const server = createServer(bounds, (req, res) => {
    const path = (req.url ?? '').split('?')[0]
    if (req.method === 'GET' && path === '/healthz') return send(res, 200, { status: 'ok', role: 'worker' })
    if (req.method === 'GET' && path === '/readyz') {
      if (base.lifecycle.draining) {
        res.setHeader('retry-after', String(TIMEOUTS.http.retryAfterS))
        return send(res, 503, { detail: 'shutting down', status: 'draining' })
      }
      // The web's readiness, bounded the same way; a worker counts nothing in Redis ('off').
      void readiness({ db: base.store.db }).then(({ ready, checks }) => {
        if (ready) return send(res, 200, { status: 'ready', checks })
        res.setHeader('retry-after', String(TIMEOUTS.http.retryAfterS))
        send(res, 503, { detail: notReadyDetail(checks), checks })
      })
      return
    }
    send(res, 404, { detail: 'not found: a worker (ROLE=worker) answers only GET /healthz and GET /readyz' })
  })
  server.keepAliveTimeout = TIMEOUTS.http.keepAliveMs
  server.maxConnections = TIMEOUTS.http.maxConnections
  return server
}
