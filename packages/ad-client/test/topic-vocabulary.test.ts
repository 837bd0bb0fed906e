import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MAX_DECISION_TOPICS, TOPICS } from '../../../src/domain/topics.ts'
import { LANGUAGE_TOPICS, MAX_TOPICS, TABLE_TOPICS } from '../src/topic-table.js'

test('every topic the client\'s table can emit is in the service\'s published vocabulary', () => {
  const vocabulary = new Set(TOPICS.map((t) => t.topic))
  assert.deepEqual([...TABLE_TOPICS].filter((t) => !vocabulary.has(t)), [])
  assert.deepEqual([...LANGUAGE_TOPICS].filter((t) => !TABLE_TOPICS.has(t)), [])
  assert.equal(MAX_TOPICS, MAX_DECISION_TOPICS)
})
