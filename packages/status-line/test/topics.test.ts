/** The terminal's topic cache: topics.json in the state directory (the derivation is ad-client's, tested there). */
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { CACHE_MAX_ENTRIES, TOPICS_TTL_MS } from '@thinking-line/ad-client/topics'
import { cachePath, topicsFor } from '../src/topics.js'

/** A fixture repository in a temporary directory: file name -> content. */
function project(files: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'thinking-line-project-'))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}
const stateDir = () => mkdtempSync(join(tmpdir(), 'thinking-line-'))

test('the cache: per directory under an HMAC of the path, kept while the manifests are unchanged, derived again after a change or the TTL', () => {
  const state = stateDir()
  const dir = project({ 'package.json': JSON.stringify({ dependencies: { react: '18.3.1' } }) })
  const now = 1_800_000_000_000
  assert.deepEqual(topicsFor(state, dir, now), { topics: ['react', 'javascript'], cached: false })
  assert.deepEqual(topicsFor(state, dir, now + 1_000), { topics: ['react', 'javascript'], cached: true })
  const stored = readFileSync(cachePath(state), 'utf8')
  for (const secret of [dir, 'thinking-line-project', 'package.json', '18.3.1']) assert.ok(!stored.includes(secret), secret)
  // A manifest changed (content and modification time): derived again.
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ dependencies: { vue: '3' } }))
  utimesSync(join(dir, 'package.json'), new Date(now), new Date(now + 5_000))
  assert.deepEqual(topicsFor(state, dir, now + 2_000), { topics: ['vue', 'javascript'], cached: false })
  assert.equal(topicsFor(state, dir, now + 3_000).cached, true)
  // A manifest added: derived again.
  writeFileSync(join(dir, 'Dockerfile'), 'FROM node:20\n')
  assert.deepEqual(topicsFor(state, dir, now + 4_000), { topics: ['vue', 'docker', 'nodejs', 'javascript'], cached: false })
  // Past the TTL: derived again even though nothing changed.
  assert.equal(topicsFor(state, dir, now + 4_001 + TOPICS_TTL_MS).cached, false)
  // Another directory has its own entry.
  assert.deepEqual(topicsFor(state, project({ 'go.mod': 'module x\n' }), now), { topics: ['go'], cached: false })
  assert.equal(topicsFor(state, dir, now + 5_000 + TOPICS_TTL_MS).cached, true)
})

test('the cache keeps the most recent directories only, and a tampered entry yields nothing outside the table', () => {
  const state = stateDir()
  const now = 1_800_000_000_000
  for (let i = 0; i < CACHE_MAX_ENTRIES + 6; i++) topicsFor(state, project({}), now + i)
  type Cache = { key: string; entries: Record<string, { sig: string; topics: string[]; at: number }> }
  const read = () => JSON.parse(readFileSync(cachePath(state), 'utf8')) as Cache
  assert.equal(Object.keys(read().entries).length, CACHE_MAX_ENTRIES)
  const dir = project({ 'package.json': '{}' })
  topicsFor(state, dir, now + 100)
  const cache = read()
  const mine = Object.values(cache.entries).find((e) => e.at === now + 100)
  assert.ok(mine)
  mine.topics = ['/home/someone/secret', 'react', 'not-a-topic']
  writeFileSync(cachePath(state), JSON.stringify(cache))
  assert.deepEqual(topicsFor(state, dir, now + 101), { topics: ['react'], cached: true })
})
