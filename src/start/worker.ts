import { createServer, type Server, type ServerResponse } from 'node:http'
import type { Settings } from '../platform/env.ts'
import { listenForJobSignals } from '../store/job-signals.ts'
import { notReadyDetail, readiness } from '../services/status.ts'
import { TIMEOUTS } from '../platform/timeouts.ts'
import { openBase, type Base, type InstanceOptions } from './base.ts'
import { createScheduler, runJobs, startWebhookSender } from './jobs.ts'
import { followStoredClock, listening, STEPS, type Instance, type Progress } from './instance.ts'
import { checkOperatorToken } from '../services/operators.ts'
import { bearerToken, INVALID_OPERATOR_TOKEN, TOO_MANY_OPERATOR_TOKENS } from '../http/plugins/admin-auth.ts'
import { MemoryCounterStore } from '../platform/memory-counters.ts'
import { requestId } from '../http/app.ts'

/**
 * ROLE=worker: runs the scheduler (every job occurrence, under the store's
 * watermarks and the jobs' advisory locks, so any number of workers run each
 * occurrence once) and the export worker, woken at once by web instances
 * through PostgreSQL NOTIFY (and every minute regardless). Under
 * CLOCK=manual it follows the clock an operator moves on a web instance and
 * runs what falls due on the way. It sends webhooks (src/jobs/webhooks.ts). Its only HTTP is /healthz, /readyz and, with ADMIN_TOKEN, /metrics (where the job metrics are).
 */
export async function startWorker(settings: Settings, options: InstanceOptions = {}): Promise<Instance> {
  if (settings.databaseUrl === null) throw new Error('ROLE=worker needs DATABASE_URL') // loadSettings refuses it first
  const base = await openBase(settings, options)
  const scheduler = createScheduler(base)
  const health = healthServer(base)
  let stopListening = async () => {}
  let stopFollowing = () => {}
  let stopWebhooks = async () => {}
  // /readyz answers 503 (draining) while the running job finishes; the health listener closes after it.
  const close = async (progress: Progress = () => {}) => {
    stopFollowing()
    progress(STEPS.signals)
    await stopListening()
    progress(STEPS.jobs)
    await stopWebhooks()
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
    const webhooks = startWebhookSender(base)
    stopWebhooks = () => webhooks.stop()
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

/**
 * A worker's HTTP: `GET /healthz` (200 once it runs jobs), `GET /readyz` (200
 * while the store answers, else 503; 503 once shutting down) and, when
 * ADMIN_TOKEN is set, `GET /metrics` behind the operator token like the web
 * instances' (401 without it; wrong tokens lock the address out of scope
 * `admin`, here in this worker's own counters: a worker has no Redis).
 */
function healthServer(base: Base): Server {
  const send = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(JSON.stringify(body))
  const token = base.settings.adminToken
  const lockout = { clock: base.clock, counters: new MemoryCounterStore() }
  const bounds = { requestTimeout: TIMEOUTS.http.requestMs, headersTimeout: TIMEOUTS.http.headersMs, connectionsCheckingInterval: TIMEOUTS.http.checkIntervalMs }
  const server = createServer(bounds, (req, res) => {
    res.setHeader('x-request-id', requestId(req.headers['x-request-id']))
    res.setHeader('x-content-type-options', 'nosniff')
    const path = (req.url ?? '').split('?')[0]
    if (req.method === 'GET' && path === '/metrics' && token !== null) {
      const address = req.socket.remoteAddress ?? 'unknown'
      checkOperatorToken(lockout, token, bearerToken(req.headers.authorization), address)
        .then(async (checked) => {
          if (!checked.ok && checked.reason === 'locked') {
            res.setHeader('retry-after', String(checked.retryAfterS))
            return send(res, 429, { detail: TOO_MANY_OPERATOR_TOKENS })
          }
          if (!checked.ok) return send(res, 401, { detail: INVALID_OPERATOR_TOKEN })
          const { contentType, body } = await base.metrics.scrape()
          res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(body)
        })
        .catch((err: unknown) => {
          base.log.error({ err }, 'metrics scrape failed')
          send(res, 500, { detail: 'internal error' })
        })
      return
    }
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
    send(res, 404, { detail: 'not found: a worker (ROLE=worker) answers only GET /healthz, GET /readyz and GET /metrics' })
  })
  server.keepAliveTimeout = TIMEOUTS.http.keepAliveMs
  server.maxConnections = TIMEOUTS.http.maxConnections
  return server
}
