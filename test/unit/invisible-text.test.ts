/** Issue 49, finding 7: invisible characters in the text a viewer is shown (domain/text-rules.ts#findInvisibleCharacter). */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { checkAdLine, checkBrand, checkOptionalLabel } from '../../src/domain/campaign-order.ts'
import { ApiError } from '../../src/domain/errors.ts'
import { findInvisibleCharacter } from '../../src/domain/text-rules.ts'

/** "hidden" spelled in tag characters: what the review smuggled into a line. */
const TAGGED = [...'hidden'].map((c) => String.fromCodePoint(0xe0000 + c.codePointAt(0)!)).join('')

test('each hidden character is found, as U+XXXX', () => {
  const cases: [string, string][] = [
    [`Acme${TAGGED} CI`, 'U+E0068'],
    ['Acme\u{E0001} CI', 'U+E0001'],
    ['Acme\u{E007F} CI', 'U+E007F'],
    ['Ac\u200Bme CI', 'U+200B'],
    ['Acme \u200Eשלום', 'U+200E'],
    ['Acme \u200FCI', 'U+200F'],
    ['Acme \u061CCI', 'U+061C'],
    ['Ac\u2060me', 'U+2060'],
    ['a\u2062b', 'U+2062'],
    ['Acme\u206A CI', 'U+206A'],
    ['\uFEFFAcme CI', 'U+FEFF'],
  ]
  for (const [text, found] of cases) assert.equal(findInvisibleCharacter(text), found, found)
})

test('a zero-width joiner is allowed inside an emoji sequence, and only there', () => {
  for (const ok of ['👩‍💻 ships', '👩🏽‍❤️‍💋‍👨🏻', '👩‍👩‍👧‍👦', '🏳️‍🌈', '🏳️‍⚧️', '👁️‍🗨️', '🏴‍☠️', '🧑🏿‍🦰', '🫱🏻‍🫲🏿', 'plain text']) assert.equal(findInvisibleCharacter(ok), null, ok)
  for (const bad of ['Ac\u200Dme', '\u200D👩', '👩\u200D', '👩\u200D\u200D💻', 'a\u200D💻', '👩\u200Da', '👩 \u200D💻', '1\uFE0F\u200D💻']) assert.equal(findInvisibleCharacter(bad), 'U+200D', JSON.stringify(bad))
  // Joiners and non-joiners that shape a script are not this rule's (U+200C is never refused).
  assert.equal(findInvisibleCharacter('می\u200Cخواهم'), null)
})

test('tag characters only as the flags of England, Scotland and Wales', () => {
  for (const flag of ['🏴󠁧󠁢󠁥󠁮󠁧󠁿', '🏴󠁧󠁢󠁳󠁣󠁴󠁿', '🏴󠁧󠁢󠁷󠁬󠁳󠁿']) assert.equal(findInvisibleCharacter(`Go ${flag}${flag}`), null, flag)
  assert.equal(findInvisibleCharacter('🏴\u{E0067}\u{E0062}\u{E0074}\u{E0078}\u{E007F}'), 'U+E0067', 'a subdivision Unicode does not recommend')
  assert.equal(findInvisibleCharacter('🏴󠁧󠁢󠁳󠁣󠁴󠁿\u{E0061}'), 'U+E0061', 'a tag after the flag')
  assert.equal(findInvisibleCharacter('\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}'), 'U+E0067', 'the tags without their black flag')
})

test('the ad line and the brand refuse them with 400 invisible_characters naming the field; the name does not', () => {
  const refusal = (fn: () => unknown) => {
    try {
      fn()
    } catch (e) {
      if (e instanceof ApiError) return { status: e.status, detail: e.detail }
      throw e
    }
    return null
  }
  assert.deepEqual(refusal(() => checkAdLine(`Ship faster${TAGGED}`)), {
    status: 400,
    detail: { field: 'ad_line', reason: 'invisible_characters', min_length: 3, max_length: 60, found: 'U+E0068' },
  })
  assert.deepEqual(refusal(() => checkBrand('Ac\u200Bme')), { status: 400, detail: { field: 'brand', reason: 'invisible_characters', min_length: 0, max_length: 120, found: 'U+200B' } })
  assert.equal(refusal(() => checkAdLine('Ship faster 👩‍💻')), null)
  assert.equal(checkBrand('  '), null, 'an empty brand is no brand')
  assert.equal(checkOptionalLabel('Q3\u200B', 'name', 1), 'Q3\u200B', 'a campaign name is the advertiser\'s own, never shown to viewers')
})
