/**
 * npm test: every test file of the suite on the embedded store, then, when
 * TEST_DATABASE_URL is set, every test file again on that PostgreSQL (each
 * test file creates and drops its own database). Ends with the slowest files
 * and one summary line.
 *
 * The core files share processes: each of a few processes imports its share of
 * the files, one after another, each inside a `describe` named by its path.
 * node:test gives a file imported there its own scope (its top-level tests and
 * hooks belong to that describe), so every file still starts and closes its own
 * services; what a process pays once instead of once per file is Node, tsx and
 * the app's module graph (about 5 s of CPU), and its services stand on one
 * store, set back to the migrated template for each (test/helpers/store-reuse.ts;
 * docs/test-suite-speed.md). The long suites (browsers, child
 * processes under faults) keep one process per file.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { isAbsolute, join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'
import pg from 'pg'
import { openStore } from '../src/store/db.ts'

const root = new URL('..', import.meta.url).pathname
const tmp = join(root, '.tmp')
mkdirSync(tmp, { recursive: true })

/**
 * The long suites: real browsers, services started as child processes under
 * faults and crashes, schema-guided fuzzing, property runs over random
 * schedules. `npm test` runs the rest (the core suite), `npm run test:long`
 * these, `npm run test:all` both; CI runs both.
 */
const LONG_SUITES = ['test/browser/', 'test/faults/', 'test/durability/', 'test/fuzz/', 'test/property/', 'packages/status-line/test/long/', 'packages/cli/test/long/', 'packages/vscode-extension/test/long/']

const args = process.argv.slice(2)
const suite = args.includes('--long') ? 'long' : args.includes('--all') ? 'all' : 'core'
const only = args.filter((a) => !a.startsWith('--'))
const isLong = (f: string) => LONG_SUITES.some((dir) => f.startsWith(dir))
/** The workspaces' own tests (packages/<name>/test), beside the service's (test/). */
const packageTests = () =>
  readdirSync(join(root, 'packages'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(root, 'packages', d.name, 'test')))
    .flatMap((d) => readdirSync(join(root, 'packages', d.name, 'test'), { recursive: true }).map((f) => join('packages', d.name, 'test', String(f))))
const files = (only.length > 0 ? only.map((f) => (f.startsWith('test/') || f.startsWith('packages/') ? f : join('test', f))) : [...readdirSync(join(root, 'test'), { recursive: true }).map((f) => join('test', String(f))), ...packageTests()])
  .filter((f) => f.endsWith('.test.ts'))
  .filter((f) => only.length > 0 || suite === 'all' || (suite === 'long') === isLong(f))
  .sort()

/** What identifies a migrated store: a hash of the migration files. */
function migrationsHash(): string {
  const dir = join(root, 'src/store/migrations')
  const hash = createHash('sha256')
  for (const f of readdirSync(dir).sort()) hash.update(f).update(readFileSync(join(dir, f)))
  return hash.digest('hex').slice(0, 12)
}

/** A migrated embedded database, dumped once per migration set; each test file starts from a copy. */
async function pgliteTemplate(): Promise<string> {
  const path = join(tmp, `pglite-template-${migrationsHash()}.tgz`)
  if (!existsSync(path)) {
    const store = await openStore({ databaseUrl: null, dataDir: '', inMemory: true })
    writeFileSync(path, Buffer.from(await (await store.dump!()).arrayBuffer()))
    await store.close()
  }
  return path
}

/**
 * A migrated PostgreSQL database on TEST_DATABASE_URL's server, made once per migration set
 * (kept, like the embedded dump); each service a test starts gets `CREATE DATABASE … TEMPLATE`
 * of it instead of running every migration. Built under a temporary name and renamed, so a
 * run beside this one (another checkout, the same server) never copies a half-migrated one.
 */
async function postgresTemplate(adminUrl: string): Promise<string> {
  const name = `adapi_template_${migrationsHash()}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    if ((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount) return name
    const building = `${name}_${process.pid}`
    await admin.query(`CREATE DATABASE ${building}`)
    const url = new URL(adminUrl)
    url.pathname = `/${building}`
    const store = await openStore({ databaseUrl: url.toString(), dataDir: '' })
    await store.close()
    // The closed store's sessions may still be ending on the server: the rename waits for them.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`)
        return name
      } catch (err) {
        if ((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount) {
          // Another run made it first.
          await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`)
          return name
        }
        if (attempt >= 50) throw err
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
  } finally {
    await admin.end()
  }
}

/** `<ms>\t<file>` lines (scripts/file-times-reporter.mjs) as file (relative to the root) → ms; its `# ` summary lines are skipped. */
function readTimes(path: string): Map<string, number> {
  const times = new Map<string, number>()
  for (const line of (existsSync(path) ? readFileSync(path, 'utf8') : '').split('\n').filter((l) => l !== '' && !l.startsWith('# '))) {
    const [ms, file] = line.split('\t')
    times.set(isAbsolute(file!) ? relative(root, file!) : file!, Number(ms))
  }
  return times
}

/**
 * How many processes share the core files: a few per core, so one slow process does not leave a
 * core idle (TEST_PROCESSES sets another number: 1 runs the files given in one process, in turn).
 */
const CORE_PROCESSES = Number(process.env.TEST_PROCESSES) || 6

/**
 * The core files dealt into CORE_PROCESSES group files (longest first, each to the group with the
 * least time so far, by the times of the previous run on this store; a file not timed yet counts as
 * the median). Each group file imports its files in turn, each inside a describe named by its path.
 */
function groupFiles(store: string, core: string[]): string[] {
  if (core.length === 0) return []
  const known = readTimes(join(tmp, `file-times-${store}.tsv`))
  const sorted = [...known.values()].sort((a, b) => a - b)
  const median = sorted[Math.floor(sorted.length / 2)] ?? 1
  const groups = Array.from({ length: Math.min(CORE_PROCESSES, core.length) }, () => ({ ms: 0, files: [] as string[] }))
  for (const file of [...core].sort((a, b) => (known.get(b) ?? median) - (known.get(a) ?? median) || a.localeCompare(b))) {
    const lightest = groups.reduce((min, g) => (g.ms < min.ms ? g : min))
    lightest.ms += known.get(file) ?? median
    lightest.files.push(file)
  }
  const dir = join(tmp, 'test-groups')
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  return groups.map((g, i) => {
    const path = join(dir, `${store}-${i + 1}.test.mjs`)
    const lines = g.files
      .sort()
      .map((f) => `describe(${JSON.stringify(f)}, async () => { before(startOfFile); await import(${JSON.stringify(pathToFileURL(join(root, f)).href)}) })`)
    writeFileSync(
      path,
      [
        '// Written by scripts/test.ts: one process for these test files, each in its own scope.',
        "import { before, describe } from 'node:test'",
        `import { startOfFile } from ${JSON.stringify(pathToFileURL(join(root, 'test/helpers/file-scope.ts')).href)}`,
        `import { reuseStores } from ${JSON.stringify(pathToFileURL(join(root, 'test/helpers/store-reuse.ts')).href)}`,
        '// Services started one after another stand on one store, set back to the template each time.',
        'reuseStores()',
        ...lines,
        '',
      ].join('\n'),
    )
    return path
  })
}

interface FileTime {
  store: string
  file: string
  ms: number
}

function run(store: 'embedded' | 'postgres', env: Record<string, string>): { pass: number; fail: number; times: FileTime[] } {
  console.log(`\n=== ${files.length} test files on the ${store} store ===`)
  // Core groups three at a time: a group waiting on a real-time bound (a webhook timeout, a reload
  // interval) leaves its core to another. The long suites two at a time: browsers and child services
  // under faults measure real latency, which a third process would disturb.
  const grouped = [...groupFiles(store, files.filter((f) => !isLong(f))), ...files.filter(isLong)]
  // This run's times, then merged into the times kept across runs (a run of a few files keeps the rest).
  const runTimesFile = join(tmp, `file-times-${store}.run.tsv`)
  const timesFile = join(tmp, `file-times-${store}.tsv`)
  rmSync(runTimesFile, { force: true })
  const result = spawnSync(
    process.execPath,
    [
      '--import', 'tsx',
      '--test',
      `--test-concurrency=${files.some(isLong) ? 2 : 3}`,
      // Two reporters, no more: a third makes Node warn (MaxListenersExceededWarning) on every run.
      '--test-reporter=spec', '--test-reporter-destination=stdout',
      `--test-reporter=${join(root, 'scripts/file-times-reporter.mjs')}`, `--test-reporter-destination=${runTimesFile}`,
      ...grouped,
    ],
    { stdio: 'inherit', env: { ...process.env, ...env, TEST_STORE: store } },
  )
  // The run's own summary, written last by the times reporter.
  const text = existsSync(runTimesFile) ? readFileSync(runTimesFile, 'utf8') : ''
  const count = (name: string) => Number([...text.matchAll(new RegExp(`^# ${name} (\\d+)$`, 'gm'))].at(-1)?.[1] ?? 0)
  const pass = count('pass')
  const fail = count('fail') + (result.status !== 0 && count('fail') === 0 ? 1 : 0)
  console.log(`${store}: ${pass} passed, ${fail} failed`)
  const ran = readTimes(runTimesFile)
  const kept = new Map([...readTimes(timesFile), ...ran])
  writeFileSync(timesFile, [...kept].map(([file, ms]) => `${ms}\t${file}\n`).join(''))
  const times = [...ran].map(([file, ms]) => ({ store, file, ms }))
  return { pass, fail, times }
}

/**
 * The workspaces with a build (the SDK, and adctl on top of it, by project references) are brought
 * up to date by `tsc -b` (which skips what is current), so the CLI tests run the code in the tree.
 */
function buildPackages(): void {
  const built = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-b', join(root, 'packages/cli/tsconfig.build.json')], { stdio: 'inherit' })
  if (built.status !== 0) process.exit(1)
}
if (files.some((f) => f.startsWith('packages/'))) buildPackages()

const results = [run('embedded', { TEST_PGLITE_TEMPLATE: await pgliteTemplate() })]
if (process.env.TEST_DATABASE_URL) results.push(run('postgres', { TEST_PG_TEMPLATE: await postgresTemplate(process.env.TEST_DATABASE_URL) }))
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
