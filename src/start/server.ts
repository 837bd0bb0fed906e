/**
 * `npm start`: reads the settings, starts the instance ROLE asks for (web,
 * worker, or both: docs/decisions/0061-role-web-worker-all-default-all.md), closes it on SIGTERM/SIGINT.
 * An expected start-up failure (a setting, among them sealing keys kept in the
 * store under NODE_ENV=production; store unreachable, DATA_DIR, migration, port)
 * is one line on stderr and an exit code of its own (docs/operations.md,
 * "Start-up"); anything else exits with its stack.
 */
import { loadSettings, SettingsError, type Settings } from '../platform/env.ts'
import { startInstance } from './roles.ts'
import { closeOnSignals } from './shutdown.ts'
import { EXIT, keysInStoreNote, startupFailure } from './startup.ts'

let settings: Settings
try {
  settings = loadSettings()
} catch (err) {
  if (err instanceof SettingsError) {
    console.error(`configuration error: ${err.message}`)
    process.exit(EXIT.settings)
  }
  throw err
}

const started = performance.now()
const instance = await startInstance(settings).catch((err: unknown) => {
  const failure = startupFailure(err, settings)
  if (failure === null) throw err
  console.error(failure.line)
  process.exit(failure.exitCode)
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
// Said once, after the service is up (production refused to start without the keys: platform/env.ts).
const note = keysInStoreNote(settings)
if (note !== null) console.error(note)
closeOnSignals(instance)
