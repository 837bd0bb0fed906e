/**
 * Start-up: opening the store with retry, and the one line (and exit code) of
 * each expected failure (docs/operations.md, "Start-up").
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { Logger } from 'pino'
import { keysKeptInStore, type Settings } from '../platform/env.ts'
import { DataDirError, openStore, StoreConnectError, type OpenStoreOptions, type Store } from '../store/db.ts'
import { DataDirLockedError } from '../store/data-dir-lock.ts'
import { MigrationError } from '../store/migrate.ts'

/** Exit codes of a failed start (sysexits.h where one fits). */
export const EXIT = {
  /** EX_UNAVAILABLE: PostgreSQL did not take a connection within STARTUP_TIMEOUT_SECONDS. */
  storeUnreachable: 69,
  /** EX_SOFTWARE: a migration failed. */
  migration: 70,
  /** EX_CANTCREAT: DATA_DIR is not a writable directory. */
  dataDir: 73,
  /** EX_TEMPFAIL: another process holds DATA_DIR. */
  dataDirLocked: 75,
  /** EX_CONFIG: a setting is invalid. */
  settings: 78,
  /** Linux's errno for EADDRINUSE: the address cannot be listened on. */
  listen: 98,
} as const

/** The longest wait between two connection attempts. */
const MAX_BACKOFF_MS = 2_000
const FIRST_BACKOFF_MS = 100

/** PostgreSQL answered, and said no: retrying will not help (the login, or the database name). */
function refusedLogin(reason: unknown): boolean {
  const code = errorCode(reason)
  return code.startsWith('28') || code === '3D000'
}

function errorCode(err: unknown): string {
  return err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : ''
}

/** Where PostgreSQL is, as host:port: DATABASE_URL without its user, password or database. */
export function postgresAddress(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl)
    const host = url.hostname || new URLSearchParams(url.search).get('host') || 'localhost'
    return `${host}:${url.port || '5432'}`
  } catch {
    return '(DATABASE_URL is not a URL)'
  }
}

/** The store did not open within STARTUP_TIMEOUT_SECONDS (or refused the login). */
export class StoreUnreachableError extends Error {
  constructor(message: string) {
    super(message)
  }
}

function unreachableLine(address: string, reason: unknown, seconds: number, attempts: number): string {
  const code = errorCode(reason) || 'no answer'
  const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`
  if (refusedLogin(reason)) {
    // pg's message names the user or the database, never the password.
    const message = reason instanceof Error ? reason.message : String(reason)
    return `PostgreSQL at ${address} refused the login (${code}: ${message}); check the user, password and database name in DATABASE_URL`
  }
  const what =
    code === 'ECONNREFUSED'
      ? 'refused connections'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'could not be found'
        : code.startsWith('57P') || code === '53300'
          ? 'did not accept connections'
          : 'did not answer'
  return `PostgreSQL at ${address} ${what} for ${seconds} s (${tries}, ${code}); check DATABASE_URL and that the server is running and reachable from here`
}

/**
 * Opens the store. PostgreSQL that does not take a connection is tried again
 * with exponential backoff (100 ms doubling, at most 2 s apart) until
 * STARTUP_TIMEOUT_SECONDS have passed, each retry logged as one warning;
 * then StoreUnreachableError. A refused login, a failing migration and the
 * embedded store's failures are not retried.
 */
export async function openStoreWithRetry(settings: Settings, options: OpenStoreOptions, log: Logger): Promise<Store> {
  if (settings.databaseUrl === null) return openStore(options)
  const address = postgresAddress(settings.databaseUrl)
  const started = performance.now()
  const deadline = started + settings.startupTimeoutSeconds * 1000
  let backoff = FIRST_BACKOFF_MS
  for (let attempt = 1; ; attempt++) {
    try {
      return await withinDeadline(openStore(options), deadline - performance.now())
    } catch (err) {
      if (!(err instanceof StoreConnectError)) throw err
      const remaining = deadline - performance.now()
      if (refusedLogin(err.reason) || remaining <= 0) {
        const seconds = Math.round((performance.now() - started) / 1000)
        throw new StoreUnreachableError(unreachableLine(address, err.reason, seconds, attempt))
      }
      const wait = Math.min(backoff, remaining)
      log.warn(
        { store: 'postgres', address, attempt, next_in_ms: Math.round(wait), code: errorCode(err.reason) || undefined },
        `PostgreSQL at ${address} not reachable (attempt ${attempt}); next in ${Math.round(wait)} ms`,
      )
      await sleep(wait)
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS)
    }
  }
}

/**
 * An attempt that neither connects nor fails (a host that drops packets) ends
 * at the deadline as a connect error; a store it opens after that is closed.
 */
async function withinDeadline(attempt: Promise<Store>, remainingMs: number): Promise<Store> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreConnectError(new Error('no answer before STARTUP_TIMEOUT_SECONDS'))), Math.max(remainingMs, 1_000))
  })
  try {
    return await Promise.race([attempt, expired])
  } catch (err) {
    attempt.then((late) => late.close()).catch(() => {})
    throw err
  } finally {
    clearTimeout(timer)
  }
}

/** A failure start-up expects: one line for stderr and the exit code. */
export interface StartupFailure {
  exitCode: number
  line: string
}

/**
 * The line and exit code of an expected start-up failure; null for anything
 * else (which exits with its stack).
 */
export function startupFailure(err: unknown, settings: Settings): StartupFailure | null {
  const fail = (exitCode: number, what: string): StartupFailure => ({ exitCode, line: `start-up error: ${what}` })
  if (err instanceof StoreUnreachableError) return fail(EXIT.storeUnreachable, err.message)
  if (err instanceof StoreConnectError) return fail(EXIT.storeUnreachable, unreachableLine(postgresAddress(settings.databaseUrl ?? ''), err.reason, 0, 1))
  if (err instanceof DataDirLockedError) return fail(EXIT.dataDirLocked, err.message)
  if (err instanceof DataDirError) return fail(EXIT.dataDir, `${err.message}; check DATA_DIR (a directory this user can write), or set DATABASE_URL`)
  if (err instanceof MigrationError) {
    const where = settings.databaseUrl === null ? `the embedded store in ${settings.dataDir}` : `PostgreSQL at ${postgresAddress(settings.databaseUrl)}`
    const reason = err.reason instanceof Error ? err.reason.message : String(err.reason)
    return fail(
      EXIT.migration,
      `migration ${err.migrationName ?? '(the migrator)'} failed on ${where} (${oneLine(reason)}); check the database's state against src/store/migrations`,
    )
  }
  const code = errorCode(err)
  if (err instanceof Error && 'syscall' in err && err.syscall === 'listen') {
    const at = `${settings.host}:${settings.port}`
    if (code === 'EADDRINUSE') return fail(EXIT.listen, `port ${settings.port} on ${settings.host} is in use (EADDRINUSE); stop the other process or set PORT`)
    if (code === 'EACCES') return fail(EXIT.listen, `not permitted to listen on ${at} (EACCES); use a port above 1023 or grant the capability`)
    if (code === 'EADDRNOTAVAIL') return fail(EXIT.listen, `cannot listen on ${at} (EADDRNOTAVAIL): HOST is not an address of this machine; check HOST`)
  }
  return null
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

/**
 * The one line a development start prints on stderr when it keeps sealing keys in the store
 * (NODE_ENV=production refuses to start so: platform/env.ts#loadSettings); null when it keeps none.
 * Plain words, not a log record: the person who just ran `npm start` reads it.
 */
export function keysInStoreNote(settings: Pick<Settings, 'role' | 'offerKeys' | 'keySealingKeys'>): string | null {
  const names = keysKeptInStore(settings).map((k) => k.setting)
  if (names.length === 0) return null
  const one = names.length === 1
  return (
    `Note: ${names.join(' and ')} ${one ? 'is' : 'are'} unset, so ${one ? 'its key is' : 'their keys are'} kept in the database. ` +
    `That is fine for development; production (NODE_ENV=production) needs ${one ? 'it' : 'them'} set (docs/sealing-keys.md).`
  )
}
