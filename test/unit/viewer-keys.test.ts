import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createHmac, randomBytes } from 'node:crypto'
import { ViewerKeys } from '../../src/serving/viewer-keys.ts'

test('viewer keys: the keyed hash of the install id, unchanged by the cache', () => {
  const secret = randomBytes(32)
  const keys = new ViewerKeys(secret)
  const expected = (id: string) => createHmac('sha256', secret).update(`viewer:${id}`).digest('base64url').slice(0, 22)
  for (const id of ['a', 'viewer-1', 'ü-ñ', 'x'.repeat(128)]) {
    assert.equal(keys.of(id), expected(id))
    assert.equal(keys.of(id), expected(id), 'a cached key is the same key')
  }
  assert.notEqual(new ViewerKeys(randomBytes(32)).of('a'), keys.of('a'), 'another secret, another key')
})

test('viewer keys: at most two generations are held, however many viewers', () => {
  const keys = new ViewerKeys(randomBytes(32), 100)
  const first = keys.of('first')
  for (let i = 0; i < 10_000; i++) keys.of(`viewer-${i}`)
  assert.ok(keys.held <= 200, `${keys.held} held`)
  assert.equal(keys.of('first'), first, 'a forgotten viewer gets the same key again')
})
