import { sql } from 'kysely'
import pg from 'pg'
import type { Db } from './db.ts'

/**
 * Wake-up signals between instances sharing one PostgreSQL (ROLE=web asks,
 * ROLE=worker runs): a NOTIFY on one channel whose payload is the job name.
 * A signal nobody hears is lost, which only delays the job to its next
 * scheduled tick, so nothing is stored.
 */
const CHANNEL = 'adapi_job_wake'
const RECONNECT_MS = 5_000

export async function signalJob(db: Db, job: string): Promise<void> {
  await sql`select pg_notify(${CHANNEL}, ${job})`.execute(db)
}

/**
 * Calls `onSignal(job)` for every signal, on a connection of its own (LISTEN
 * holds a session); a dropped connection is reopened after five seconds.
 * Resolves once listening; the returned function stops it.
 */
export async function listenForJobSignals(
  databaseUrl: string,
  onSignal: (job: string) => void,
  onError: (err: unknown) => void,
): Promise<() => Promise<void>> {
  let client: pg.Client | null = null
  let retry: NodeJS.Timeout | null = null
  let stopped = false

  const reconnectLater = () => {
    if (stopped || retry) return
    retry = setTimeout(() => {
      retry = null
      connect().catch((err: unknown) => {
        onError(err)
        reconnectLater()
      })
    }, RECONNECT_MS)
    retry.unref()
  }

  async function connect(): Promise<void> {
    const c = new pg.Client({ connectionString: databaseUrl })
    c.on('notification', (msg) => {
      if (msg.channel === CHANNEL && msg.payload) onSignal(msg.payload)
    })
    c.on('error', (err) => {
      // Only an established listener reconnects; a failed connect is reported by its caller.
      if (client !== c) return
      onError(err)
      client = null
      c.end().catch(() => {})
      reconnectLater()
    })
    try {
      await c.connect()
      await c.query(`LISTEN ${CHANNEL}`)
    } catch (err) {
      c.end().catch(() => {})
      throw err
    }
    if (stopped) {
      await c.end()
      return
    }
    client = c
  }

  await connect()
  return async () => {
    stopped = true
    if (retry) clearTimeout(retry)
    const c = client
    client = null
    await c?.end()
  }
}
