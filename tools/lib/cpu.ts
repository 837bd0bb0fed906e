/**
 * CPU time from /proc (Linux; the readers answer null or nothing elsewhere):
 * per process, per process family, for the whole machine.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import os from 'node:os'

/** Clock ticks per second of /proc's utime and stime. */
const HZ = 100

export interface ProcStat {
  /** The command name (`postgres`, `node`, …). */
  comm: string
  ppid: number
  /** User + system CPU seconds. */
  cpuSeconds: number
}

/** /proc/<pid>/stat, or null when the process is gone (or there is no /proc). */
export function readProcStat(pid: number | string): ProcStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const close = text.lastIndexOf(')')
    // fields[0] is field 3 (state), fields[1] the parent pid; utime and stime are fields[11] and fields[12].
    const fields = text.slice(close + 2).split(' ')
    return { comm: text.slice(text.indexOf('(') + 1, close), ppid: Number(fields[1]), cpuSeconds: (Number(fields[11]) + Number(fields[12])) / HZ }
  } catch {
    return null
  }
}

/** CPU seconds (user + system) a process has used; null without a pid or a readable /proc. */
export function processCpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null
  return readProcStat(pid)?.cpuSeconds ?? null
}

function pids(): string[] {
  try {
    return readdirSync('/proc').filter((e) => /^\d+$/.test(e))
  } catch {
    return []
  }
}

/** CPU seconds of `parent` and each of its children, by pid (empty without /proc); for pid 2 (kthreadd) also their sum under key 2. */
export function childrenCpuSeconds(parent: number): Map<number, number> {
  const out = new Map<number, number>()
  let sum = 0
  for (const e of pids()) {
    const stat = readProcStat(e)
    if (stat === null) continue // gone meanwhile
    if (stat.ppid === parent || e === String(parent)) {
      out.set(Number(e), stat.cpuSeconds)
      sum += stat.cpuSeconds
    }
  }
  if (parent === 2) out.set(2, sum)
  return out
}

/** CPU used between two readings of a process family; processes born in between count from zero. */
export function familyDelta(start: Map<number, number>, end: Map<number, number>): number {
  let d = 0
  for (const [pid, cpu] of end) d += cpu - (start.get(pid) ?? 0)
  return d
}

/** CPU seconds of every process, keyed by pid, with the command name. */
export function everyProcessCpu(): Map<number, { comm: string; s: number }> {
  const out = new Map<number, { comm: string; s: number }>()
  if (!existsSync('/proc/self/stat')) return out
  for (const d of pids()) {
    const stat = readProcStat(d)
    // null: the process ended between readdir and read.
    if (stat !== null) out.set(Number(d), { comm: stat.comm, s: stat.cpuSeconds })
  }
  return out
}

/** The machine's busy and total CPU time so far, all cores (os.cpus() units, ms). */
export function machineCpu(): { busy: number; total: number } {
  let busy = 0
  let total = 0
  for (const c of os.cpus()) {
    const t = c.times.user + c.times.nice + c.times.sys + c.times.irq + c.times.idle
    total += t
    busy += t - c.times.idle
  }
  return { busy, total }
}
