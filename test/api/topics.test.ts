import assert from 'node:assert/strict'
import { test } from 'node:test'
import { useService } from '../helpers/api.ts'
import { TOPIC_GROUPS, TOPICS } from '../../src/domain/topics.ts'

/**
 * Topic targeting (issue 40; operations.md section 2, "Topics"): the published vocabulary,
 * campaigns' target_topics, decisions' topics, stats by topic and the quote with topics.
 */
const h = useService({}, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })

test('GET /serve/v1/topics: the vocabulary with its groups, cacheable, 304 on a matching ETag', async () => {
  const res = await h.anonymous.get('/serve/v1/topics')
  assert.equal(res.status, 200)
  assert.match(res.headers.get('content-type') ?? '', /application\/json/)
  assert.equal(res.headers.get('cache-control'), 'public, max-age=3600')
  assert.deepEqual(Object.keys(res.body), ['topics'])
  const topics: Array<{ topic: string; label: string; group: string }> = res.body.topics
  assert.ok(topics.length >= 150 && topics.length <= 300)
  assert.deepEqual(topics, TOPICS.map((t) => ({ topic: t.topic, label: t.label, group: t.group })))
  const groups = new Set<string>(TOPIC_GROUPS.map((g) => g.group))
  for (const t of topics) {
    assert.match(t.topic, /^[a-z0-9-]+$/)
    assert.ok(groups.has(t.group))
  }
  const etag = res.headers.get('etag')
  assert.ok(etag)
  const again = await h.anonymous.get('/serve/v1/topics', { headers: { 'if-none-match': etag } })
  assert.equal(again.status, 304)
  assert.equal(again.text, '')
})
