/**
 * npm test: every test file of the suite on the embedded store, then, when
 * TEST_DATABASE_URL is set, every test file again on that PostgreSQL (each
 * test file creates and drops its own database). Ends with one summary line.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { openStore } from '../src/store/db.ts'

const root = new URL('..', import.meta.url).pathname
const tmp = join(root, '.tmp')
mkdirSync(tmp, { recursive: true })

/**
 * The long suites: real browsers, services started as child processes under
 * faults and crashes, schema-guided fuzzing. `npm test` runs the rest (the
 * core suite), `npm run test:long` these, `npm run test:all` both; CI runs both.
 */
const LONG_SUITES = ['test/browser/', 'test/faults/', 'test/durability/', 'test/fuzz/']

const args = process.argv.slice(2)
const suite = args.includes('--long') ? 'long' : args.includes('--all') ? 'all' : 'core'
const only = args.filter((a) => !a.startsWith('--'))
const isLong = (f: string) => LONG_SUITES.some((dir) => f.startsWith(dir))
const files = (only.length > 0 ? only : readdirSync(join(root, 'test'), { recursive: true }).map(String))
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => (f.startsWith('test/') ? f : join('test', f)))
  .filter((f) => only.length > 0 || suite === 'all' || (suite === 'long') === isLong(f))
  .sort()

/** A migrated embedded database, dumped once per migration set; each test file starts from a copy. */
async function pgliteTemplate(): Promise<string> {
  const dir = join(root, 'src/store/migrations')
  const hash = createHash('sha256')
  for (const f of readdirSync(dir).sort()) hash.update(f).update(readFileSync(join(dir, f)))
  const path = join(tmp, `pglite-template-${hash.digest('hex').slice(0, 12)}.tgz`)
  if (!existsSync(path)) {
    const store = await openStore({ databaseUrl: null, dataDir: '', inMemory: true })
    writeFileSync(path, Buffer.from(await (await store.dump!()).arrayBuffer()))
    await store.close()
  }
  return path
}

interface FileTime {
  store: string
  file: string
  ms: number
}

function run(store: 'embedded' | 'postgres', env: Record<string, string>): { pass: number; fail: number; times: FileTime[] } {
  console.log(`\n=== ${files.length} test files on the ${store} store ===`)
  const tap = join(tmp, `results-${store}.tap`)
  const timesFile = join(tmp, `file-times-${store}.tsv`)
  const result = spawnSync(
    process.execPath,
    [
      '--import', 'tsx',
      '--test',
      '--test-concurrency=2',
      '--test-reporter=spec', '--test-reporter-destination=stdout',
      '--test-reporter=tap', `--test-reporter-destination=${tap}`,
      `--test-reporter=${join(root, 'scripts/file-times-reporter.mjs')}`, `--test-reporter-destination=${timesFile}`,
      ...files,
    ],
    { stdio: 'inherit', env: { ...process.env, ...env, TEST_STORE: store } },
  )
  const text = existsSync(tap) ? readFileSync(tap, 'utf8') : ''
  const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0)
  const pass = count('pass')
  const fail = count('fail') + (result.status !== 0 && count('fail') === 0 ? 1 : 0)
  console.log(`${store}: ${pass} passed, ${fail} failed`)
  const times = (existsSync(timesFile) ? readFileSync(timesFile, 'utf8') : '')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [ms, file] = line.split('\t')
      return { store, file: relative(root, file!), ms: Number(ms) }
    })
  return { pass, fail, times }
}

const results = [run('embedded', { TEST_PGLITE_TEMPLATE: await pgliteTemplate() })]
if (process.env.TEST_DATABASE_URL) results.push(run('postgres', {}))
else console.log('\nTEST_DATABASE_URL is not set: skipping the PostgreSQL run.')

const slowest = results.flatMap((r) => r.times).sort((a, b) => b.ms - a.ms).slice(0, 10)
if (slowest.length > 0) {
  console.log('\nslowest test files (wall time):')
  for (const t of slowest) console.log(`${(t.ms / 1000).toFixed(1).padStart(7)} s  ${t.store.padEnd(8)}  ${t.file}`)
}

const pass = results.reduce((n, r) => n + r.pass, 0)
const fail = results.reduce((n, r) => n + r.fail, 0)
console.log(`\ntotal: ${pass} passed, ${fail} failed`)
process.exit(fail > 0 || pass === 0 ? 1 : 0)
