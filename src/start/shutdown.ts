import { setTimeout as sleep } from 'node:timers/promises'
import type { Instance } from './instance.ts'

/** How long closing may take after the drain before the process exits anyway, with 1. */
const HARD_CAP_AFTER_DRAIN_MS = 10_000

/**
 * SIGTERM and SIGINT close the instance gracefully (docs/operations.md, "Shutdown"):
 * 1. at once, `/readyz` answers 503 `shutting down`;
 * 2. a web instance keeps serving for SHUTDOWN_DRAIN_SECONDS, every answer with
 *    `Connection: close`, so that a load balancer stops sending here;
 * 3. the listener closes and in-flight requests finish, the serving ledger
 *    flushes, jobs stop at a safe point (a worker finishes its running job),
 *    the store closes last; exit 0.
 * A second signal is ignored. If closing is not done within the drain plus ten
 * seconds, one line names the step still running and the process exits with 1.
 */
export function closeOnSignals(instance: Instance): void {
  let stopping = false
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return
      stopping = true
      void shutDown(instance, signal)
    })
  }
}

async function shutDown(instance: Instance, signal: NodeJS.Signals): Promise<void> {
  const { log, role, lifecycle, settings } = instance
  // A worker takes no traffic from a load balancer: nothing to drain.
  const drainMs = instance.app ? settings.shutdownDrainSeconds * 1000 : 0
  lifecycle.draining = true
  let step = `draining (${settings.shutdownDrainSeconds} s of serving with /readyz at 503)`
  const capMs = drainMs + HARD_CAP_AFTER_DRAIN_MS
  // Not unref'd: the process ends through process.exit, whichever comes first.
  setTimeout(() => {
    const line = `shutdown error: still ${step} ${capMs / 1000} s after ${signal}; exiting with 1`
    log.error({ signal, role, step }, line)
    console.error(line)
    process.exit(1)
  }, capMs)
  log.info(
    { signal, role, drain_ms: drainMs },
    instance.app ? `shutting down: /readyz answers 503; serving ${drainMs} ms more, then closing` : 'shutting down: /readyz answers 503; finishing the running job',
  )
  await sleep(drainMs)
  try {
    await instance.close((now) => {
      step = now
      log.info({ role, step: now }, `shutting down: ${now}`)
    })
    log.info({ role }, 'shut down')
    process.exit(0)
  } catch (err) {
    log.error({ err, role, step }, 'shutdown failed')
    process.exit(1)
  }
}
