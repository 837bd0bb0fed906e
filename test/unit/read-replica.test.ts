import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadSettings, SettingsError } from '../../src/platform/env.ts'
import { lagBound, lsnBytes } from '../../src/store/read-replica.ts'

test('a WAL position reads as bytes: high word, low word, in hex', () => {
  assert.equal(lsnBytes('0/3000060'), 0x3000060n)
  assert.equal(lsnBytes('16/B374D848'), (0x16n << 32n) + 0xb374d848n)
  assert.throws(() => lsnBytes('nope'), RangeError)
})

test('the lag bound is the time since the newest primary position the replica has replayed past', () => {
  const notes = [
    { atMs: 1000, lsn: 100n },
    { atMs: 2000, lsn: 200n },
    { atMs: 3000, lsn: 300n },
  ]
  assert.equal(lagBound(notes, 300n, 3000), 0, 'caught up with the newest note (an idle primary stays at lag 0)')
  assert.equal(lagBound(notes, 250n, 3000), 1000, 'past the 2 s note only')
  assert.equal(lagBound(notes, 100n, 3500), 2500)
  assert.equal(lagBound(notes, 99n, 3000), Infinity, 'behind every note: unknown, not usable')
})

test('DATABASE_READ_URL: a postgres URL, only with DATABASE_URL; READ_REPLICA_MAX_LAG_MS 2000-3600000, default 5000', () => {
  const base = { DATABASE_URL: 'postgres://u@db/app' }
  const s = loadSettings({ ...base, DATABASE_READ_URL: 'postgres://u@replica/app' })
  assert.equal(s.databaseReadUrl, 'postgres://u@replica/app')
  assert.equal(s.readReplicaMaxLagMs, 5000)
  assert.equal(loadSettings({}).databaseReadUrl, null)
  assert.equal(loadSettings({ ...base, DATABASE_READ_URL: 'postgres://u@r/app', READ_REPLICA_MAX_LAG_MS: '2000' }).readReplicaMaxLagMs, 2000)
  assert.throws(() => loadSettings({ DATABASE_READ_URL: 'postgres://u@replica/app' }), (e: Error) => e instanceof SettingsError && /^DATABASE_READ_URL: needs DATABASE_URL/.test(e.message))
  assert.throws(() => loadSettings({ ...base, DATABASE_READ_URL: 'mysql://replica' }), /DATABASE_READ_URL: must start with postgres/)
  for (const bad of ['1999', '5s', '3600001']) {
    assert.throws(() => loadSettings({ ...base, READ_REPLICA_MAX_LAG_MS: bad }), /READ_REPLICA_MAX_LAG_MS/)
  }
})
