// @ts-check
/**
 * Topics from the manifests at the top of a working directory (the terminal's refresher, the
 * editor's workspace folder; never the terminal's invocation). Only the listed manifest files are opened, each only when it is a regular
 * file of at most 256 KiB (a larger or unreadable one counts by its presence alone), and read
 * by small line-wise matchers: coarse by design (no TOML, YAML or Gradle parser; a dependency
 * written in an unusual form is missed, never misread as something worse than a wrong topic).
 * Nothing read leaves this module but topic names from the table.
 *
 * The result is cached per directory in a cache the client keeps where it keeps its state (the
 * terminal: `topics.json` in its state directory; the editor: memory): keyed by an HMAC of the path
 * under a random key kept in that cache (the path is never stored), valid while the manifests'
 * names, sizes and modification times are unchanged and for at most an hour.
 */
import { createHmac, randomBytes } from 'node:crypto'
import { closeSync, constants, fstatSync, openSync, opendirSync, readSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { LANGUAGE_TOPICS, MAX_TOPICS, TABLE_TOPICS, TOPIC_RULES } from './topic-table.js'

/** @typedef {'npm' | 'pypi' | 'go' | 'cargo' | 'gem' | 'maven' | 'image' | 'chart' | 'tf'} Source */
/** @typedef {Record<Source, string[]>} Names */

/** A manifest larger than this is not read (its presence still counts). */
export const MANIFEST_MAX_BYTES = 256 * 1024
/** Directory entries looked at, at most (a huge directory is not listed to the end). */
export const MAX_DIR_ENTRIES = 10_000
/** `*.tf` files read, at most (the first by name). */
export const MAX_TF_FILES = 20
/** A cached result is derived again after this long even when no manifest changed. */
export const TOPICS_TTL_MS = 60 * 60_000
/** Directories kept in the cache, at most (the least recently derived go first). */
export const CACHE_MAX_ENTRIES = 64

/** The manifests looked for by name (plus `*.tf`). */
const MANIFESTS = new Set(['package.json', 'pyproject.toml', 'requirements.txt', 'go.mod', 'Cargo.toml', 'Gemfile', 'pom.xml', 'build.gradle', 'build.gradle.kts', 'Dockerfile', 'Chart.yaml'])

/**
 * The manifests present at the top of `dir` (names only, nothing opened): sorted, `*.tf`
 * files at most MAX_TF_FILES. Empty when the directory cannot be listed.
 * @param {string} dir
 * @returns {string[]}
 */
export function listManifests(dir) {
  /** @type {string[]} */
  const found = []
  /** @type {string[]} */
  const tf = []
  let handle
  try {
    handle = opendirSync(dir)
  } catch {
    return []
  }
  try {
    for (let i = 0; i < MAX_DIR_ENTRIES; i++) {
      const entry = handle.readSync()
      if (!entry) break
      if (!entry.isFile() && !entry.isSymbolicLink()) continue
      if (MANIFESTS.has(entry.name)) found.push(entry.name)
      else if (entry.name.endsWith('.tf') && entry.name.length > 3) tf.push(entry.name)
    }
  } catch {
    // Listed as far as it went.
  } finally {
    try {
      handle.closeSync()
    } catch {
      // Closed already.
    }
  }
  return [...found.sort(), ...tf.sort().slice(0, MAX_TF_FILES)]
}

/**
 * A manifest's text: null unless it is a regular file (a FIFO or device is never waited on)
 * of at most MANIFEST_MAX_BYTES.
 * @param {string} path
 */
export function readManifest(path) {
  let fd
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
  } catch {
    return null
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile() || st.size > MANIFEST_MAX_BYTES) return null
    const buf = Buffer.alloc(st.size)
    let read = 0
    while (read < buf.length) {
      const n = readSync(fd, buf, read, buf.length - read, read)
      if (n === 0) break
      read += n
    }
    return buf.subarray(0, read).toString('utf8')
  } catch {
    return null
  } finally {
    closeSync(fd)
  }
}

/** @returns {Names} */
const emptyNames = () => ({ npm: [], pypi: [], go: [], cargo: [], gem: [], maven: [], image: [], chart: [], tf: [] })

/** PEP 503 normalisation. @param {string} name */
const pypiName = (name) => name.toLowerCase().replace(/[-_.]+/g, '-')

/** The distribution name at the start of a requirement (`Django>=4; python_version>"3"` -> `django`). @param {string} req */
function requirementName(req) {
  const m = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(req)
  return m?.[1] ? pypiName(m[1]) : null
}

/** The quoted strings on a line. @param {string} line */
function quoted(line) {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'/g)].map((m) => m[1] ?? m[2] ?? '')
}

/** The line without its quoted strings (for brackets that are syntax, not text). @param {string} line */
const unquoted = (line) => line.replace(/"[^"]*"|'[^']*'/g, '""')

/** @param {string} text */
const lines = (text) => text.split(/\r?\n/)

/** package.json: the names in `dependencies` and `devDependencies`. @param {string} text @param {Names} out */
export function readPackageJson(text, out) {
  let json
  try {
    json = JSON.parse(text)
  } catch {
    return
  }
  if (json === null || typeof json !== 'object') return
  for (const field of ['dependencies', 'devDependencies']) {
    const deps = json[field]
    if (deps !== null && typeof deps === 'object' && !Array.isArray(deps)) out.npm.push(...Object.keys(deps).map((n) => n.toLowerCase()))
  }
}

/** requirements.txt: one requirement a line; options (`-r`, `-e`, `--index-url`) and comments skipped. @param {string} text @param {Names} out */
export function readRequirements(text, out) {
  for (const raw of lines(text)) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim()
    if (!line || line.startsWith('-')) continue
    const name = requirementName(line)
    if (name) out.pypi.push(name)
  }
}

/**
 * pyproject.toml, line-wise: the requirement strings of `[project] dependencies`,
 * `[project.optional-dependencies]`, `[dependency-groups]` and any `dev-dependencies` array,
 * and the keys of Poetry's dependency tables.
 * @param {string} text @param {Names} out
 */
export function readPyproject(text, out) {
  let section = ''
  let inArray = false
  for (const raw of lines(text)) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim()
    if (inArray) {
      for (const s of quoted(line)) {
        const name = requirementName(s)
        if (name) out.pypi.push(name)
      }
      if (unquoted(line).includes(']')) inArray = false
      continue
    }
    const header = /^\[\[?\s*([^\]]+?)\s*\]\]?$/.exec(line)
    if (header) {
      section = (header[1] ?? '').replace(/["']/g, '').toLowerCase()
      continue
    }
    const kv = /^("[^"]+"|'[^']+'|[A-Za-z0-9_.-]+)\s*=\s*(.*)$/.exec(line)
    if (!kv) continue
    const key = (kv[1] ?? '').replace(/["']/g, '').toLowerCase()
    const value = kv[2] ?? ''
    if (/^tool\.poetry(\.group\.[^.]+)?\.(dev-)?dependencies$/.test(section)) {
      if (key !== 'python') out.pypi.push(pypiName(key))
      continue
    }
    const isList = (section === 'project' && key === 'dependencies') || section === 'project.optional-dependencies' || section === 'dependency-groups' || key === 'dev-dependencies'
    if (!isList || !value.startsWith('[')) continue
    for (const s of quoted(value)) {
      const name = requirementName(s)
      if (name) out.pypi.push(name)
    }
    inArray = !unquoted(value).includes(']')
  }
}

/** go.mod: the module paths required directly (`// indirect` ones skipped). @param {string} text @param {Names} out */
export function readGoMod(text, out) {
  let inBlock = false
  for (const raw of lines(text)) {
    const line = raw.trim()
    if (inBlock) {
      if (line.startsWith(')')) inBlock = false
      else if (line && !line.startsWith('//') && !line.includes('// indirect')) out.go.push((line.split(/\s+/)[0] ?? '').toLowerCase())
      continue
    }
    if (/^require\s*\($/.test(line)) inBlock = true
    else {
      const m = /^require\s+(\S+)\s+\S+/.exec(line)
      if (m?.[1] && !line.includes('// indirect')) out.go.push(m[1].toLowerCase())
    }
  }
}

/** Cargo.toml: the keys of `[dependencies]`, `[dev-dependencies]`, `[build-dependencies]` (also under `workspace.` or `target.….`) and `[dependencies.name]` headers. @param {string} text @param {Names} out */
export function readCargo(text, out) {
  const DEPS = /^(workspace\.|target\..+\.)?(dev-|build-)?dependencies$/
  let inDeps = false
  for (const raw of lines(text)) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim()
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line)
    if (header) {
      const section = (header[1] ?? '').replace(/["']/g, '').toLowerCase()
      inDeps = DEPS.test(section)
      const sub = /^(?:workspace\.|target\..+\.)?(?:dev-|build-)?dependencies\.([A-Za-z0-9_-]+)$/.exec(section)
      if (sub?.[1]) out.cargo.push(sub[1])
      continue
    }
    if (!inDeps) continue
    const m = /^("?)([A-Za-z0-9_-]+)\1\s*=/.exec(line)
    if (m?.[2]) out.cargo.push(m[2].toLowerCase())
  }
}

/** Gemfile: `gem 'name'` lines. @param {string} text @param {Names} out */
export function readGemfile(text, out) {
  for (const raw of lines(text)) {
    const m = /^\s*gem\s*\(?\s*["']([^"']+)["']/.exec(raw)
    if (m?.[1]) out.gem.push(m[1].toLowerCase())
  }
}

/** pom.xml: every `<groupId>` and `<artifactId>`. @param {string} text @param {Names} out */
export function readPom(text, out) {
  for (const m of text.matchAll(/<(groupId|artifactId)>\s*([^<\s]+)\s*<\/\1>/g)) out.maven.push((m[2] ?? '').toLowerCase())
}

/** build.gradle(.kts): `"group:artifact[:version]"` strings and plugin ids. @param {string} text @param {Names} out */
export function readGradle(text, out) {
  for (const m of text.matchAll(/["']([A-Za-z0-9_.-]+):([A-Za-z0-9_.-]+)(?::[^"'\s]*)?["']/g)) out.maven.push((m[1] ?? '').toLowerCase(), (m[2] ?? '').toLowerCase())
  for (const m of text.matchAll(/\bid\s*\(?\s*["']([A-Za-z0-9_.-]+)["']/g)) out.maven.push((m[1] ?? '').toLowerCase())
}

/** Dockerfile: each `FROM` image's last path segment without tag or digest (`ghcr.io/x/python:3.12@sha256:…` -> `python`). @param {string} text @param {Names} out */
export function readDockerfile(text, out) {
  for (const raw of lines(text)) {
    const m = /^\s*FROM\s+(?:--\S+\s+)*(\S+)/i.exec(raw)
    if (!m?.[1]) continue
    const last = (m[1].split('@')[0] ?? '').split('/').pop() ?? ''
    const name = (last.split(':')[0] ?? '').toLowerCase()
    if (name) out.image.push(name)
  }
}

/** Chart.yaml: the `name:` of each entry under the top-level `dependencies:` key. @param {string} text @param {Names} out */
export function readChart(text, out) {
  let inDeps = false
  for (const raw of lines(text)) {
    if (/^[A-Za-z_]/.test(raw)) {
      inDeps = /^dependencies\s*:/.test(raw)
      continue
    }
    if (!inDeps) continue
    const m = /^\s*(?:-\s+)?name\s*:\s*["']?([A-Za-z0-9_.-]+)/.exec(raw)
    if (m?.[1]) out.chart.push(m[1].toLowerCase())
  }
}

/** *.tf: provider names from `provider "x"`, `source = ".../x"` and `resource`/`data` type prefixes. @param {string} text @param {Names} out */
export function readTerraform(text, out) {
  for (const m of text.matchAll(/\bprovider\s+"([A-Za-z0-9_-]+)"/g)) out.tf.push((m[1] ?? '').toLowerCase())
  for (const m of text.matchAll(/\bsource\s*=\s*"([^"]+)"/g)) out.tf.push(((m[1] ?? '').split('/').pop() ?? '').toLowerCase())
  for (const m of text.matchAll(/\b(?:resource|data)\s+"([A-Za-z0-9]+)_/g)) out.tf.push((m[1] ?? '').toLowerCase())
}

/** @type {Record<string, (text: string, out: Names) => void>} */
const READERS = {
  'package.json': readPackageJson,
  'pyproject.toml': readPyproject,
  'requirements.txt': readRequirements,
  'go.mod': readGoMod,
  'Cargo.toml': readCargo,
  Gemfile: readGemfile,
  'pom.xml': readPom,
  'build.gradle': readGradle,
  'build.gradle.kts': readGradle,
  Dockerfile: readDockerfile,
  'Chart.yaml': readChart,
}

/** @typedef {{ exact: Map<string, number[]>, prefix: [string, number][] }} Matcher */
/** @type {Map<Source, Matcher> | null} */
let index = null

/** The table as lookups per source (built once). */
function matchers() {
  if (index) return index
  /** @type {Map<Source, Matcher>} */
  const built = new Map()
  TOPIC_RULES.forEach((rule, at) => {
    for (const source of /** @type {Source[]} */ (['npm', 'pypi', 'go', 'cargo', 'gem', 'maven', 'image', 'chart', 'tf'])) {
      const names = rule[source]
      if (!names) continue
      let m = built.get(source)
      if (!m) built.set(source, (m = { exact: new Map(), prefix: [] }))
      for (const name of names) {
        const n = name.toLowerCase()
        if (n.endsWith('*')) m.prefix.push([n.slice(0, -1), at])
        else m.exact.set(n, [...(m.exact.get(n) ?? []), at])
      }
    }
  })
  index = built
  return built
}

/**
 * The topics for the manifests present (`files`) and the names read from them: in the table's
 * order (the first rule that emitted each), at most MAX_TOPICS, the last place kept for the
 * first language when the others hold none.
 * @param {string[]} files @param {Names} names
 */
export function topicsFrom(files, names) {
  /** @type {Set<number>} */
  const hits = new Set()
  const present = new Set(files.map((f) => (f.endsWith('.tf') ? '*.tf' : f)))
  TOPIC_RULES.forEach((rule, at) => {
    if (rule.files?.some((f) => present.has(f))) hits.add(at)
  })
  for (const [source, m] of matchers()) {
    for (const name of new Set(names[source])) {
      for (const at of m.exact.get(name) ?? []) hits.add(at)
      for (const [prefix, at] of m.prefix) if (name.startsWith(prefix)) hits.add(at)
    }
  }
  /** @type {string[]} */
  const all = []
  for (const at of [...hits].sort((a, b) => a - b)) {
    const topic = TOPIC_RULES[at]?.topic
    if (topic && !all.includes(topic)) all.push(topic)
  }
  const topics = all.slice(0, MAX_TOPICS)
  const language = all.find((t) => LANGUAGE_TOPICS.has(t))
  if (language && !topics.some((t) => LANGUAGE_TOPICS.has(t))) topics[MAX_TOPICS - 1] = language
  return topics
}

/**
 * Reads the manifests at the top of `dir` and maps them to topics.
 * @param {string} dir @param {string[]} [files] the manifests present (listManifests), when known
 */
export function deriveTopics(dir, files = listManifests(dir)) {
  const names = emptyNames()
  for (const file of files) {
    const reader = file.endsWith('.tf') ? readTerraform : READERS[file]
    const text = reader ? readManifest(join(dir, file)) : null
    if (reader && text !== null) reader(text, names)
  }
  return topicsFrom(files, names)
}

/** @typedef {{ sig: string, topics: string[], at: number }} CacheEntry */

/**
 * Where a client keeps the topic cache: `read` answers what `write` was last given (null when
 * nothing or something unreadable is stored); `write` may fail (the topics are derived again).
 * @typedef {{ read(): unknown, write(value: unknown): void }} TopicCache
 */

/** A topic cache in memory (the editor: derived again after a restart). @returns {TopicCache} */
export function memoryTopicCache() {
  /** @type {unknown} */
  let value = null
  return { read: () => value, write: (v) => void (value = v) }
}

/** @param {string} key @param {string} text */
const mac = (key, text) => createHmac('sha256', key).update(text).digest('hex').slice(0, 32)

/** @param {unknown} raw @returns {{ key: string | null, entries: Record<string, CacheEntry> }} */
function parseCache(raw) {
  /** @type {Record<string, CacheEntry>} */
  const entries = {}
  if (raw === null || typeof raw !== 'object') return { key: null, entries }
  const c = /** @type {Record<string, unknown>} */ (raw)
  if (c.v !== 1 || typeof c.key !== 'string' || !/^[0-9a-f]{32,128}$/.test(c.key)) return { key: null, entries }
  if (c.entries !== null && typeof c.entries === 'object') {
    for (const [id, e] of Object.entries(c.entries)) {
      const x = /** @type {Record<string, unknown>} */ (e ?? {})
      if (typeof x.sig === 'string' && typeof x.at === 'number' && Array.isArray(x.topics)) {
        entries[id] = { sig: x.sig, at: x.at, topics: x.topics.filter((t) => typeof t === 'string' && TABLE_TOPICS.has(t)).slice(0, MAX_TOPICS) }
      }
    }
  }
  return { key: c.key, entries }
}

/**
 * The manifests' names, sizes and modification times (a stat each, nothing read).
 * @param {string} dir @param {string[]} files
 */
function signature(dir, files) {
  return files
    .map((f) => {
      try {
        const st = statSync(join(dir, f))
        return `${f}\0${st.size}\0${st.mtimeMs}`
      } catch {
        return `${f}\0-`
      }
    })
    .join('\n')
}

/**
 * The topics of `workspace`, from `store` when the directory's manifests are unchanged and the
 * entry is younger than TOPICS_TTL_MS, else derived and cached.
 * @param {TopicCache} store @param {string} workspace @param {number} now
 * @returns {{ topics: string[], cached: boolean }}
 */
export function topicsFor(store, workspace, now) {
  const files = listManifests(workspace)
  const cache = parseCache(store.read())
  const key = cache.key ?? randomBytes(32).toString('hex')
  const id = mac(key, `dir\0${workspace}`)
  const sig = mac(key, `sig\0${signature(workspace, files)}`)
  const hit = cache.entries[id]
  if (hit && hit.sig === sig && now >= hit.at && now - hit.at <= TOPICS_TTL_MS) return { topics: hit.topics, cached: true }
  const topics = deriveTopics(workspace, files)
  const kept = Object.entries({ ...cache.entries, [id]: { sig, topics, at: now } })
    .sort((a, b) => b[1].at - a[1].at)
    .slice(0, CACHE_MAX_ENTRIES)
  try {
    store.write({ v: 1, key, entries: Object.fromEntries(kept) })
  } catch {
    // Derived again next time.
  }
  return { topics, cached: false }
}
