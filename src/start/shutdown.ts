import type { Instance } from './instance.ts'

/** How long in-flight work may take to finish after SIGTERM before the process exits anyway. */
const FORCE_EXIT_MS = 10_000

/**
 * SIGTERM and SIGINT close the instance gracefully: a web instance finishes
 * in-flight requests (and its pending ledger batch), a worker finishes the
 * job it is running; the store closes last. A second signal is ignored; after
 * ten seconds the process exits with 1.
 */
export function closeOnSignals(instance: Instance): void {
  let stopping = false
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return
      stopping = true
      instance.log.info({ signal, role: instance.role }, instance.app ? 'shutting down: finishing in-flight requests' : 'shutting down: finishing the running job')
      const force = setTimeout(() => process.exit(1), FORCE_EXIT_MS)
      force.unref()
      instance
        .close()
        .then(() => process.exit(0))
        .catch((err: unknown) => {
          instance.log.error({ err }, 'shutdown failed')
          process.exit(1)
        })
    })
  }
}
