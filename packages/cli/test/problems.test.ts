/** The API's `{field, reason, ...facts}` in the command line's words (packages/cli/src/problems.ts). */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { flagOf, nearest, ruleInWords } from '../src/problems.ts'

const words = (command: string, d: { field: string; reason: string } & Record<string, unknown>) => `${flagOf(command, d.field)}: ${ruleInWords(d, flagOf(command, d.field))}`

test('each field is named by the flag (or argument) the command takes it from, the rule in words with its figures', () => {
  assert.equal(words('campaigns create', { field: 'cpm_usd', reason: 'below_minimum', minimum: 0.5 }), '--cpm: must be at least $0.50 CPM (the bid floor, `adctl account` shows it)')
  assert.equal(words('campaigns create', { field: 'ad_line', reason: 'too_short', min_length: 3, max_length: 60 }), '--line: must be at least 3 characters')
  assert.equal(words('campaigns rewrite', { field: 'ad_line', reason: 'too_long', max_length: 60 }), '<ad_line>: must be at most 60 characters')
  assert.equal(words('campaigns create', { field: 'impressions', reason: 'too_many_blocks', max_blocks: 100 }), '--impressions: is more than the 100 blocks one order may have')
  assert.equal(words('campaigns create', { field: 'cpm_usd', reason: 'order_total_exceeded', max_total_usd: 1000, order_total_usd: 1250 }), '--cpm: makes an order of $1,250.00, over the $1,000.00 one order may total: lower --cpm or the size')
  assert.equal(words('stats', { field: 'campaign_id', reason: 'required_with_group_by_topic' }), '--campaign: --group-by topic needs exactly one --campaign')
  assert.equal(words('stats', { field: 'start', reason: 'window_too_costly', estimated_events: 2_000_000, max_events: 1_000_000, retry_with: { start: '2026-11-01T00:00:00Z', end: '2026-11-02T00:00:00Z' } }), '--from: this window would scan about 2,000,000 events, more than the 1,000,000 allowed at once: try --from 2026-11-01T00:00:00Z --to 2026-11-02T00:00:00Z')
  assert.equal(words('exports create', { field: 'campaign_ids', reason: 'too_many_items', limit: 100 }), '--campaign: takes at most 100 items')
  assert.equal(words('webhooks add', { field: 'url', reason: 'https_required' }), '--url: must be an https:// address')
  assert.equal(flagOf('campaigns create', 'body'), null)
  assert.equal(ruleInWords({ field: 'x', reason: 'brand_new_rule' }, null), 'refused (brand_new_rule)')
})

test('nearest: the closest name when it is close enough to be a typo, else none', () => {
  const topics = ['python', 'pytest', 'rust', 'typescript', 'kubernetes']
  assert.equal(nearest('pyhton', topics), 'python')
  assert.equal(nearest('Typescrpt', topics), 'typescript')
  assert.equal(nearest('kubernets', topics), 'kubernetes')
  assert.equal(nearest('cobol-on-mars', topics), null)
})
