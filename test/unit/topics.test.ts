import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  attributedTopic,
  checkTargetTopics,
  NO_TOPIC,
  OTHER_TOPICS,
  TOPIC_REPORT_MIN_IMPRESSIONS,
  topicReport,
  isTopic,
  MAX_DECISION_TOPICS,
  MAX_TARGET_TOPICS,
  normaliseDecisionTopics,
  TOPIC_GROUPS,
  TOPIC_NAME_PATTERN,
  TOPICS,
  topicsMatch,
} from '../../src/domain/topics.ts'

test('the vocabulary contract: 150-300 unique lower-case names, each with a label and a documented group', () => {
  assert.ok(TOPICS.length >= 150 && TOPICS.length <= 300, `count ${TOPICS.length}`)
  const pattern = new RegExp(TOPIC_NAME_PATTERN)
  const groups = new Set<string>(TOPIC_GROUPS.map((g) => g.group))
  for (const t of TOPICS) {
    assert.deepEqual(Object.keys(t).sort(), ['group', 'label', 'topic'])
    assert.match(t.topic, pattern)
    assert.ok(!t.topic.startsWith('-') && !t.topic.endsWith('-'), t.topic)
    assert.ok(t.label.trim().length > 0 && t.label.length <= 40, t.topic)
    assert.ok(groups.has(t.group), t.group)
  }
  assert.equal(new Set(TOPICS.map((t) => t.topic)).size, TOPICS.length, 'names are unique')
  // Every group is used, and the list is in group order.
  const order = TOPIC_GROUPS.map((g) => g.group as string)
  const seen = [...new Set(TOPICS.map((t) => t.group as string))]
  assert.deepEqual(seen, order)
})

test('the obvious manifest topics are in the vocabulary', () => {
  const expected = `python javascript typescript go rust java kotlin ruby php csharp swift react vue angular svelte nextjs
    django flask fastapi rails spring express nestjs postgresql mysql mongodb redis sqlite elasticsearch kafka aws gcp
    azure docker kubernetes helm terraform pytest jest vitest playwright cypress pytorch tensorflow langchain openai`
  for (const name of expected.split(/\s+/)) assert.ok(isTopic(name), name)
})

test('normaliseDecisionTopics: unknown names dropped, repeats dropped, the first five known kept in order', () => {
  assert.deepEqual(normaliseDecisionTopics(undefined), [])
  assert.deepEqual(normaliseDecisionTopics([]), [])
  assert.deepEqual(normaliseDecisionTopics(['python', 'no-such-topic', 'Python', 'python', 'pytest']), ['python', 'pytest'])
  const many = ['rust', 'go', 'nope', 'java', 'ruby', 'php', 'scala', 'swift']
  assert.deepEqual(normaliseDecisionTopics(many), ['rust', 'go', 'java', 'ruby', 'php'])
  assert.equal(normaliseDecisionTopics(many).length, MAX_DECISION_TOPICS)
})

test('checkTargetTopics: every name known (the first unknown named), at most ten distinct, sorted', () => {
  assert.deepEqual(checkTargetTopics(['python', 'django', 'python']), { ok: true, topics: ['django', 'python'] })
  assert.deepEqual(checkTargetTopics([]), { ok: true, topics: [] })
  assert.deepEqual(checkTargetTopics(['python', 'cobol-2', 'nope']), { ok: false, reason: 'unknown_topic', topic: 'cobol-2' })
  const eleven = TOPICS.slice(0, MAX_TARGET_TOPICS + 1).map((t) => t.topic)
  assert.deepEqual(checkTargetTopics(eleven), { ok: false, reason: 'too_many_topics', max: MAX_TARGET_TOPICS })
  assert.equal(checkTargetTopics(eleven.slice(0, MAX_TARGET_TOPICS)).ok, true)
})

test('topicsMatch: without topics eligible for all; with topics only for a decision carrying one of them', () => {
  assert.equal(topicsMatch(null, []), true)
  assert.equal(topicsMatch(new Set(), ['python']), true)
  assert.equal(topicsMatch(new Set(['python', 'django']), ['go', 'django']), true)
  assert.equal(topicsMatch(new Set(['python']), ['go']), false)
  assert.equal(topicsMatch(new Set(['python']), []), false)
  // A name later removed from the vocabulary stays stored but never matches: decisions cannot carry it.
  assert.equal(topicsMatch(new Set(['retired-topic']), normaliseDecisionTopics(['retired-topic'])), false)
})

test('attributedTopic: the first decision topic the campaign targets; without targets the first; none without topics', () => {
  assert.equal(attributedTopic(new Set(['django', 'pytest']), ['python', 'pytest', 'django']), 'pytest')
  assert.equal(attributedTopic(null, ['python', 'pytest']), 'python')
  assert.equal(attributedTopic(undefined, []), null)
  assert.equal(attributedTopic(new Set(['go']), ['python']), null)
})

test('topicReport: topics under ten billable impressions summed as other, no topic as none, most first; the rows sum to the count', () => {
  const rows = topicReport([
    { topic: 'python', billable: 25 },
    { topic: 'go', billable: 9 },
    { topic: 'rust', billable: 10 },
    { topic: 'zig', billable: 1 },
    { topic: null, billable: 4 },
    { topic: 'java', billable: 0 },
  ])
  assert.deepEqual(rows, [
    { topic: 'python', billable_impressions: 25 },
    { topic: 'rust', billable_impressions: 10 },
    { topic: OTHER_TOPICS, billable_impressions: 10 },
    { topic: NO_TOPIC, billable_impressions: 4 },
  ])
  assert.equal(TOPIC_REPORT_MIN_IMPRESSIONS, 10)
  assert.deepEqual(topicReport([]), [])
  assert.deepEqual(topicReport([{ topic: 'go', billable: 3 }]), [{ topic: OTHER_TOPICS, billable_impressions: 3 }])
  // The summary rows' names can never be mistaken for a topic.
  assert.equal(isTopic(OTHER_TOPICS), false)
  assert.equal(isTopic(NO_TOPIC), false)
})
