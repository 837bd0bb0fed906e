import assert from 'node:assert/strict'
import { test } from 'node:test'
import { exceedsJsonDepth, findInputProblem, MAX_JSON_DEPTH, numberProblem, textProblem } from '../../src/domain/input-rules.ts'
import { parseTimestamp } from '../../src/domain/timestamps.ts'
import { checkDisplayText, visibleLength } from '../../src/domain/text-rules.ts'

test('text: lone surrogates, control characters and blank strings are refused; emoji and spaces inside are not', () => {
  assert.equal(textProblem('Ship 🚀 faster'), null)
  assert.equal(textProblem(''), null, 'empty is left to the schema (minLength)')
  assert.equal(textProblem('a\ud800'), 'invalid_unicode')
  assert.equal(textProblem('\udc00b'), 'invalid_unicode')
  assert.equal(textProblem('a\u0000b'), 'control_characters')
  assert.equal(textProblem('line\nbreak'), 'control_characters')
  assert.equal(textProblem('c1\u0085'), 'control_characters')
  assert.equal(textProblem('\u200b\u200c\u2060'), 'blank')
  assert.equal(textProblem(' \u00a0\u3000'), 'blank')
})

test('numbers: finite and within 2^53', () => {
  assert.equal(numberProblem(2.5), null)
  assert.equal(numberProblem(Number.MAX_SAFE_INTEGER), null)
  assert.equal(numberProblem(JSON.parse('1e309')), 'not_finite')
  assert.equal(numberProblem(-Infinity), 'not_finite')
  assert.equal(numberProblem(2 ** 53 + 2), 'out_of_range')
})

test('the first problem is named like a schema error, keys included', () => {
  assert.deepEqual(findInputProblem({ a: 'ok', b: [1, 'x', 'y\u0000'] }), { field: 'b.2', reason: 'control_characters' })
  assert.deepEqual(findInputProblem({ n: { cap: JSON.parse('1e309') } }), { field: 'n.cap', reason: 'not_finite' })
  assert.deepEqual(findInputProblem({ ['k\ud800']: 1 }), { field: 'k\ud800', reason: 'invalid_unicode' })
  assert.equal(findInputProblem({ a: null, b: true, c: 'fine' }), null)
})

test('timestamps: RFC 3339 without leap seconds, in years 0001-9999, real dates and offsets only', () => {
  assert.equal(parseTimestamp('2026-11-02T09:00:00Z'), Date.UTC(2026, 10, 2, 9))
  assert.equal(parseTimestamp('2026-11-02T10:00:00.5+01:00'), Date.UTC(2026, 10, 2, 9, 0, 0, 500))
  assert.equal(parseTimestamp('2024-02-29T00:00:00Z'), Date.UTC(2024, 1, 29))
  for (const bad of [
    '2026-06-30T23:59:60Z', '0000-01-01T00:00:00Z', '0001-01-01T00:30:00+01:00', '2023-02-29T00:00:00Z', '2026-04-31T00:00:00Z',
    '2026-13-01T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T00:00:00+24:00', '2026-01-01T00:00:00', '2026-01-01', 'tomorrow',
  ]) {
    assert.equal(parseTimestamp(bad), null, bad)
  }
})

test('display text: zero-width-only is blank, and zero-width characters do not count towards the minimum', () => {
  assert.equal(visibleLength('👩🏽‍💻 ok'), 3, 'a ZWJ emoji is one visible cluster, the space none')
  assert.equal(checkDisplayText('\u200b\u200b\u200b', 3, 60), 'blank')
  assert.equal(checkDisplayText('ab\u200b', 3, 60), 'too_short')
  assert.equal(checkDisplayText('abc', 3, 60), null)
})

test('JSON depth: arrays and objects count, brackets inside strings and escaped quotes do not', () => {
  const nested = (n: number) => '['.repeat(n) + ']'.repeat(n)
  assert.equal(exceedsJsonDepth(nested(MAX_JSON_DEPTH)), false)
  assert.equal(exceedsJsonDepth(nested(MAX_JSON_DEPTH + 1)), true)
  assert.equal(exceedsJsonDepth('{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000)), true)
  assert.equal(exceedsJsonDepth(`{"a":"${'[{'.repeat(100)}"}`), false)
  assert.equal(exceedsJsonDepth(`{"a":"\\"${'['.repeat(100)}"}`), false, 'an escaped quote does not end the string')
  assert.equal(exceedsJsonDepth(`["\\\\",${nested(3)}]`, 3), true, 'an escaped backslash does end before the quote')
  assert.equal(exceedsJsonDepth('[1],[2],[3]', 1), false, 'siblings are not nesting')
  assert.equal(exceedsJsonDepth(''), false)
})
