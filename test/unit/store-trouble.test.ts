import assert from 'node:assert/strict'
import { test } from 'node:test'
import { storeTrouble } from '../../src/http/plugins/errors.ts'

const coded = (code: string) => Object.assign(new Error('x'), { code })

test('store trouble: pg timeouts, dropped connections and server-side timeouts are "unavailable" (503)', () => {
  for (const message of [
    'Query read timeout',
    'timeout exceeded when trying to connect',
    'Connection terminated unexpectedly',
    'Connection terminated due to connection timeout',
    'Connection terminated',
    'Client has encountered a connection error and is not queryable',
  ]) {
    assert.equal(storeTrouble(new Error(message)), 'unavailable', message)
  }
  for (const code of ['57014', '25P03', '57P01', '08006', '53300', 'ECONNREFUSED', 'ETIMEDOUT']) assert.equal(storeTrouble(coded(code)), 'unavailable', code)
  assert.equal(storeTrouble(coded('40001')), 'contention')
})

test('store trouble: anything else is not', () => {
  assert.equal(storeTrouble(new Error('Cannot read properties of undefined')), null)
  assert.equal(storeTrouble(coded('23505')), null)
  assert.equal(storeTrouble('Query read timeout'), null)
  assert.equal(storeTrouble(null), null)
})
