import { sql } from 'kysely'
import type { Db, Store } from './db.ts'

/**
 * The watermarks of `jobs`; a job the store has never run starts at `now`
 * (a fresh store does not replay the past).
 */
export async function readWatermarks(db: Db, jobs: readonly string[], now: Date): Promise<Map<string, Date>> {
  if (jobs.length === 0) return new Map()
  await db
    .insertInto('job_watermarks')
    .values(jobs.map((job) => ({ job, ran_through: now, updated_at: now })))
    .onConflict((oc) => oc.column('job').doNothing())
    .execute()
  const rows = await db.selectFrom('job_watermarks').select(['job', 'ran_through']).where('job', 'in', jobs).execute()
  return new Map(rows.map((r) => [r.job, r.ran_through]))
}

export async function readWatermark(db: Db, job: string): Promise<Date | null> {
  const row = await db.selectFrom('job_watermarks').select('ran_through').where('job', '=', job).executeTakeFirst()
  return row?.ran_through ?? null
}

/** Moves a watermark forward to `to` (never back: a slower instance cannot undo a faster one). */
export async function advanceWatermark(db: Db, job: string, to: Date, now: Date): Promise<void> {
  await db
    .insertInto('job_watermarks')
    .values({ job, ran_through: to, updated_at: now })
    .onConflict((oc) =>
      oc.column('job').doUpdateSet({ ran_through: sql`greatest(job_watermarks.ran_through, excluded.ran_through)`, updated_at: now }),
    )
    .execute()
}

/** Advisory-lock class of scheduled jobs (the second key is the job name's hash). */
const JOB_LOCK_CLASS = 19

/**
 * Runs `work` holding the job's lock across every instance on the store;
 * with `wait` false, returns null at once when another instance holds it.
 * On PostgreSQL this is a session advisory lock on a connection of its own
 * (released by the server if the process dies, so a crash never leaves a
 * job locked); `work` runs its queries on the other pool connections. The
 * embedded store belongs to one process, whose scheduler already runs one
 * job at a time, so it needs no lock (and its pool of one could not lend a
 * connection to hold one).
 */
export async function withJobLock<T>(store: Store, job: string, wait: boolean, work: () => Promise<T>): Promise<{ value: T } | null> {
  if (store.kind === 'embedded') return { value: await work() }
  return store.jobsDb.connection().execute(async (conn) => {
    if (wait) {
      await sql`select pg_advisory_lock(${JOB_LOCK_CLASS}, hashtext(${job}))`.execute(conn)
    } else {
      const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(${JOB_LOCK_CLASS}, hashtext(${job})) as locked`.execute(conn)
      if (!rows[0]?.locked) return null
    }
    try {
      return { value: await work() }
    } finally {
      await sql`select pg_advisory_unlock(${JOB_LOCK_CLASS}, hashtext(${job}))`.execute(conn)
    }
  })
}

/** Every stored watermark, with when it last moved (service clock); read only (unlike readWatermarks, nothing is inserted). */
export async function listWatermarks(db: Db): Promise<{ job: string; ran_through: Date; updated_at: Date }[]> {
  return db.selectFrom('job_watermarks').select(['job', 'ran_through', 'updated_at']).orderBy('job').execute()
}
