/**
 * `npm start`: reads the settings, starts the instance ROLE asks for (web,
 * worker, or both: docs/decisions.md "Roles"), closes it on SIGTERM/SIGINT.
 */
import { loadSettings, SettingsError, type Settings } from '../platform/env.ts'
import { startInstance } from './roles.ts'
import { closeOnSignals } from './shutdown.ts'
import { DataDirLockedError } from '../store/data-dir-lock.ts'

let settings: Settings
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
const instance = await startInstance(settings).catch((err: unknown) => {
  if (err instanceof DataDirLockedError) {
    console.error(`start-up error: ${err.message}`)
    process.exit(75)
  }
  throw err
})
instance.log.info(
  {
    role: instance.role,
    store: instance.store.kind,
    clock: instance.clock.kind,
    startup_ms: Math.round(performance.now() - started),
    admin: settings.adminToken !== null,
  },
  instance.role === 'worker'
    ? `worker running jobs; health at ${instance.url}/healthz`
    : `advertiser API listening; OpenAPI at ${settings.publicUrl}/v1/openapi.json`,
)
closeOnSignals(instance)
