import { loadSettings, SettingsError } from '../platform/env.ts'
import { createService } from './service.ts'

let settings
try {
  settings = loadSettings()
} catch (err) {
  if (err instanceof SettingsError) {
    console.error(`configuration error: ${err.message}`)
    process.exit(78)
  }
  throw err
}

const started = performance.now()
const service = await createService(settings)
await service.app.listen({ port: settings.port, host: settings.host })
service.app.log.info(
  { store: service.store.kind, clock: service.clock.kind, startup_ms: Math.round(performance.now() - started), admin: settings.adminToken !== null },
  `advertiser API listening; OpenAPI at ${settings.publicUrl}/v1/openapi.json`,
)

let stopping = false
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return
    stopping = true
    service.app.log.info({ signal }, 'shutting down: finishing in-flight requests')
    const force = setTimeout(() => process.exit(1), 10_000)
    force.unref()
    service
      .close()
      .then(() => process.exit(0))
      .catch((err) => {
        service.app.log.error({ err }, 'shutdown failed')
        process.exit(1)
      })
  })
}
