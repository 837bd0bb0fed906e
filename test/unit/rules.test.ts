import assert from 'node:assert/strict'
import { test } from 'node:test'
import { normalizeDestinationUrl } from '../../src/domain/destination-url.ts'
import { checkIconUrl } from '../../src/domain/icon-url.ts'
import { checkDisplayText, displayTextFacts, graphemeLength, hasStackedMarks, overCaps } from '../../src/domain/text-rules.ts'
import { nextMonthlyRun, nextWeeklyRun } from '../../src/domain/billing-schedule.ts'
import { campaignWrites } from '../../src/domain/access.ts'
import { cancelTransition, pauseTransition, resumeTransition } from '../../src/domain/campaign-state.ts'
import { createFingerprint, validateOrder } from '../../src/domain/campaign-order.ts'
import { DEFAULT_CONFIG } from '../../src/domain/order-config.ts'
import { loadSettings } from '../../src/platform/env.ts'

test('destination URLs: https only, no credentials, bare host gains a slash, rest verbatim', () => {
  assert.deepEqual(normalizeDestinationUrl('https://a.dev'), { url: 'https://a.dev/' })
  assert.deepEqual(normalizeDestinationUrl('https://a.dev#x'), { url: 'https://a.dev/#x' })
  assert.deepEqual(normalizeDestinationUrl('https://A.dev/P?q=1'), { url: 'https://A.dev/P?q=1' })
  assert.deepEqual(normalizeDestinationUrl('HTTPS://a.dev/'), { url: 'HTTPS://a.dev/' })
  assert.deepEqual(normalizeDestinationUrl('http://a.dev/'), { problem: 'https_required' })
  assert.deepEqual(normalizeDestinationUrl('javascript:alert(1)'), { problem: 'https_required' })
  assert.deepEqual(normalizeDestinationUrl('https://u@a.dev/'), { problem: 'credentials_not_allowed' })
  assert.deepEqual(normalizeDestinationUrl('https://a.dev/ x'), { problem: 'invalid_url' })
  assert.deepEqual(normalizeDestinationUrl(`https://a.dev/${'p'.repeat(490)}`), { problem: 'too_long' })
})

test('icons: https URLs and image data URIs only', () => {
  assert.equal(checkIconUrl('https://a.dev/i.png'), null)
  assert.equal(checkIconUrl('data:image/png;base64,iVBORw0KGgo='), null)
  assert.deepEqual(checkIconUrl('data:text/html,<script>'), { reason: 'invalid_icon_url' })
  assert.deepEqual(checkIconUrl('http://a.dev/i.png'), { reason: 'invalid_icon_url' })
})

test('display text counts grapheme clusters and refuses control characters', () => {
  assert.equal(graphemeLength('👩🏽‍💻 ok'), 4)
  assert.equal(checkDisplayText('abc', 3, 60), null)
  assert.equal(checkDisplayText('ab', 3, 60), 'too_short')
  assert.equal(checkDisplayText('a\nbc', 3, 60), 'control_characters')
  assert.equal(checkDisplayText('\u2066abc', 3, 60), 'control_characters')
})

test('display text: code points, UTF-8 bytes and stacked marks are capped; real emoji never hit the caps', () => {
  const kiss = '👩🏽‍❤️‍💋‍👨🏻' // the longest recommended emoji sequence: 10 code points, 35 bytes
  assert.equal(checkDisplayText(kiss.repeat(60), 3, 60), null)
  assert.equal(checkDisplayText('👩‍👩‍👧‍👦'.repeat(60), 3, 60), null)
  assert.equal(checkDisplayText('🇺🇦🏴󠁧󠁢󠁷󠁬󠁳󠁿'.repeat(30), 3, 60), null)
  assert.equal(checkDisplayText(kiss.repeat(61), 3, 60), 'too_long')
  assert.equal(checkDisplayText(`abc${'\u0301'.repeat(10_000)}`, 3, 60), 'too_long', '10,000 marks on a 3-character line')
  assert.equal(overCaps(`abc${'\u{E0061}'.repeat(597)}`, 60), true, '600 code points but 2,391 bytes of tag characters')
  assert.equal(overCaps(`abc${'\u0301'.repeat(597)}`, 60), false, '600 code points, 1,197 bytes')
  assert.equal(overCaps(`abc${'\u0301'.repeat(598)}`, 60), true)
  assert.equal(checkDisplayText(`Acme${'\u0301'.repeat(4)}`, 3, 60), null)
  assert.equal(checkDisplayText(`Acme${'\u0301'.repeat(5)}`, 3, 60), 'too_many_combining_marks')
  assert.equal(hasStackedMarks(`e${'\u0301\u0301\u200d'.repeat(3)}`), true, 'a joiner does not start a new character')
  assert.equal(hasStackedMarks(`e${'\u0301\u0301 '.repeat(30)}`), false, 'marks spread over many characters')
  for (const text of ['Tiếng Việt'.normalize('NFD'), 'कार्त्स्न्यं', 'བསྒྲུབས', 'שָׁלוֹם', 'ฟ้าใส่น้ำ', '#️⃣1️⃣', '🏳️‍⚧️']) {
    assert.equal(hasStackedMarks(text), false, text)
    assert.equal(checkDisplayText(text, 1, 60), null, text)
  }
  assert.deepEqual(displayTextFacts('too_long', 3, 60), { min_length: 3, max_length: 60, max_code_points: 600, max_bytes: 2100 })
  assert.deepEqual(displayTextFacts('too_many_combining_marks', null, 500), { max_length: 500, max_combining_marks: 4 })
  assert.deepEqual(displayTextFacts('too_short', 3, 60), { min_length: 3, max_length: 60 })
})

test('billing schedules: next Monday 06:00 UTC and next 1st 06:00 UTC, strictly after now', () => {
  assert.equal(nextWeeklyRun(new Date('2026-11-02T05:59:59Z')).toISOString(), '2026-11-02T06:00:00.000Z')
  assert.equal(nextWeeklyRun(new Date('2026-11-02T06:00:00Z')).toISOString(), '2026-11-09T06:00:00.000Z')
  assert.equal(nextWeeklyRun(new Date('2026-11-08T23:00:00Z')).toISOString(), '2026-11-09T06:00:00.000Z')
  assert.equal(nextMonthlyRun(new Date('2026-12-01T05:00:00Z')).toISOString(), '2026-12-01T06:00:00.000Z')
  assert.equal(nextMonthlyRun(new Date('2026-12-01T06:00:00Z')).toISOString(), '2027-01-01T06:00:00.000Z')
})

test('access: the first missing prerequisite, payment_failed needs billing', () => {
  const ok = {
    writes_disabled: false,
    write_approved: true,
    terms_accepted: true,
    effective_billing_mode: 'weekly_autopay',
    collection_status: 'ready',
    collection_hold: null,
    overdue_invoice_ids: [],
  }
  assert.equal(campaignWrites(ok), 'operational')
  assert.equal(campaignWrites({ ...ok, collection_status: 'payment_failed' }), 'billing_required')
  assert.equal(campaignWrites({ ...ok, writes_disabled: true, write_approved: false }), 'disabled')
  assert.equal(campaignWrites({ ...ok, write_approved: false, terms_accepted: false }), 'pending_approval')
})

test('state transitions', () => {
  assert.deepEqual(pauseTransition('active'), { to: 'paused', changed: true })
  assert.deepEqual(pauseTransition('paused'), { to: 'paused', changed: false })
  assert.ok('conflict' in pauseTransition('cancelled_user'))
  assert.ok('conflict' in resumeTransition('completed'))
  assert.ok('conflict' in cancelTransition('cancelled_user'))
  assert.deepEqual(cancelTransition('paused'), { to: 'cancelled_user', changed: true })
})

test('the idempotency fingerprint ignores trimming and defaults, not content', () => {
  const base = { ad_line: 'Line here', destination_url: 'https://a.dev/', cpm_usd: 1, impressions: 1000, idempotency_key: 'k' }
  assert.equal(createFingerprint(base), createFingerprint({ ...base, ad_line: ' Line here ', start_paused: false, kind: 'impression' }))
  assert.notEqual(createFingerprint(base), createFingerprint({ ...base, start_paused: true }))
  assert.equal(createFingerprint(base), createFingerprint({ ...base, idempotency_key: 'other' }), 'the key is not payload')
})

test('validateOrder computes blocks, amount and the default surface', () => {
  const order = validateOrder(
    { ad_line: 'Line here', destination_url: 'https://a.dev', cpm_usd: 1.5, impressions: 7000, idempotency_key: 'k' },
    DEFAULT_CONFIG,
  )
  assert.equal(order.blocks, 7)
  assert.equal(order.cpmMicros, 1_500_000)
  assert.equal(order.amountCents, 1050)
  assert.equal(order.targetSurface, 'extension')
  assert.equal(order.destinationUrl, 'https://a.dev/')
})

test('settings: defaults, and a bad value names the variable', () => {
  const s = loadSettings({})
  assert.equal(s.port, 8080)
  assert.equal(s.host, '127.0.0.1')
  assert.equal(s.publicUrl, 'http://127.0.0.1:8080')
  assert.equal(s.dataDir, './data')
  assert.equal(s.clock, 'system')
  assert.equal(s.adminToken, null)
  assert.throws(() => loadSettings({ PORT: 'eighty' }), /^Error: PORT:|PORT:/)
  assert.throws(() => loadSettings({ CLOCK: 'fast' }), /CLOCK:/)
  assert.throws(() => loadSettings({ CLOCK_START: 'yesterday' }), /CLOCK_START:/)
  assert.throws(() => loadSettings({ DATABASE_URL: 'mysql://x' }), /DATABASE_URL:/)
  assert.throws(() => loadSettings({ ADMIN_TOKEN: 'short' }), /ADMIN_TOKEN:/)
  assert.equal(loadSettings({ PUBLIC_URL: 'https://ads.example/' }).publicUrl, 'https://ads.example')
})

test('OFFER_KEYS: id:hex entries, first one current; unset means the key kept in the store', () => {
  const k1 = 'ab'.repeat(32)
  const k2 = 'CD'.repeat(32)
  assert.equal(loadSettings({}).offerKeys, null)
  assert.deepEqual(loadSettings({ OFFER_KEYS: `2:${k2}, 1:${k1}` }).offerKeys, [
    { id: 2, key: Buffer.from(k2, 'hex') },
    { id: 1, key: Buffer.from(k1, 'hex') },
  ])
  for (const bad of [`256:${k1}`, `1:${k1.slice(2)}`, `1:${k1},1:${k2}`, k1, `x:${k1}`, `1:${k1},`]) {
    assert.throws(() => loadSettings({ OFFER_KEYS: bad }), /OFFER_KEYS:/, bad)
  }
})
