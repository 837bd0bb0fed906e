import { performance } from 'node:perf_hooks'

/**
 * A node:test reporter that writes one line per test file, `<wall ms>\t<file>`; scripts/test.ts
 * reads the lines to print the slowest files at the end of a run and to share the next run's files
 * out evenly between its processes.
 * - A file run in a process shared with others (scripts/test.ts's group files) is a top-level
 *   describe named by its path: its line is that describe's duration.
 * - A file in a process of its own: from its first `test:dequeue` (its process starts) to its last
 *   event. Arrival times, not a duration the runner reports, because Node 20 reports one per file
 *   and Node 24 does not.
 * - Last, the run's own summary counts as `# pass <n>` and `# fail <n>` (the runner's closing
 *   diagnostics, which name no file): scripts/test.ts counts the run by them. A TAP reporter beside
 *   this one and the spec reporter used to give those counts, but Node adds about four `end`
 *   listeners to its one event stream per reporter, and a third reporter passes the default limit
 *   of ten (MaxListenersExceededWarning on every run; nodejs/node#57605).
 * Plain JavaScript: the runner loads reporters without the TypeScript loader.
 *
 * @param {AsyncIterable<{ type: string, data?: { file?: string, name?: string, nesting?: number, message?: string, details?: { duration_ms?: number } } }>} source
 */
export default async function* fileTimes(source) {
  /** @type {Map<string, { start: number, end: number }>} */
  const files = new Map()
  /** @type {Map<string, number>} */
  const summary = new Map()
  for await (const event of source) {
    const { file, name, nesting, message, details } = event.data ?? {}
    if (event.type === 'test:diagnostic' && !file && nesting === 0) {
      const count = /^(pass|fail) (\d+)$/.exec(message ?? '')
      if (count) summary.set(count[1], Number(count[2]))
    }
    if (!file) continue
    if (file.includes('/test-groups/')) {
      if ((event.type === 'test:pass' || event.type === 'test:fail') && nesting === 0 && name !== file && details?.duration_ms !== undefined) {
        yield `${Math.round(details.duration_ms)}\t${name}\n`
      }
      continue
    }
    const now = performance.now()
    const seen = files.get(file)
    if (seen) seen.end = now
    else if (event.type === 'test:dequeue' && nesting === 0 && name === file) files.set(file, { start: now, end: now })
  }
  for (const [file, { start, end }] of files) yield `${Math.round(end - start)}\t${file}\n`
  for (const [name, n] of summary) yield `# ${name} ${n}\n`
}
