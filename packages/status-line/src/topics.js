// @ts-check
/**
 * The terminal's topic cache: ad-client's derivation (packages/ad-client/src/topics.js), cached in
 * `topics.json` in the state directory (an HMAC of the path, never the path). Run by the refresher
 * only; the invocation never opens a manifest.
 */
import { join } from 'node:path'
import { topicsFor as cachedTopics } from '@thinking-line/ad-client/topics'
import { readJson, writeAtomic } from './state.js'

/** @param {string} stateDir */
export const cachePath = (stateDir) => join(stateDir, 'topics.json')

/**
 * The topics of `workspace`, from the cache in `stateDir` when the directory's manifests are
 * unchanged and the entry is younger than an hour, else derived and cached.
 * @param {string} stateDir @param {string} workspace @param {number} now
 */
export function topicsFor(stateDir, workspace, now) {
  const path = cachePath(stateDir)
  return cachedTopics({ read: () => readJson(path), write: (value) => writeAtomic(path, JSON.stringify(value)) }, workspace, now)
}
