/**
 * What the serving benchmark reads from /proc (Linux; elsewhere the readers
 * answer null): CPU seconds of a process (all its threads), of PostgreSQL's
 * processes split by whom they work for, of the kernel's threads and of the
 * machine; a process's resident memory and its peak.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { childrenCpuSeconds, machineCpu, readProcStat } from '../../tools/lib/cpu.ts'

/**
 * CPU seconds (user + system) of a process: /proc/<pid>/stat of a thread-group
 * leader sums every thread, live or ended (worker threads, libuv's pool, V8's
 * GC helpers), so an embedded store moved to a worker thread is still counted.
 */
export function processCpuSeconds(pid: number | undefined): number | null {
  return pid === undefined ? null : (readProcStat(pid)?.cpuSeconds ?? null)
}

/** Whom a PostgreSQL process works for, from its process title. */
export type PgRole = 'bench' | 'foreign' | 'aux'

/** One reading of the postmaster's family: pid → role and CPU seconds. */
export type PgReading = Map<number, { role: PgRole; s: number }>

/** PostgreSQL CPU seconds between two readings, by role. */
export interface PgCpu {
  /** Client backends connected to the bench's own database. */
  bench: number
  /** The postmaster and its auxiliary processes (WAL writer, checkpointer, background writer, autovacuum…): shared, charged to the bench. */
  aux: number
  /** Client backends of other databases (other work on the shared server): reported, never charged. */
  foreign: number
}

/** `postgres: [cluster: ]user database host(port) activity`: a client backend; anything else is the postmaster or an auxiliary process. */
const CLIENT_TITLE = /^postgres: (?:\S+: )?\S+ (\S+) (?:\S+\(\d+\)|\[local\])/

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')
  } catch {
    return ''
  }
}

/**
 * The postmaster and its children with their CPU seconds, each classed by its
 * process title (PostgreSQL's default update_process_title = on). Processes that
 * end between two readings lose their CPU since the first (none of the bench's:
 * the service keeps a pool).
 */
export function readPostgres(postmaster: number, database: string): PgReading {
  const out: PgReading = new Map()
  for (const [pid, s] of childrenCpuSeconds(postmaster)) {
    const m = pid === postmaster ? null : CLIENT_TITLE.exec(cmdline(pid))
    out.set(pid, { role: m === null ? 'aux' : m[1] === database ? 'bench' : 'foreign', s })
  }
  return out
}

export function pgDelta(start: PgReading, end: PgReading): PgCpu {
  const d: PgCpu = { bench: 0, aux: 0, foreign: 0 }
  for (const [pid, e] of end) d[e.role] += e.s - (start.get(pid)?.s ?? 0)
  return d
}

/** CPU seconds of the kernel's threads (children of kthreadd, pid 2). */
export function kernelCpuSeconds(): number {
  return childrenCpuSeconds(2).get(2) ?? 0
}

export { machineCpu }

/** Resident memory of a process in MB: now (VmRSS) and its peak (VmHWM); null when unreadable. */
export function readMemory(pid: number | undefined): { rssMB: number; peakMB: number } | null {
  if (pid === undefined) return null
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
    const rss = kb('VmRSS')
    const peak = kb('VmHWM')
    if (!Number.isFinite(rss) || !Number.isFinite(peak)) return null
    return { rssMB: Math.round(rss / 102.4) / 10, peakMB: Math.round(peak / 102.4) / 10 }
  } catch {
    return null
  }
}

/** Resets a process's peak RSS (VmHWM) to its current RSS (`5` to /proc/<pid>/clear_refs, Linux ≥ 4.0); false when refused. */
export function resetPeakMemory(pid: number | undefined): boolean {
  if (pid === undefined) return false
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5')
    return true
  } catch {
    return false
  }
}

/**
 * PostgreSQL's current WAL position in bytes (`pg_current_wal_lsn() - '0/0'`), read through psql
 * at a window's edges (a synchronous read, outside the bench database: it charges no backend of
 * the bench). The position is the cluster's: other databases' writes in the window count too
 * (the bench notes how busy the machine was).
 */
export function readWalBytes(url: string): number | null {
  try {
    const out = execFileSync('psql', [url, '-Atqc', "SELECT pg_current_wal_lsn() - '0/0'"], { encoding: 'utf8', timeout: 5_000, stdio: ['ignore', 'pipe', 'ignore'] })
    const n = Number(out.trim())
    return Number.isFinite(n) ? n : null
  } catch {
    return null
  }
}
