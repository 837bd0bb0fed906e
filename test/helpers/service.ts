import { readFile } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import type { DestinationStream } from 'pino'
import { Agent, fetch, type RequestInit, type Response } from 'undici'
import { loadSettings } from '../../src/platform/env.ts'
import { createService, type Service } from '../../src/start/service.ts'
import { openStore, type Store } from '../../src/store/db.ts'
import { TIMEOUTS } from '../../src/platform/timeouts.ts'
import { leaseStore, type OpenedStore } from './store-reuse.ts'
import { ManualClock } from '../../src/platform/clock.ts'

export const ADMIN_TOKEN = 'test-admin-token-0123456789'
export const CLOCK_START = '2026-11-02T09:00:00.000Z' // a Monday

export type StoreKind = 'embedded' | 'postgres'
export const STORE: StoreKind = process.env.TEST_STORE === 'postgres' ? 'postgres' : 'embedded'

export interface TestService {
  service: Service
  baseUrl: string
  clock: ManualClock
  databaseUrl: string | null
  close(): Promise<void>
}

/**
 * A new PostgreSQL database on the server of `adminUrl`, with a function that drops it:
 * empty, or a copy of `template` (a database nobody is connected to).
 */
export async function createDatabase(adminUrl: string, prefix = 'adapi_test', template?: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${pg.escapeIdentifier(template)}` : ''}`)
  await admin.end()
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await c.end()
    },
  }
}

/**
 * A real service over real HTTP on a fresh store: the embedded store cloned
 * from a migrated template (TEST_PGLITE_TEMPLATE), or a new PostgreSQL
 * database created on TEST_DATABASE_URL (a copy of the migrated database
 * TEST_PG_TEMPLATE when set) and dropped afterwards. In a process of several
 * test files (scripts/test.ts), a service not given a store (neither
 * DATABASE_URL nor loadDataDir) may stand on the store a previous service
 * closed, set back exactly to the template (test/helpers/store-reuse.ts);
 * everything else of the service is built anew.
 */
export async function startService(
  env: Record<string, string> = {},
  options: { logStream?: DestinationStream; loadDataDir?: Blob } = {},
): Promise<TestService> {
  let databaseUrl: string | null = null
  let store: Store | undefined
  let loadDataDir: Blob | undefined
  if (options.loadDataDir) {
    // An embedded store carried over from a stopped instance (a restart).
    loadDataDir = options.loadDataDir
  } else if (env.DATABASE_URL) {
    // Sharing another service's database (a second instance); the owner drops it.
    databaseUrl = env.DATABASE_URL
  } else {
    // A store of its own, or the one the previous service of this process stood on, set back to the template.
    ;({ store, databaseUrl } = await leaseStore(openTestStore))
  }
  const settings = loadSettings({
    PORT: '0',
    ADMIN_TOKEN,
    CLOCK: 'manual',
    CLOCK_START,
    TRUST_PROXY: '1',
    LOG_LEVEL: 'silent',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...env,
  })
  let service: Service
  try {
    service = await createService(settings, { loadDataDir, inMemory: true, logStream: options.logStream, store })
  } catch (err) {
    await store?.close().catch(() => {})
    throw err
  }
  // PORT 0 (the default) takes a free port; a caller that fixed PUBLIC_URL passes the PORT it names.
  await service.app.listen({ port: settings.port, host: '127.0.0.1' })
  const address = service.app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no address')
  const baseUrl = `http://127.0.0.1:${address.port}`
  // PUBLIC_URL defaults to the configured port; tests read absolute URLs through baseUrl.
  return {
    service,
    baseUrl,
    databaseUrl,
    clock: service.clock as ManualClock,
    close: () => service.close(),
  }
}

/**
 * A fresh store, opened as a service would open it: the embedded store cloned from the migrated
 * template (TEST_PGLITE_TEMPLATE), or a new PostgreSQL database on TEST_DATABASE_URL (a copy of
 * the migrated database TEST_PG_TEMPLATE when set), dropped when the store is done with.
 */
async function openTestStore(): Promise<OpenedStore> {
  const timeouts = { request: TIMEOUTS.pg, jobs: TIMEOUTS.pgJobs, keepAliveInitialDelayMs: TIMEOUTS.pg.keepAliveInitialDelayMs }
  if (STORE === 'postgres') {
    const adminUrl = process.env.TEST_DATABASE_URL
    if (!adminUrl) throw new Error('TEST_STORE=postgres needs TEST_DATABASE_URL')
    const { url, drop } = await createDatabase(adminUrl, undefined, process.env.TEST_PG_TEMPLATE || undefined)
    const openOn = () => openStore({ databaseUrl: url, dataDir: '', timeouts })
    const renew = async (store: Store) => {
      await store.close()
      return openOn()
    }
    try {
      return { store: await openOn(), databaseUrl: url, drop, renew }
    } catch (err) {
      await drop().catch(() => {})
      throw err
    }
  }
  const template = process.env.TEST_PGLITE_TEMPLATE
  const loadDataDir = template ? new Blob([await readFile(template)]) : undefined
  const renew = async (store: Store) => {
    await store.resetSession!()
    return store
  }
  return { store: await openStore({ databaseUrl: null, dataDir: '', loadDataDir, inMemory: true, timeouts }), databaseUrl: null, drop: async () => {}, renew }
}

/**
 * At most this many requests in flight from the test process to one service; a burst (the
 * helpers' `deliver` sends 1000 decisions, then 1000 views) queues in the client and each of
 * these connections carries the next request as soon as its answer is read.
 *
 * Unbounded (global `fetch`), a burst opened one connection per request and left up to a
 * thousand answers waiting for the one event loop that runs both the service and its client.
 * Node's server counts a connection's keep-alive from the moment it writes an answer (5 s
 * advertised, 6 s enforced); undici counts the advertised 5 s less 2 s from the moment it
 * reads it. Under CPU load the read came more than 3 s after the write, so the client sent
 * the next request on a connection the server then closed with that request unread, and the
 * kernel answered it with a reset (ECONNRESET). With a few answers in flight each is read
 * within milliseconds of being written (docs/performance.md, "Test suite").
 */
export const SERVICE_CONNECTIONS = 16
const serviceAgent = new Agent({ connections: SERVICE_CONNECTIONS })

/** `fetch` to a service the test started, through the bounded connections above. */
export function fetchService(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, dispatcher: serviceAgent })
}

/** One raw JSON call to an instance, outside the validating Client (tests that drive several instances). */
export async function callService(svc: TestService, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetchService(svc.baseUrl + path, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null, text }
}
