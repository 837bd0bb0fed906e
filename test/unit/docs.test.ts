import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { test } from 'node:test'
import { loadSettings } from '../../src/platform/env.ts'

/**
 * The docs a newcomer meets first stay true to their shape (issue 52): the README is a quick start
 * that keeps CI's test command, every page is on the map of docs/README.md, every relative link
 * leads somewhere, and every setting the service reads is in docs/configuration.md.
 */
const root = new URL('../..', import.meta.url).pathname
const read = (path: string) => readFileSync(join(root, path), 'utf8')
const pages = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md'))

test('the README is a quick start of at most 120 lines that keeps the test command CI runs', () => {
  const readme = read('README.md')
  const lines = readme.split('\n').length
  assert.ok(lines <= 120, `README.md has ${lines} lines; move the detail to a docs/ page`)
  assert.match(readme, /```sh\nnpm test\n```/, 'the README shows `npm test` in a sh block')
  assert.match(readme, /npm install && npm start/)
  assert.match(readme, /\(docs\/README\.md\)/, 'the README links the docs map')
})

test('docs/README.md lists every docs page and every package README', () => {
  const map = read('docs/README.md')
  const packages = readdirSync(join(root, 'packages')).filter((p) => existsSync(join(root, 'packages', p, 'README.md')))
  const missing = [
    ...pages.filter((p) => p !== 'README.md' && !map.includes(`](${p})`)),
    ...packages.map((p) => `../packages/${p}/README.md`).filter((p) => !map.includes(`](${p})`)),
    ...(map.includes('](decisions/README.md)') ? [] : ['decisions/README.md']),
  ]
  assert.deepEqual(missing, [], 'pages missing from the map in docs/README.md')
})

test('every relative link of the README and the docs pages leads to a file', () => {
  const broken: string[] = []
  for (const file of ['README.md', ...pages.map((p) => `docs/${p}`)]) {
    for (const [, target] of read(file).matchAll(/\]\(([^)#\s]+)(?:#[^)\s]*)?\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue
      if (!existsSync(join(root, normalize(join(dirname(file), target!))))) broken.push(`${file} → ${target}`)
    }
  }
  assert.deepEqual(broken, [])
})

test('docs/configuration.md names every setting the service reads', () => {
  const names = new Set<string>()
  const env = new Proxy<NodeJS.ProcessEnv>({}, {
    get(_target, name) {
      if (typeof name === 'string') names.add(name)
      return undefined
    },
  })
  loadSettings(env)
  assert.ok(names.has('DATABASE_URL') && names.has('KEY_SEALING_KEY'), `the settings read: ${[...names].join(', ')}`)
  const doc = read('docs/configuration.md')
  const undocumented = [...names].filter((name) => !doc.includes(`\`${name}\``))
  assert.deepEqual(undocumented, [], 'settings missing from docs/configuration.md')
})
