import assert from 'node:assert/strict'
import { test } from 'node:test'
import { API_KEY_SECRET_LENGTH, apiKeyFromSecret, apiKeyMatches, hashApiKey, LIVE_KEY_PREFIX } from '../../src/domain/api-keys.ts'

test('api keys: prefix + secret, stored as a digest, shown by a short prefix', () => {
  const secret = 'A'.repeat(API_KEY_SECRET_LENGTH)
  const k = apiKeyFromSecret(secret)
  assert.equal(k.key, LIVE_KEY_PREFIX + secret)
  assert.deepEqual(k.hash, hashApiKey(k.key))
  assert.equal(k.prefix, `${LIVE_KEY_PREFIX}AAAAAA`)
  assert.equal(apiKeyMatches(k.key, k.hash), true)
  assert.equal(apiKeyMatches(`${k.key}x`, k.hash), false)
  assert.equal(apiKeyMatches(k.key, null), false, 'no stored digest (unknown user) never matches')
})
