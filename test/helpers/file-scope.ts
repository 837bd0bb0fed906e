/**
 * The helpers' counters that number things within one test file (private countries, delivery
 * runs, client addresses). Test files share processes (scripts/test.ts), so the counters would
 * run on from the previous file: the group file calls `startOfFile` before each file's tests, and
 * every file sees the sequence start where it would in a process of its own.
 */
export const perFile = { country: 0, delivery: 0, ip: 0 }

export function startOfFile(): void {
  perFile.country = 0
  perFile.delivery = 0
  perFile.ip = 0
}
