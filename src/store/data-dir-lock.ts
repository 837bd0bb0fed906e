import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs'
import { resolve } from 'node:path'

/**
 * One process per embedded data directory: two PGlite engines on one
 * directory would each believe they own it and lose each other's writes. The
 * lock is a file holding the owner's pid, created exclusively; a file whose
 * pid no longer runs (the owner was killed with SIGKILL) is stale and taken
 * over, so a crash never blocks a restart.
 */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number,
  ) {
    super(`DATA_DIR ${dataDir} is in use by process ${holderPid}; stop it, or give this instance another DATA_DIR (or a DATABASE_URL)`)
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: it runs, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Takes the lock of `dataDir` (which exists) or throws DataDirLockedError; returns its release. */
export function lockDataDir(dataDir: string): () => void {
  const path = resolve(dataDir, 'instance.lock')
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx')
      writeSync(fd, `${process.pid}\n`)
      closeSync(fd)
      return () => {
        try {
          if (Number(readFileSync(path, 'utf8').trim()) === process.pid) unlinkSync(path)
        } catch {
          // Already gone: nothing to release.
        }
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      let holder = Number.NaN
      try {
        holder = Number(readFileSync(path, 'utf8').trim())
      } catch {
        // Removed between our attempt and this read: try again.
      }
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && running(holder)) throw new DataDirLockedError(resolve(dataDir), holder)
      // Stale (its process is gone) or unreadable: remove it and try once more.
      try {
        unlinkSync(path)
      } catch {
        // Someone else removed it first.
      }
    }
  }
  throw new DataDirLockedError(resolve(dataDir), Number(readFileSync(path, 'utf8').trim()))
}
