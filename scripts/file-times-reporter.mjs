import { performance } from 'node:perf_hooks'

/**
 * A node:test reporter that writes one line per test file, `<wall ms>\t<file>`: from the file's
 * first `test:dequeue` (its process starts) to its last event. Arrival times, not a duration the
 * runner reports, because Node 20 reports one per file and Node 24 does not. scripts/test.ts reads
 * the lines to print the slowest files at the end of a run. Plain JavaScript: the runner loads
 * reporters without the TypeScript loader.
 *
 * @param {AsyncIterable<{ type: string, data?: { file?: string } }>} source
 */
export default async function* fileTimes(source) {
  /** @type {Map<string, { start: number, end: number }>} */
  const files = new Map()
  for await (const event of source) {
    const file = event.data?.file
    if (!file) continue
    const now = performance.now()
    const seen = files.get(file)
    if (seen) seen.end = now
    else if (event.type === 'test:dequeue') files.set(file, { start: now, end: now })
  }
  for (const [file, { start, end }] of files) yield `${Math.round(end - start)}\t${file}\n`
}
