/**
 * A node:test reporter that writes one line per test file, `<duration ms>\t<file>`, when the
 * file's process completes (the runner's `test:complete` for the file itself). scripts/test.ts
 * reads it to print the slowest files at the end of a run. Plain JavaScript: the runner loads
 * reporters without the TypeScript loader.
 *
 * @param {AsyncIterable<{ type: string, data?: { name?: string, file?: string, nesting?: number, details?: { duration_ms?: number } } }>} source
 */
export default async function* fileTimes(source) {
  for await (const event of source) {
    const data = event.data
    if (event.type !== 'test:complete' || !data?.file || data.name !== data.file || data.nesting !== 0) continue
    yield `${Math.round(data.details?.duration_ms ?? 0)}\t${data.file}\n`
  }
}
