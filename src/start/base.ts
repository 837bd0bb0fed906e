import { CLICK_UNBILLED_REASONS } from '../domain/clicks.ts'
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino'
import { ManualClock, SystemClock, type Clock } from '../platform/clock.ts'
import type { Settings } from '../platform/env.ts'
import { SimulatedProcessor, type PaymentProcessor } from '../platform/payment-processor.ts'
import { smtpMailer, type Mailer } from '../platform/mailer.ts'
import type { Store } from '../store/db.ts'
import { ReadReplica } from '../store/read-replica.ts'
import { createLifecycle, type Lifecycle } from '../platform/lifecycle.ts'
import { readManualClock } from '../store/settings.ts'
import { loggerOptions } from '../http/app.ts'
import { TIMEOUTS } from '../platform/timeouts.ts'
import { openStoreWithRetry } from './startup.ts'
import { Metrics } from '../platform/metrics.ts'
import { logDestination } from '../platform/log-destination.ts'
import { NON_BILLABLE_REASONS, UNKNOWN_IMPRESSION } from '../domain/delivery.ts'
import { resealUnderCurrentKey, type ResealOutcome } from '../services/key-sealing.ts'
import type { Db } from '../store/db.ts'

/** How an instance is started beyond its settings (tests and tools; `npm start` passes none). */
export interface InstanceOptions {
  /** Embedded store: start from this dump (tests clone a migrated template). */
  loadDataDir?: Blob
  /** Embedded store: keep it in memory instead of DATA_DIR. */
  inMemory?: boolean
  /** Where logs go (default stdout). */
  logStream?: DestinationStream
  /** A clock in place of the one CLOCK selects (tests run several instances on one clock). */
  clock?: Clock
  /** How often a job-running instance looks for due jobs on the system clock (default 15 s). */
  tickMs?: number
  /** An open, migrated store to stand on instead of opening one (tests hand one store to service after service: test/helpers/store-reuse.ts). */
  store?: Store
}

/** What every role stands on: the settings, the store, the one clock, the logger, the payment processor, the mailer. */
export interface Base {
  settings: Settings
  store: Store
  clock: Clock
  log: Logger
  processor: PaymentProcessor
  /** SMTP when SMTP_URL is set; null: email is kept in the outbox only. */
  mailer: Mailer | null
  /** Set to draining on SIGTERM: /readyz answers 503 from then on (src/start/shutdown.ts). */
  lifecycle: Lifecycle
  /** This instance's Prometheus registry and instruments (GET /metrics). */
  metrics: Metrics
  /** DATABASE_READ_URL: the streaming replica for lag-tolerant reads (closed with the store); null: none. */
  replica: ReadReplica | null
}

export async function openBase(settings: Settings, options: InstanceOptions): Promise<Base> {
  const log = pino(loggerOptions(settings.logLevel) as LoggerOptions, options.logStream ?? logDestination(settings))
  // PostgreSQL is retried for up to STARTUP_TIMEOUT_SECONDS (docs/operations.md, "Start-up").
  let store =
    options.store ??
    (await openStoreWithRetry(
      settings,
      {
        databaseUrl: settings.databaseUrl,
        dataDir: settings.dataDir,
        loadDataDir: options.loadDataDir,
        inMemory: options.inMemory,
        timeouts: { request: TIMEOUTS.pg, jobs: TIMEOUTS.pgJobs, keepAliveInitialDelayMs: TIMEOUTS.pg.keepAliveInitialDelayMs },
      },
      log,
    ))
  await resealSecrets(settings, store.db, log)
  let clock: Clock
  if (options.clock) {
    clock = options.clock
  } else if (settings.clock === 'manual') {
    // A restart resumes from the last instant the operator moved to, never earlier.
    const persisted = await readManualClock(store.db)
    const start = settings.clockStart ?? new SystemClock().now()
    clock = new ManualClock(persisted && persisted > start ? persisted : start)
  } else {
    clock = new SystemClock()
  }
  const mailer = settings.smtpUrl === null ? null : smtpMailer(settings.smtpUrl, `no-reply@${new URL(settings.publicUrl).hostname}`)
  // Reads come from the replica only once it answers and is within the bound; until then, and whenever not, the primary.
  let replica: ReadReplica | null = null
  const metrics = new Metrics({
    poolCounts: () => store.poolCounts(),
    viewReasons: [...NON_BILLABLE_REASONS, UNKNOWN_IMPRESSION],
    clickReasons: CLICK_UNBILLED_REASONS,
    readReplica: settings.databaseReadUrl === null ? undefined : () => replica?.status() ?? { up: false, lagMs: null },
  })
  if (settings.databaseReadUrl !== null) {
    const r = TIMEOUTS.pgReplica
    replica = new ReadReplica(
      settings.databaseReadUrl,
      store.db,
      {
        maxLagMs: settings.readReplicaMaxLagMs,
        checkEveryMs: r.checkEveryMs,
        checkTimeoutMs: r.checkTimeoutMs,
        request: r,
        jobs: TIMEOUTS.pgReplicaJobs,
        keepAliveInitialDelayMs: TIMEOUTS.pg.keepAliveInitialDelayMs,
      },
      metrics,
    )
    replica.start()
    const open = replica
    const closeStore = store.close.bind(store)
    store = {
      ...store,
      close: async () => {
        await open.close()
        await closeStore()
      },
    }
  }
  return { settings, store, clock, log, processor: new SimulatedProcessor(), mailer, lifecycle: createLifecycle(), metrics, replica }
}

/**
 * Re-seals what is sealed under a sealing key other than the current one
 * (services/key-sealing.ts#resealUnderCurrentKey): after KEY_SEALING_KEY is
 * set or rotated, the old key then seals nothing. Not fatal: a value not
 * re-sealed yet still opens wherever its key is in the ring, and the next
 * start tries again.
 */
async function resealSecrets(settings: Settings, db: Db, log: Logger): Promise<void> {
  try {
    const { keyId, resealed, unopenable } = await resealUnderCurrentKey({ db, settings })
    const fields = (counts: ResealOutcome['resealed']) => ({
      key_id: keyId,
      api_keys: counts.api_key,
      webhook_secrets: counts.webhook_secret,
      emails: counts.outbox_body,
      email_links: counts.outbox_link,
    })
    const total = (counts: ResealOutcome['resealed']) => Object.values(counts).reduce((a, b) => a + b, 0)
    if (total(resealed) > 0) log.info(fields(resealed), 'sealed secrets re-sealed under the current sealing key')
    if (total(unopenable) > 0) {
      log.warn(
        fields(unopenable),
        'sealed secrets that no sealing key of this instance opens: those API keys cannot be revealed (rotate them), those webhook deliveries fail ' +
          '(secret_unavailable) and those emails read as unreadable in the outbox; list the key that sealed them in KEY_SEALING_KEY',
      )
    }
  } catch (err) {
    log.error({ err }, 're-sealing the sealed secrets at start failed; they stay under their key until the next start')
  }
}
