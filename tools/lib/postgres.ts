/** Databases of their own for the tools, on a PostgreSQL server given by its admin URL. */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { readProcStat } from './cpu.ts'

export interface ScratchDatabase {
  name: string
  url: string
  /** Drops it (once; later calls do nothing). */
  drop(): Promise<void>
}

async function withClient<T>(url: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try {
    return await work(c)
  } finally {
    await c.end()
  }
}

/** Creates `<prefix>_<random>` on the server of `adminUrl`. */
export async function createDatabase(adminUrl: string, prefix: string): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`
  await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${name}`))
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  let dropped = false
  return {
    name,
    url: url.toString(),
    async drop() {
      if (dropped) return
      dropped = true
      await withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
    },
  }
}

/** The postmaster's pid when PostgreSQL runs on this machine (the parent of any backend), else null. */
export async function postmasterPid(adminUrl: string): Promise<number | null> {
  return withClient(adminUrl, async (c) => {
    try {
      const r = await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')
      return readProcStat(r.rows[0]!.pid)?.ppid ?? null
    } catch {
      return null
    }
  })
}
