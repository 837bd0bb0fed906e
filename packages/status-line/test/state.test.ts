import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { claimReport, paths, pendingReports, queueReport, recoverClaims, CLAIM_STALE_MS, stateDir, tryLock, viewerId, withStateLock } from '../src/state.js'

const fresh = () => mkdtempSync(join(tmpdir(), 'thinking-line-'))

test('the state directory: THINKING_LINE_STATE_DIR, else $XDG_STATE_HOME/thinking-line, else ~/.local/state/thinking-line', () => {
  assert.equal(stateDir({ THINKING_LINE_STATE_DIR: '/s', XDG_STATE_HOME: '/x' }), '/s')
  assert.equal(stateDir({ XDG_STATE_HOME: '/x' }), '/x/thinking-line')
  assert.match(stateDir({}), /\/\.local\/state\/thinking-line$/)
})

test('a queued report is claimed by one claimant only; done removes it, retry puts it back', () => {
  const dir = fresh()
  queueReport(dir, { impression_id: 'imp/1', dwell_ms: 10_000, queued_at: 1 })
  const [file] = pendingReports(dir)
  assert.ok(file)
  const first = claimReport(dir, file, 10)
  assert.ok(first)
  assert.deepEqual(first.report, { impression_id: 'imp/1', dwell_ms: 10_000, queued_at: 1 })
  assert.equal(claimReport(dir, file, 10), null)
  assert.deepEqual(pendingReports(dir), [])
  first.retry()
  assert.deepEqual(pendingReports(dir), [file])
  const second = claimReport(dir, file, 20)
  assert.ok(second)
  second.done()
  assert.deepEqual(readdirSync(paths(dir).reports), [])
})

test("a dead refresher's claim goes back to the queue after a minute, not before", () => {
  const dir = fresh()
  queueReport(dir, { impression_id: 'x', dwell_ms: 1, queued_at: 1 })
  assert.ok(claimReport(dir, pendingReports(dir)[0]!, 1_000))
  recoverClaims(dir, 1_000 + CLAIM_STALE_MS)
  assert.equal(pendingReports(dir).length, 0)
  recoverClaims(dir, 1_001 + CLAIM_STALE_MS)
  assert.equal(pendingReports(dir).length, 1)
})

test('a lock is exclusive; a stale one is taken over', () => {
  const dir = fresh()
  const lock = join(dir, 'x.lock')
  const now = Date.now()
  assert.equal(tryLock(lock, 1_000, now), true)
  assert.equal(tryLock(lock, 1_000, now), false)
  utimesSync(lock, (now - 5_000) / 1000, (now - 5_000) / 1000)
  assert.equal(tryLock(lock, 1_000, now), true)
  assert.equal(tryLock(lock, 1_000, now), false)
})

test('the state lock waits a bounded time, then gives up without running', () => {
  const dir = fresh()
  writeFileSync(paths(dir).stateLock, '')
  const started = Date.now()
  assert.equal(withStateLock(dir, 30, () => 'ran', () => Date.now()), undefined)
  assert.ok(Date.now() - started < 500)
  assert.equal(withStateLock(fresh(), 30, () => 'ran', () => Date.now()), 'ran')
})

test('the viewer id is random, made once, and kept', () => {
  const dir = fresh()
  const id = viewerId(dir, () => 'first-random')
  assert.equal(id, 'first-random')
  assert.equal(viewerId(dir, () => 'second-random'), 'first-random')
  assert.equal(readFileSync(paths(dir).viewer, 'utf8').trim(), 'first-random')
  assert.deepEqual(readdirSync(dir), ['viewer-id'])
})
